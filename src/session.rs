//! A redis-cli session: models redis-cli.c `repl()` and `cliSendCommand()` for one line —
//! splitting (tokenize.rs), the repeat prefix (`3 INCR x`), the client-side commands (`help`,
//! `quit`/`exit`, `clear`, `:set`, `restart`, `connect`), prompt tracking for SELECT and
//! MULTI/EXEC/DISCARD/RESET, and the choice between TTY formatting and the verbatim output
//! redis-cli uses for INFO and friends (`cliFormatReplyRaw`).
//!
//! The native CLI and the page's console both run lines through `Session::run_line`, so they
//! print exactly the same bytes. Differences from redis-cli: there is no connection (`connect`
//! explains that), a repeat count above `MAX_REPEAT` is refused with a message instead of
//! running for hours, and the `(N.NNs)` timing line is never printed (time is virtual).

use crate::command::call::{doc_field, Command};
use crate::command::table::table;
use crate::engine::{ClientId, Engine, EngineOptions};
use crate::reply::Reply;
use crate::tokenize::split_args;
use crate::util::{atoi, strtol_whole};

/// The largest repeat prefix the playground runs.
pub const MAX_REPEAT: i64 = 100_000;

/// What one line produced.
#[derive(Debug, Clone, Default)]
pub struct LineOutput {
    /// Exactly what redis-cli would print (no prompt).
    pub text: Vec<u8>,
    /// The reply of the last command sent, if any.
    pub reply: Option<Reply>,
    /// `quit`/`exit`: redis-cli would exit here.
    pub quit: bool,
    /// `clear`: the console should clear the screen.
    pub clear: bool,
    /// The command blocked (BLPOP on an empty list…): redis-cli waits for its reply, which
    /// `Session::poll` prints when it comes.
    pub blocked: bool,
    /// The console entered subscribe mode: redis-cli now only prints messages (`poll`) until
    /// Ctrl-C (`Session::interrupt`).
    pub subscribed: bool,
}

/// One redis-cli's state between lines: its connection (client) and its prompt.
#[derive(Debug, Clone)]
struct Console {
    client: ClientId,
    dbnum: i64,
    in_multi: bool,
    pre_multi_dbnum: i64,
    /// In redis-cli's subscribe loop (`config.pubsub_mode`).
    pubsub_mode: bool,
    /// Repeats of a line still to send once a blocked command is answered.
    pending: Vec<Vec<u8>>,
    pending_repeats: i64,
}

impl Console {
    fn new(client: ClientId) -> Console {
        Console {
            client,
            dbnum: 0,
            in_multi: false,
            pre_multi_dbnum: 0,
            pubsub_mode: false,
            pending: vec![],
            pending_repeats: 0,
        }
    }
}

/// redis-cli consoles connected to one engine, numbered from 0. Console 0 (client `client`)
/// is the one `run_line` talks to; `open_console` adds more (each its own client), so two
/// consoles can race on one keyspace.
pub struct Session {
    pub engine: Engine,
    /// The first console's client.
    pub client: ClientId,
    consoles: Vec<Console>,
}

impl Session {
    pub fn new(opts: EngineOptions) -> Session {
        let mut engine = Engine::new(opts);
        let client = engine.connect();
        Session { engine, client, consoles: vec![Console::new(client)] }
    }

    /// Back to a fresh engine (same seed and start time) and fresh prompts; the consoles stay.
    pub fn reset(&mut self) {
        self.engine.reset();
        for c in self.consoles.iter_mut() {
            *c = Console::new(c.client);
        }
    }

    /// Opens another console (a new client of the same engine); returns its number.
    pub fn open_console(&mut self) -> usize {
        let id = self.engine.connect();
        self.consoles.push(Console::new(id));
        self.consoles.len() - 1
    }

    /// Closes the last console (not the first): its client disconnects, and its
    /// subscriptions, watches and pending blocking command go with it.
    pub fn close_console(&mut self) -> bool {
        if self.consoles.len() <= 1 {
            return false;
        }
        if let Some(c) = self.consoles.pop() {
            self.engine.disconnect(c.client);
        }
        true
    }

    /// How many consoles are open.
    pub fn console_count(&self) -> usize {
        self.consoles.len()
    }

    /// The client a console is connected as (it changes when redis-cli reconnects).
    pub fn client_of(&self, console: usize) -> Option<ClientId> {
        self.consoles.get(console).map(|c| c.client)
    }

    /// redis-cli.c `cliRefreshPrompt()` for the first console.
    pub fn prompt(&self) -> String {
        self.prompt_of(0)
    }

