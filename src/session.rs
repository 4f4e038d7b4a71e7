//! A redis-cli session: models redis-cli.c `repl()` and `cliSendCommand()` for one line —
//! splitting (tokenize.rs), the repeat prefix (`3 INCR x`), the client-side commands (`help`,
//! `quit`/`exit`, `clear`, `:set`, `restart`, `connect`), prompt tracking for SELECT and
//! MULTI/EXEC/DISCARD/RESET, and how replies are printed: TTY formatting (`--no-raw`, the
//! default), raw (`--raw`, per console: `set_raw`), and the verbatim output redis-cli uses for
//! INFO and friends in both (`cliFormatReplyRaw`). The help entries, `help …` and the grey
//! argument hints (`:set hints` / `:set nohints`, per console) are in session/help.rs. The page's
//! two servers (its Redis and a second one to make a replica), each a Session, are in
//! session/servers.rs.
//!
//! The native CLI and the page's console both run lines through `Session::run_line`, so they
//! print exactly the same bytes. Like redis-cli 7.0, a console waits for each command's reply
//! (a blocking pop, a command held by CLIENT PAUSE — and forever after CLIENT REPLY OFF/SKIP,
//! whose reply never comes), and after SUBSCRIBE or MONITOR only prints what arrives until
//! Ctrl-C. Differences from redis-cli: there is no connection (`connect`
//! explains that), a repeat count above `MAX_REPEAT` is refused with a message instead of
//! running for hours, the `(N.NNs)` timing line is never printed (time is virtual), and after a
//! SHUTDOWN the "Could not connect" line each command gets is part of the output (redis-cli
//! writes it on stderr; the prompt is `not connected> ` either way). A
//! console's `--raw` and hints settings belong to the console, so they outlast a reconnection
//! (Ctrl-C, CLIENT KILL) and a reset, where a new redis-cli would start with its defaults.

mod help;
pub mod servers;

pub use help::hint;

use crate::engine::{ClientId, Engine, EngineOptions};
use crate::reply::{Reply, UnknownReplyType};
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
    /// The console entered subscribe mode or MONITOR: redis-cli now only prints what arrives
    /// (`poll`) until Ctrl-C (`Session::interrupt`).
    pub subscribed: bool,
    /// SHUTDOWN ended the server (`Engine::has_shut_down`): redis-cli printed nothing, and its
    /// later commands find no server to connect to.
    pub shutdown: bool,
}

/// How a console's redis-cli prints and hints: `redis-cli --raw` or not, `:set hints` or
/// `:set nohints`. Kept when the console reconnects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CliPrefs {
    pub raw: bool,
    pub hints: bool,
}

impl Default for CliPrefs {
    /// redis-cli's defaults at a terminal: TTY formatting, hints on.
    fn default() -> CliPrefs {
        CliPrefs { raw: false, hints: true }
    }
}

/// One redis-cli's state between lines: its connection (client) and its prompt.
#[derive(Debug, Clone)]
struct Console {
    prefs: CliPrefs,
    client: ClientId,
    dbnum: i64,
    in_multi: bool,
    pre_multi_dbnum: i64,
    /// In redis-cli's subscribe loop (`config.pubsub_mode`).
    pubsub_mode: bool,
    /// In redis-cli's MONITOR loop (`config.monitor_mode`): it prints what arrives until Ctrl-C.
    monitor_mode: bool,
    /// Waiting for a reply that will never come (CLIENT REPLY OFF/SKIP): redis-cli 7.0 reads
    /// one reply per command sent, so it hangs until Ctrl-C, printing push messages meanwhile.
    awaiting_reply: bool,
    /// Repeats of a line still to send once a blocked command is answered.
    pending: Vec<Vec<u8>>,
    pending_repeats: i64,
}