    /// redis-cli.c `cliRefreshPrompt()`.
    pub fn prompt_of(&self, console: usize) -> String {
        let Some(c) = self.consoles.get(console) else { return "not connected> ".into() };
        let mut p = String::from("127.0.0.1:6379");
        if c.dbnum != 0 {
            p.push_str(&format!("[{}]", c.dbnum));
        }
        if c.in_multi {
            p.push_str("(TX)");
        }
        p.push_str("> ");
        p
    }

    /// Waiting for a blocked command's reply.
    pub fn is_waiting(&self, console: usize) -> bool {
        self.consoles.get(console).is_some_and(|c| self.engine.is_blocked(c.client))
    }

    /// In redis-cli's subscribe loop.
    pub fn is_subscribed(&self, console: usize) -> bool {
        self.consoles.get(console).is_some_and(|c| c.pubsub_mode)
    }

    /// Runs one line on the first console.
    pub fn run_line(&mut self, line: &[u8]) -> LineOutput {
        self.run_line_on(0, line)
    }

    /// Runs one line as that console's redis-cli REPL would and returns what it prints.
    pub fn run_line_on(&mut self, console: usize, line: &[u8]) -> LineOutput {
        let mut out = LineOutput::default();
        if console >= self.consoles.len() {
            out.text.extend_from_slice(b"(redisplay) no such console.\n");
            return out;
        }
        // A redis-cli that waits for a reply or reads messages doesn't read its input.
        if self.is_waiting(console) || self.is_subscribed(console) {
            out.blocked = self.is_waiting(console);
            out.subscribed = self.is_subscribed(console);
            return out;
        }
        // Replies that arrived while idle (e.g. after SUBSCRIBE inside MULTI) print first.
        out.text.extend(self.format_outbox(console));
        let Some(argv) = split_args(line) else {
            out.text.extend_from_slice(b"Invalid argument(s)\n");
            return out;
        };
        if argv.is_empty() {
            return out;
        }
        let mut argv = argv;
        let mut repeat = 1i64;
        if argv.len() > 1 {
            if let Some(n) = strtol_whole(&argv[0]) {
                if n <= 0 {
                    out.text.extend_from_slice(b"Invalid redis-cli repeat command option value.\n");
                    return out;
                }
                if n > MAX_REPEAT {
                    out.text.extend_from_slice(
                        format!("(redisplay) a repeat count above {MAX_REPEAT} is refused in the playground.\n")
                            .as_bytes(),
                    );
                    return out;
                }
                repeat = n;
                argv.remove(0);
            }
        }
        let first = argv[0].to_ascii_lowercase();
        if first == b"quit" || first == b"exit" {
            out.quit = true;
            return out;
        }
        if first.first() == Some(&b':') {
            out.text.extend(set_preference(&argv));
            return out;
        }
        if first == b"restart" {
            out.text.extend_from_slice(b"Use 'restart' only in Lua debugging mode.\n");
            return out;
        }
        if argv.len() == 3 && first == b"connect" {
            out.text.extend_from_slice(
                b"(redisplay) the playground's engine runs in this page; there is no server to connect to.\n",
            );
            return out;
        }
        if argv.len() == 1 && first == b"clear" {
            out.clear = true;
            out.text.extend_from_slice(b"\x1b[H\x1b[2J");
            return out;
        }
        self.send_repeated(console, &argv, repeat, &mut out);
        // The event loop goes back to sleep after serving the line: beforeSleep's fast cycle.
        self.engine.before_sleep();
        out
    }

    fn send_repeated(&mut self, console: usize, argv: &[Vec<u8>], repeat: i64, out: &mut LineOutput) {
        for done in 0..repeat {
            self.send_command(console, argv, out);
            if self.is_waiting(console) {
                out.blocked = true;
                let c = &mut self.consoles[console];
                c.pending = argv.to_vec();
                c.pending_repeats = repeat - done - 1;
                return;
            }
            if self.is_subscribed(console) {
                out.subscribed = true;
                return;
            }
        }
    }