impl Console {
    fn new(client: ClientId, prefs: CliPrefs) -> Console {
        Console {
            prefs,
            client,
            dbnum: 0,
            in_multi: false,
            pre_multi_dbnum: 0,
            pubsub_mode: false,
            monitor_mode: false,
            awaiting_reply: false,
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
    /// redis-cli's `--show-pushes`: RESP3 push messages that arrive outside subscribe mode
    /// (client-side caching's invalidations) are printed — as redis-cli does when its output is
    /// a terminal (the page's consoles) — or silently skipped, as when it is piped (the native
    /// CLI on a file, the golden transcripts). Off by default.
    pub show_pushes: bool,
    /// The port in the prompt (`127.0.0.1:6379> `): the page's second server is on 6380.
    pub port: u16,
}

impl Session {
    pub fn new(opts: EngineOptions) -> Session {
        let mut engine = Engine::new(opts);
        let client = engine.connect();
        Session {
            engine,
            client,
            consoles: vec![Console::new(client, CliPrefs::default())],
            show_pushes: false,
            port: 6379,
        }
    }

    /// Back to a fresh engine (same seed and start time) and fresh prompts; the consoles stay.
    pub fn reset(&mut self) {
        self.engine.reset();
        for c in self.consoles.iter_mut() {
            *c = Console::new(c.client, c.prefs);
        }
    }

    /// An RDB file given to the page (`Engine::load_rdb_file`: the dataset becomes the file's,
    /// or nothing changes). Refused while the server is shut down (`connect` starts it again
    /// from its own file) and while a script runs (a restart would kill it); the error is the
    /// sentence to show.
    pub fn load_rdb_file(&mut self, image: &[u8]) -> Result<crate::command::rdb::LoadReport, String> {
        if self.engine.has_shut_down() {
            return Err("the server is shut down: type connect to start it, then load the file".into());
        }
        if self.engine.busy_script().is_some() {
            return Err("a script is running: let it end (or SCRIPT KILL it), then load the file".into());
        }
        self.engine.load_rdb_file(image).map_err(|e| e.to_string())
    }

    /// Opens another console (a new client of the same engine); returns its number.
    pub fn open_console(&mut self) -> usize {
        let id = self.engine.connect();
        self.consoles.push(Console::new(id, CliPrefs::default()));
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
        if self.engine.has_shut_down() {
            return "not connected> ".into();
        }
        let mut p = format!("127.0.0.1:{}", self.port);
        if c.dbnum != 0 {
            p.push_str(&format!("[{}]", c.dbnum));
        }
        if c.in_multi {
            p.push_str("(TX)");
        }
        p.push_str("> ");
        p
    }

    /// Waiting for a reply: a blocked command's (BLPOP, or any command while clients are
    /// paused), or one CLIENT REPLY OFF/SKIP keeps from ever coming.
    pub fn is_waiting(&self, console: usize) -> bool {
        self.consoles.get(console).is_some_and(|c| c.awaiting_reply || self.engine.is_blocked(c.client))
    }

    /// In one of redis-cli's reading loops — subscribe mode, or MONITOR: it prints what arrives
    /// and reads no input until Ctrl-C.
    pub fn is_subscribed(&self, console: usize) -> bool {
        self.consoles.get(console).is_some_and(|c| c.pubsub_mode || c.monitor_mode)
    }

    /// In redis-cli's MONITOR loop.
    pub fn is_monitoring(&self, console: usize) -> bool {
        self.consoles.get(console).is_some_and(|c| c.monitor_mode)
    }

    /// A console's `--raw` and hints settings (the defaults for a console that doesn't exist).
    pub fn prefs_of(&self, console: usize) -> CliPrefs {
        self.consoles.get(console).map_or_else(CliPrefs::default, |c| c.prefs)
    }

    /// Prints as `redis-cli --raw` (true) or `--no-raw` (false) from the next line on.
    pub fn set_raw(&mut self, console: usize, raw: bool) {
        if let Some(c) = self.consoles.get_mut(console) {
            c.prefs.raw = raw;
        }
    }

    /// The grey hint redis-cli would draw after `line` typed in console `console` (`None`
    /// under `:set nohints`, or when redis-cli draws none). See session/help.rs.
    pub fn hint_of(&self, console: usize, line: &[u8]) -> Option<String> {
        if !self.consoles.get(console)?.prefs.hints {
            return None;
        }
        hint(line)
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
            out.text.extend(set_preference(&argv, &mut self.consoles[console].prefs));
            return out;
        }
        if first == b"restart" {
            out.text.extend_from_slice(b"Use 'restart' only in Lua debugging mode.\n");
            return out;
        }
        // After SHUTDOWN, `connect` starts the playground's server again (the page has no
        // shell to run redis-server from): it loads its RDB file, as redis-server does at start.
        if first == b"connect" && self.engine.has_shut_down() {
            let note = match self.engine.restart() {
                Ok(Some(r)) => format!(
                    "(redisplay) the server started again and loaded its RDB file: {} keys ({} already expired, skipped).\n",
                    r.keys_loaded, r.keys_expired
                ),
                Ok(None) => "(redisplay) the server started again, empty: no RDB file was saved.\n".to_string(),
                Err(e) => format!("(redisplay) the server started again, empty: its RDB file did not load ({e}).\n"),
            };
            out.text.extend_from_slice(note.as_bytes());
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
            if out.quit {
                return;
            }
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
        let reading = c.pubsub_mode || c.monitor_mode || c.awaiting_reply || !c.pending.is_empty();
        if self.engine.client(c.client).is_none() && reading {
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
        self.consoles[console] = Console::new(id, self.consoles[console].prefs);
        if console == 0 {
            self.client = id;
        }
    }

    fn format_outbox(&mut self, console: usize) -> Vec<u8> {
        let client = self.consoles[console].client;
        let replies = self.engine.take_outbox(client);
        self.format_arrived(console, replies)
    }

    /// What redis-cli prints of replies that arrive for a console: in subscribe mode or MONITOR
    /// everything; otherwise replies, and RESP3 push messages only with `show_pushes`
    /// (redis-cli.c `cliPushHandler()`: an invalidation as `-> invalidate: 'k1', 'k2'`).
    fn format_arrived(&self, console: usize, replies: Vec<Reply>) -> Vec<u8> {
        let mut text = Vec::new();
        let c = &self.consoles[console];
        let reading = c.pubsub_mode || c.monitor_mode;
        let proto = self.proto_of(c.client);
        for r in replies {
            if let Reply::Push(items) = &r {
                if !reading && proto >= 3 {
                    if self.show_pushes {
                        text.extend(format_push(items));
                    }
                    continue;
                }
            }
            if c.prefs.raw {
                // (Push messages carry no big numbers, and a late reply that did would have
                // made redis-cli exit: print what it would have.)
                text.extend(raw_line(&r, proto).unwrap_or_else(|e| format!("{e}\n").into_bytes()));
            } else {
                text.extend(r.to_cli_proto(proto));
            }
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
            out.text.extend(help::help(&argv[1..]));
            return;
        }
        // After SHUTDOWN there is no server: redis-cli fails to connect (it says so on stderr).
        if self.engine.has_shut_down() {
            out.text.extend_from_slice(b"Could not connect to Redis at 127.0.0.1:6379: Connection refused\n");
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
        // The server went away: no reply comes, and redis-cli (expecting that after SHUTDOWN)
        // prints nothing.
        if self.engine.has_shut_down() {
            out.shutdown = true;
            return;
        }
        let before = self.engine.take_outbox_before_reply(client);
        out.text.extend(self.format_arrived(console, before));
        if self.engine.is_blocked(client) {
            return;
        }
        if self.engine.reply_dropped(client) {
            // redis-cli waits for the reply it expects; what else arrives prints meanwhile.
            out.text.extend(self.format_outbox(console));
            self.consoles[console].awaiting_reply = true;
            out.blocked = true;
            return;
        }
        let argc = argv.len();
        let arg1 = argv.get(1).map(|a| a.to_ascii_lowercase()).unwrap_or_default();
        let subscribe = command == b"subscribe" || command == b"psubscribe" || command == b"ssubscribe";
        let raw = self.consoles[console].prefs.raw;
        if subscribe && !raw {
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
        let proto = self.proto_of(client);
        let printed = if verbatim {
            reply.to_cli_raw(proto)
        } else if raw {
            raw_line(&reply, proto)
        } else {
            Ok(reply.to_cli_proto(proto))
        };
        match printed {
            Ok(text) => out.text.extend(text),
            Err(unknown) => {
                // redis-cli prints this on stderr and exits with status 1.
                out.text.extend(format!("{unknown}\n").into_bytes());
                out.quit = true;
            }
        }
        let is_err = reply.is_error();
        let c = &mut self.consoles[console];
        if subscribe && !is_err {
            c.pubsub_mode = true;
        }
        // redis-cli stays in its MONITOR loop unless the reply was an error.
        if command == b"monitor" && !is_err {
            c.monitor_mode = true;
        }
        // The rest of a multi-reply command (SUBSCRIBE a b) and anything else pending.
        out.text.extend(self.format_outbox(console));
        let c = &mut self.consoles[console];
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

/// redis-cli.c `cliPushHandler()` in a terminal: an invalidation (`invalidate` + an array of
/// keys) as `-> invalidate: 'k1', 'k2'`, any other push as a reply.
fn format_push(items: &[Reply]) -> Vec<u8> {
    if let [Reply::Bulk(kind), Reply::Array(keys)] = items {
        if kind.starts_with(b"invalidate") {
            let mut out = b"-> invalidate: ".to_vec();
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                out.push(b'\'');
                if let Reply::Bulk(k) = k {
                    // sdscatfmt's %s: the key as a C string.
                    out.extend_from_slice(crate::command::c_str(k));
                }
                out.push(b'\'');
            }
            out.push(b'\n');
            return out;
        }
    }
    Reply::Push(items.to_vec()).to_cli_proto(3)
}

/// What `redis-cli --raw` prints for one reply: `cliFormatReplyRaw()` and the newline
/// (`config.cmd_delim`) after it.
fn raw_line(reply: &Reply, proto: u8) -> Result<Vec<u8>, UnknownReplyType> {
    let mut text = reply.to_cli_raw(proto)?;
    text.push(b'\n');
    Ok(text)
}

/// redis-cli.c `cliSetPreferences()`: `:set hints` and `:set nohints` turn the hints on and
/// off, silently; anything else is refused as redis-cli refuses it.
fn set_preference(argv: &[Vec<u8>], prefs: &mut CliPrefs) -> Vec<u8> {
    let name = String::from_utf8_lossy(&argv[0]).into_owned();
    if name.eq_ignore_ascii_case(":set") && argv.len() >= 2 {
        let pref = argv[1].to_ascii_lowercase();
        if pref == b"hints" || pref == b"nohints" {
            prefs.hints = pref == b"hints";
            return vec![];
        }
        return format!("unknown redis-cli preference '{}'\n", String::from_utf8_lossy(&argv[1])).into_bytes();
    }
    format!("unknown redis-cli internal command '{name}'\n").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(s: &mut Session, line: &str) -> String {
        String::from_utf8(s.run_line(line.as_bytes()).text).unwrap()
    }

    /// redis-cli after SHUTDOWN (as against redis-server 7.0.15): nothing printed for it, then
    /// `not connected> ` and a failed connection per command; `help` still works.
    #[test]
    fn after_shutdown_there_is_no_server() {
        let mut s = Session::new(EngineOptions::default());
        let out = s.run_line(b"SHUTDOWN NOSAVE");
        assert!(out.shutdown && out.text.is_empty());
        assert_eq!(s.prompt(), "not connected> ");
        assert_eq!(run(&mut s, "GET k"), "Could not connect to Redis at 127.0.0.1:6379: Connection refused\n");
        assert!(run(&mut s, "help GET").contains("Get the value of a key"));
        s.engine.restart().unwrap();
        assert_eq!(s.prompt(), "127.0.0.1:6379> ");
        assert_eq!(run(&mut s, "PING"), "PONG\n");
    }

    /// The page's "Load an RDB file": refused while the server is down or a script runs (with
    /// the sentence to show), the dataset untouched; loaded once it can be.
    #[test]
    fn an_rdb_file_loads_only_on_a_running_idle_server() {
        let mut s = Session::new(EngineOptions::default());
        run(&mut s, "SET theirs 1");
        let image = s.engine.rdb_image();
        run(&mut s, "FLUSHALL");
        run(&mut s, "SET mine 1");
        run(&mut s, "EVAL \"local n = 0 for i = 1, 3e6 do n = n + 1 end return n\" 0");
        assert!(s.engine.busy_script().is_some());
        assert!(s.load_rdb_file(&image).unwrap_err().starts_with("a script is running"));
        while s.engine.busy_script().is_some() {
            s.engine.run_script_slice(1_000_000);
        }
        assert_eq!(s.poll(0), b"(integer) 3000000\n", "the script's reply, late");
        assert_eq!(run(&mut s, "MGET mine theirs"), "1) \"1\"\n2) (nil)\n");
        assert!(s.run_line(b"SHUTDOWN NOSAVE").shutdown);
        assert!(s.load_rdb_file(&image).unwrap_err().contains("type connect"));
        run(&mut s, "connect");
        assert_eq!(s.engine.dbsize(0), 0, "SHUTDOWN NOSAVE: mine was never saved");
        assert_eq!(s.load_rdb_file(&image).map(|r| r.keys_loaded), Ok(1));
        assert_eq!(run(&mut s, "GET theirs"), "\"1\"\n");
    }

    /// In the page, `connect` after SHUTDOWN starts the server again from its RDB file.
    #[test]
    fn connect_after_shutdown_starts_the_server_again() {
        let mut s = Session::new(EngineOptions::default());
        run(&mut s, "SET k v");
        assert!(s.run_line(b"SHUTDOWN SAVE").shutdown);
        assert!(run(&mut s, "connect").contains("loaded its RDB file: 1 keys"));
        assert_eq!(run(&mut s, "GET k"), "\"v\"\n");
        assert!(s.run_line(b"SHUTDOWN NOSAVE").shutdown);
        run(&mut s, "SET lost v");
        assert!(run(&mut s, "connect 127.0.0.1 6379").contains("loaded its RDB file: 1 keys"));
        assert_eq!(run(&mut s, "GET lost"), "(nil)\n");
        // Time goes on across a restart: a key saved alive but expired by then is skipped.
        run(&mut s, "SET gone v PX 5000");
        run(&mut s, "SAVE");
        run(&mut s, "CLOCK ADVANCE 10000");
        let clock = run(&mut s, "CLOCK GET");
        assert!(s.run_line(b"SHUTDOWN NOSAVE").shutdown);
        assert!(run(&mut s, "connect").contains("loaded its RDB file: 1 keys (1 already expired, skipped)"));
        assert_eq!(run(&mut s, "CLOCK GET"), clock);
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

    #[test]
    fn set_hints_and_nohints_turn_the_hints_on_and_off_per_console() {
        let mut s = Session::new(EngineOptions::default());
        let other = s.open_console();
        assert_eq!(s.hint_of(0, b"GET").as_deref(), Some(" key"));
        assert_eq!(run(&mut s, ":set nohints"), "");
        assert_eq!(s.hint_of(0, b"GET"), None);
        assert_eq!(s.hint_of(other, b"GET").as_deref(), Some(" key"));
        assert_eq!(run(&mut s, ":SET hints"), "");
        assert_eq!(s.hint_of(0, b"GET").as_deref(), Some(" key"));
        assert_eq!(run(&mut s, ":set colors"), "unknown redis-cli preference 'colors'\n");
        assert_eq!(run(&mut s, ":get hints"), "unknown redis-cli internal command ':get'\n");
        assert_eq!(s.hint_of(9, b"GET"), None);
    }

    #[test]
    fn raw_mode_prints_as_redis_cli_raw_and_outlasts_a_reconnection() {
        let mut s = Session::new(EngineOptions::default());
        s.set_raw(0, true);
        assert_eq!(run(&mut s, "SET k \"\\xe5\\x8c\\x97\\xe4\\xba\\xac\""), "OK\n");
        assert_eq!(run(&mut s, "GET k"), "北京\n");
        assert_eq!(run(&mut s, "GET nosuch"), "\n");
        assert_eq!(run(&mut s, "INCR k"), "ERR value is not an integer or out of range\n\n");
        assert_eq!(run(&mut s, "2 RPUSH l a"), "1\n2\n");
        // INFO and the other verbatim commands print the same in both modes.
        let info = run(&mut s, "INFO keyspace");
        assert!(info.starts_with("# Keyspace\r\n") && !info.ends_with("\n\n"), "{info:?}");
        s.interrupt(0);
        assert!(s.prefs_of(0).raw);
        assert_eq!(run(&mut s, "LRANGE l 0 -1"), "a\na\n");
        s.reset();
        assert!(s.prefs_of(0).raw);
        s.set_raw(0, false);
        assert_eq!(run(&mut s, "GET nosuch"), "(nil)\n");
    }

    #[test]
    fn raw_subscribe_prints_messages_without_the_reading_line() {
        let mut s = Session::new(EngineOptions::default());
        let other = s.open_console();
        s.set_raw(other, true);
        let on =
            |s: &mut Session, c: usize, line: &str| String::from_utf8(s.run_line_on(c, line.as_bytes()).text).unwrap();
        assert_eq!(on(&mut s, other, "SUBSCRIBE ch other"), "subscribe\nch\n1\nsubscribe\nother\n2\n");
        on(&mut s, 0, "PUBLISH ch hello");
        assert_eq!(String::from_utf8(s.poll(other)).unwrap(), "message\nch\nhello\n");
    }

    #[test]
    fn a_big_number_under_raw_resp3_is_what_makes_redis_cli_exit() {
        let mut s = Session::new(EngineOptions::default());
        s.set_raw(0, true);
        run(&mut s, "HELLO 3");
        let out = s.run_line(b"EVAL \"return {big_number='123'}\" 0");
        assert_eq!(String::from_utf8(out.text).unwrap(), "Unknown reply type: 13\n");
        assert!(out.quit);
        // Without --raw, redis-cli prints it.
        s.set_raw(0, false);
        assert_eq!(run(&mut s, "EVAL \"return {big_number='123'}\" 0"), "(big number) 123\n");
    }

    fn on(s: &mut Session, c: usize, line: &str) -> String {
        String::from_utf8(s.run_line_on(c, line.as_bytes()).text).unwrap()
    }

    #[test]
    fn a_monitor_console_prints_ok_then_every_command_until_ctrl_c() {
        let mut s = Session::new(EngineOptions::default());
        let m = s.open_console();
        let out = s.run_line_on(m, b"MONITOR");
        assert_eq!(String::from_utf8(out.text).unwrap(), "OK\n");
        assert!(out.subscribed && s.is_monitoring(m) && s.is_subscribed(m));
        // Lines typed into a reading redis-cli go nowhere.
        assert_eq!(on(&mut s, m, "PING"), "");
        on(&mut s, 0, "SET k \"a b\\x00\"");
        on(&mut s, 0, "AUTH secret");
        on(&mut s, 0, "CONFIG GET hz");
        on(&mut s, 0, "EVAL \"return redis.call('get', KEYS[1])\" 1 k");
        let id = s.client_of(0).unwrap();
        let expected = format!(
            "1735689600.000000 [0 127.0.0.1:{0}] \"SET\" \"k\" \"a b\\x00\"\n\
             1735689600.000000 [0 127.0.0.1:{0}] \"AUTH\" \"(redacted)\"\n\
             1735689600.000000 [0 127.0.0.1:{0}] \"EVAL\" \"return redis.call('get', KEYS[1])\" \"1\" \"k\"\n\
             1735689600.000000 [0 lua] \"get\" \"k\"\n",
            40000 + id
        );
        assert_eq!(String::from_utf8(s.poll(m)).unwrap(), expected);
        s.interrupt(m);
        assert!(!s.is_monitoring(m));
        on(&mut s, 0, "PING");
        assert_eq!(String::from_utf8(s.poll(m)).unwrap(), "");
    }

    #[test]
    fn client_reply_off_or_skip_leaves_redis_cli_waiting_until_ctrl_c() {
        for mode in ["OFF", "SKIP"] {
            let mut s = Session::new(EngineOptions::default());
            let out = s.run_line(format!("CLIENT REPLY {mode}").as_bytes());
            assert!(out.text.is_empty() && out.blocked, "{mode}");
            assert!(s.is_waiting(0));
            assert_eq!(on(&mut s, 0, "SET k v"), "", "nothing is sent while redis-cli waits");
            assert_eq!(String::from_utf8(s.poll(0)).unwrap(), "");
            s.interrupt(0);
            assert!(!s.is_waiting(0));
            assert_eq!(on(&mut s, 0, "GET k"), "(nil)\n");
        }
        let mut s = Session::new(EngineOptions::default());
        assert_eq!(on(&mut s, 0, "CLIENT REPLY ON"), "OK\n");
    }

    #[test]
    fn a_paused_write_waits_for_unpause_or_the_end_of_the_pause() {
        let mut s = Session::new(EngineOptions::default());
        let other = s.open_console();
        assert_eq!(on(&mut s, 0, "CLIENT PAUSE 100000 WRITE"), "OK\n");
        assert_eq!(on(&mut s, other, "GET k"), "(nil)\n");
        let out = s.run_line_on(other, b"SET k v");
        assert!(out.blocked && out.text.is_empty());
        assert_eq!(
            on(&mut s, 0, "INFO clients").lines().find(|l| l.starts_with("blocked_clients")),
            Some("blocked_clients:1")
        );
        assert_eq!(on(&mut s, 0, "CLIENT UNPAUSE"), "OK\n");
        assert_eq!(String::from_utf8(s.poll(other)).unwrap(), "OK\n");
        assert_eq!(on(&mut s, 0, "GET k"), "\"v\"\n");
        // The end of the pause in virtual time: the first serverCron tick after it.
        on(&mut s, 0, "CLIENT PAUSE 1000 ALL");
        assert!(s.run_line_on(other, b"2 INCR n").blocked);
        let now = s.engine.now_ms();
        s.engine.advance_to(now + 900, u64::MAX);
        assert_eq!(String::from_utf8(s.poll(other)).unwrap(), "");
        s.engine.advance_to(now + 1100, u64::MAX);
        assert_eq!(String::from_utf8(s.poll(other)).unwrap(), "(integer) 1\n(integer) 2\n");
        // A pause of centuries ends with UNPAUSE; the clock can jump far in one step meanwhile.
        on(&mut s, 0, "CLIENT PAUSE 9000000000000000 WRITE");
        assert!(s.run_line_on(other, b"SET a b").blocked);
        let now = s.engine.now_ms();
        s.engine.advance_to(now + 86_400_000 * 365, u64::MAX);
        assert!(s.is_waiting(other));
        on(&mut s, 0, "CLIENT UNPAUSE");
        assert_eq!(String::from_utf8(s.poll(other)).unwrap(), "OK\n");
    }

    #[test]
    fn invalidations_show_as_redis_cli_shows_them_in_a_terminal() {
        for show in [false, true] {
            let mut s = Session::new(EngineOptions::default());
            s.show_pushes = show;
            let other = s.open_console();
            on(&mut s, 0, "HELLO 3");
            assert_eq!(on(&mut s, 0, "CLIENT TRACKING on"), "OK\n");
            on(&mut s, 0, "MGET a b");
            on(&mut s, other, "MSET a 1 b 2");
            let expected = if show { "-> invalidate: 'a'\n-> invalidate: 'b'\nPONG\n" } else { "PONG\n" };
            assert_eq!(on(&mut s, 0, "PING"), expected);
            on(&mut s, other, "FLUSHALL");
            let expected = if show { "1) \"invalidate\"\n2) (nil)\nPONG\n" } else { "PONG\n" };
            assert_eq!(on(&mut s, 0, "PING"), expected);
        }
    }
}