    /// What a console prints without a new line of input: a blocked command's late reply
    /// (then the rest of its repeats), or messages in subscribe mode.
    pub fn poll(&mut self, console: usize) -> Vec<u8> {
        let mut text = Vec::new();
        if console >= self.consoles.len() {
            return text;
        }
        text.extend(self.format_outbox(console));
        // The connection was closed (CLIENT KILL from another console) while redis-cli was
        // reading messages or waiting for a blocked command's reply: it says so and connects
        // again, as after a command sent on a closed connection.
        let c = &self.consoles[console];
        if self.engine.client(c.client).is_none() && (c.pubsub_mode || !c.pending.is_empty()) {
            text.extend_from_slice(b"Error: Server closed the connection\n");
            self.reconnect(console);
            return text;
        }
        if self.is_waiting(console) || self.consoles[console].pending.is_empty() {
            return text;
        }
        let c = &mut self.consoles[console];
        let (argv, repeats) = (std::mem::take(&mut c.pending), std::mem::take(&mut c.pending_repeats));
        if repeats > 0 {
            let mut out = LineOutput::default();
            self.send_repeated(console, &argv, repeats, &mut out);
            text.extend(out.text);
        }
        text
    }

    /// Ctrl-C: redis-cli exits, so its connection closes (subscriptions and a blocked command
    /// go with it); the console starts a new redis-cli with a new connection.
    pub fn interrupt(&mut self, console: usize) {
        let Some(c) = self.consoles.get(console) else { return };
        self.engine.disconnect(c.client);
        self.reconnect(console);
    }

    /// A new redis-cli connection for the console (a new client, db 0).
    fn reconnect(&mut self, console: usize) {
        let id = self.engine.connect();
        self.consoles[console] = Console::new(id);
        if console == 0 {
            self.client = id;
        }
    }

    fn format_outbox(&mut self, console: usize) -> Vec<u8> {
        let mut text = Vec::new();
        let client = self.consoles[console].client;
        let proto = self.proto_of(client);
        for r in self.engine.take_outbox(client) {
            text.extend(r.to_cli_proto(proto));
        }
        text
    }

    /// The protocol a console's connection speaks (3 after `HELLO 3`).
    fn proto_of(&self, client: ClientId) -> u8 {
        self.engine.client(client).map_or(2, |c| c.resp)
    }

    /// redis-cli.c `cliSendCommand()` for one command.
    fn send_command(&mut self, console: usize, argv: &[Vec<u8>], out: &mut LineOutput) {
        let command = argv[0].to_ascii_lowercase();
        if command == b"help" || command == b"?" {
            out.text.extend(help(&argv[1..]));
            return;
        }
        let client = self.consoles[console].client;
        // The connection was closed (CLIENT KILL): the command is lost, redis-cli says so and
        // connects again (a new client, db 0).
        if self.engine.client(client).is_none() {
            out.text.extend_from_slice(b"Error: Server closed the connection\n");
            self.reconnect(console);
            return;
        }
        let reply = self.engine.execute(client, argv);
        if self.engine.is_blocked(client) {
            return;
        }
        let argc = argv.len();
        let arg1 = argv.get(1).map(|a| a.to_ascii_lowercase()).unwrap_or_default();
        let subscribe = command == b"subscribe" || command == b"psubscribe" || command == b"ssubscribe";
        if subscribe {
            out.text.extend_from_slice(b"Reading messages... (press Ctrl-C to quit)\n");
        }
        let verbatim = command == b"info"
            || command == b"lolwut"
            || (argc >= 2 && command == b"debug" && arg1 == b"htstats")
            || (argc >= 2 && command == b"debug" && arg1 == b"htstats-key")
            || (argc >= 2 && command == b"memory" && (arg1 == b"malloc-stats" || arg1 == b"doctor"))
            || (argc == 2 && command == b"cluster" && (arg1 == b"nodes" || arg1 == b"info"))
            || (argc >= 2 && command == b"client" && (arg1 == b"list" || arg1 == b"info"))
            || (argc == 3 && command == b"latency" && arg1 == b"graph")
            || (argc == 2 && command == b"latency" && arg1 == b"doctor");
        if verbatim {
            out.text.extend(format_raw(&reply));
        } else {
            out.text.extend(reply.to_cli_proto(self.proto_of(client)));
        }
        // The rest of a multi-reply command (SUBSCRIBE a b) and anything else pending.
        out.text.extend(self.format_outbox(console));
        let is_err = reply.is_error();
        let c = &mut self.consoles[console];
        if subscribe && !is_err {
            c.pubsub_mode = true;
        }
        if command == b"select" && argc == 2 && !is_err {
            c.dbnum = atoi(&argv[1]);
        } else if command == b"multi" && argc == 1 && !is_err {
            c.in_multi = true;
            c.pre_multi_dbnum = c.dbnum;
        } else if command == b"exec" && argc == 1 && c.in_multi {
            c.in_multi = false;
            if is_err || matches!(reply, Reply::Nil | Reply::NilArray) {
                c.dbnum = c.pre_multi_dbnum;
            }
        } else if command == b"discard" && argc == 1 && !is_err {
            c.in_multi = false;
            c.dbnum = c.pre_multi_dbnum;
        } else if command == b"reset" && argc == 1 && !is_err {
            c.in_multi = false;
            c.dbnum = 0;
        }
        out.reply = Some(reply);
    }
}

/// redis-cli.c `cliSetPreferences()`: `:set hints|nohints` are accepted silently.
fn set_preference(argv: &[Vec<u8>]) -> Vec<u8> {
    let name = String::from_utf8_lossy(&argv[0]).into_owned();
    if name.eq_ignore_ascii_case(":set") && argv.len() >= 2 {
        let pref = argv[1].to_ascii_lowercase();
        if pref == b"hints" || pref == b"nohints" {
            return vec![];
        }
        return format!("unknown redis-cli preference '{}'\n", String::from_utf8_lossy(&argv[1])).into_bytes();
    }
    format!("unknown redis-cli internal command '{name}'\n").into_bytes()
}

/// redis-cli.c `cliFormatReplyRaw()`: what INFO and friends print, with no added newline.
pub fn format_raw(r: &Reply) -> Vec<u8> {
    let mut out = Vec::new();
    match &*r.as_resp2() {
        Reply::Nil | Reply::NilArray => {}
        Reply::Error(e) => {
            out.extend_from_slice(e);
            out.push(b'\n');
        }
        Reply::Status(s) => out.extend_from_slice(s.as_bytes()),
        Reply::Bulk(b) => out.extend_from_slice(b),
        Reply::Integer(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Reply::Double(d) => out.extend_from_slice(crate::util::fmt_double(*d).as_bytes()),
        Reply::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b'\n');
                }
                out.extend(format_raw(item));
            }
        }
        _ => {} // as_resp2 leaves no RESP3 shape
    }
    out
}

// ---------------------------------------------------------------------------------------------
// help — redis-cli.c `cliOutputHelp()` over the entries it builds from COMMAND DOCS
// ---------------------------------------------------------------------------------------------

const BANNER: &str = "redis-cli 7.0.15
To get help about Redis commands type:
      \"help @<group>\" to get a list of commands in <group>
      \"help <command>\" for help on <command>
      \"help <tab>\" to get a list of possible help topics
      \"quit\" to exit

To set redis-cli preferences:
      \":set hints\" enable online hints
      \":set nohints\" disable online hints
Set your preferences in ~/.redisclirc
";

fn help(args: &[Vec<u8>]) -> Vec<u8> {
    if args.is_empty() {
        return BANNER.as_bytes().to_vec();
    }
    let mut entries: Vec<&Command> = Vec::new();
    for c in &table().commands {
        entries.push(c);
        entries.extend(c.subcommands.iter());
    }
    let mut out = b"\r\n".to_vec();
    let group = args[0].strip_prefix(b"@").map(|g| g.to_ascii_lowercase());
    for cmd in entries {
        let words: Vec<&str> = cmd.name.split('|').collect();
        let matched = match &group {
            Some(g) => cmd.group.as_bytes() == g.as_slice(),
            None => {
                words.len() >= args.len() && args.iter().zip(&words).all(|(a, w)| a.eq_ignore_ascii_case(w.as_bytes()))
            }
        };
        if !matched {
            continue;
        }
        let title = words.join(" ").to_ascii_uppercase();
        out.extend(format!("  \x1b[1m{title}\x1b[0m \x1b[90m{}\x1b[0m\r\n", command_params(cmd)).as_bytes());
        out.extend(format!("  \x1b[33msummary:\x1b[0m {}\r\n", cmd.summary).as_bytes());
        out.extend(format!("  \x1b[33msince:\x1b[0m {}\r\n", cmd.since).as_bytes());
        if group.is_none() {
            out.extend(format!("  \x1b[33mgroup:\x1b[0m {}\r\n", cmd.group).as_bytes());
        }
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// The argument synopsis redis-cli builds from a command's documented arguments.
fn command_params(cmd: &Command) -> String {
    let docs = cmd.docs.as_resp2();
    match doc_field(&docs, "arguments") {
        Some(Reply::Array(args)) => concat_args(args, " "),
        _ => String::new(),
    }
}

fn concat_args(args: &[Reply], sep: &str) -> String {
    args.iter().map(add_argument).collect::<Vec<_>>().join(sep)
}

fn text_of(r: Option<&Reply>) -> String {
    match r {
        Some(Reply::Bulk(b)) => String::from_utf8_lossy(b).into_owned(),
        Some(Reply::Status(s)) => s.clone(),
        _ => String::new(),
    }
}

/// redis-cli.c `cliAddArgument()`: `[TOKEN name]`, `a|b` for oneof, `name [name ...]`.
fn add_argument(arg: &Reply) -> String {
    let name = text_of(doc_field(arg, "name"));
    let kind = text_of(doc_field(arg, "type"));
    let token = text_of(doc_field(arg, "token"));
    let flags: Vec<String> = match doc_field(arg, "flags") {
        Some(Reply::Array(f)) => f.iter().map(|x| text_of(Some(x))).collect(),
        _ => vec![],
    };
    let optional = flags.iter().any(|f| f == "optional");
    let multiple = flags.iter().any(|f| f == "multiple");
    let children = match doc_field(arg, "arguments") {
        Some(Reply::Array(a)) => a.as_slice(),
        _ => &[],
    };
    let repeat = match kind.as_str() {
        "oneof" => concat_args(children, "|"),
        "block" => concat_args(children, " "),
        "pure-token" => String::new(),
        _ => name,
    };
    let mut token_part = token;
    if !token_part.is_empty() && kind != "pure-token" {
        token_part.push(' ');
    }
    let mut s = String::new();
    if optional {
        s.push('[');
    }
    s.push_str(&token_part);
    s.push_str(&repeat);
    if multiple {
        s.push_str(&format!(" [{repeat} ...]"));
    }
    if optional {
        s.push(']');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(s: &mut Session, line: &str) -> String {
        String::from_utf8(s.run_line(line.as_bytes()).text).unwrap()
    }

    #[test]
    fn prompt_follows_select_and_multi() {
        let mut s = Session::new(EngineOptions::default());
        assert_eq!(s.prompt(), "127.0.0.1:6379> ");
        run(&mut s, "select 2");
        assert_eq!(s.prompt(), "127.0.0.1:6379[2]> ");
        run(&mut s, "select 99");
        assert_eq!(s.prompt(), "127.0.0.1:6379[2]> ");
        run(&mut s, "select 0");
        assert_eq!(s.prompt(), "127.0.0.1:6379> ");
    }

    #[test]
    fn repeat_prefix_and_invalid_lines() {
        let mut s = Session::new(EngineOptions::default());
        assert_eq!(run(&mut s, "3 incr n"), "(integer) 1\n(integer) 2\n(integer) 3\n");
        assert_eq!(run(&mut s, "0 ping"), "Invalid redis-cli repeat command option value.\n");
        assert_eq!(run(&mut s, "\"unbalanced"), "Invalid argument(s)\n");
        assert_eq!(run(&mut s, "   "), "");
        assert!(s.run_line(b"quit").quit);
    }

    #[test]
    fn help_renders_documented_arguments() {
        let text = String::from_utf8(help(&[b"set".to_vec()])).unwrap();
        assert!(text.contains("key value [NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"), "{text}");
    }

    #[test]
    fn a_console_killed_while_subscribed_or_blocked_says_so_and_reconnects() {
        let mut s = Session::new(EngineOptions::default());
        let other = s.open_console();
        let on =
            |s: &mut Session, c: usize, line: &str| String::from_utf8(s.run_line_on(c, line.as_bytes()).text).unwrap();
        on(&mut s, other, "SUBSCRIBE ch");
        assert!(s.is_subscribed(other));
        assert_eq!(on(&mut s, 0, "CLIENT KILL TYPE pubsub"), "(integer) 1\n");
        assert_eq!(String::from_utf8(s.poll(other)).unwrap(), "Error: Server closed the connection\n");
        assert!(!s.is_subscribed(other));
        assert_eq!(on(&mut s, other, "PING"), "PONG\n");
        // The same for a console waiting in BLPOP.
        on(&mut s, other, "BLPOP q 0");
        assert!(s.is_waiting(other));
        let id = s.client_of(other).unwrap();
        assert_eq!(on(&mut s, 0, &format!("CLIENT KILL ID {id}")), "(integer) 1\n");
        assert_eq!(String::from_utf8(s.poll(other)).unwrap(), "Error: Server closed the connection\n");
        assert!(!s.is_waiting(other));
        assert_ne!(s.client_of(other), Some(id));
        assert_eq!(String::from_utf8(s.poll(other)).unwrap(), "");
    }
}
