//! Several clients side by side with a real redis-server 7.0: Pub/Sub delivery and formats,
//! keyspace notifications, MULTI/EXEC errors, WATCH races, blocking pops served in order.
//!
//! Each scenario is a script of steps for named clients (A, B, C…), each one a connection to
//! the live server and a client of one engine, with the same client id on both sides:
//! - `A: cmd …`  send the command and take its reply(ies) — and anything else that arrived;
//! - `A& cmd …`  send it and don't wait (a blocking command, one whose reply is dropped);
//! - `A?`        take what arrived for A since (messages, a blocked command's late reply);
//! - `@sleep N`  let N ms pass: the server sleeps for real, the engine's clock moves N ms;
//! - `$B` in a command is client B's id; `cmd |> flags redir` keeps only those fields of a
//!   CLIENT LIST/INFO reply; MONITOR's timestamps are masked (wall clock vs virtual clock).
//!
//! Every reply is printed as `redis-cli --no-raw` prints it (the engine's formatter applied to
//! the server's RESP), and the two transcripts must be byte-identical.
//!
//! Then the same script runs through `redisplay serve` (issue 10) next to a fresh
//! redis-server, over RESP2 and over RESP3 (every connection says `HELLO 3` first): the raw
//! bytes each step receives — push messages, maps, late blocked replies — must be identical.

// Sockets and `redisplay::net::server` exist only natively (`cargo test --target wasm32` builds every test target).
#![cfg(not(target_arch = "wasm32"))]

mod common;
#[path = "support/live_server.rs"]
mod live_server;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::native::wall_ms;
use live_server::{check_tools, Server};
use redisplay::reply::parse_resp;
use redisplay::tokenize::split_args;
use redisplay::{ClientId, Engine, EngineOptions, Reply};

/// A raw RESP connection that can read "whatever has arrived".
struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    fn open(port: u16) -> Conn {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream.set_nodelay(true).ok();
        Conn { stream, buf: Vec::new() }
    }

    fn send(&mut self, argv: &[Vec<u8>]) {
        let mut out = format!("*{}\r\n", argv.len()).into_bytes();
        for a in argv {
            out.extend(format!("${}\r\n", a.len()).bytes());
            out.extend(a);
            out.extend(b"\r\n");
        }
        self.stream.write_all(&out).expect("write");
    }

    /// Reads replies until none arrives for `quiet` (after at least `at_least` replies).
    fn take(&mut self, at_least: usize, quiet: Duration) -> Vec<Reply> {
        let mut out = Vec::new();
        loop {
            while let Some((r, used)) = parse_resp(&self.buf) {
                self.buf.drain(..used);
                out.push(r);
            }
            let wait = if out.len() < at_least { Duration::from_secs(5) } else { quiet };
            self.stream.set_read_timeout(Some(wait)).ok();
            let mut chunk = [0u8; 65536];
            match self.stream.read(&mut chunk) {
                Ok(0) => return out,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(_) if out.len() >= at_least => return out,
                Err(e) => panic!("no reply from redis-server: {e}"),
            }
        }
    }

    /// `CLIENT ID` (after `HELLO 3` when `proto` is 3): the connection's id — None when the
    /// server wants AUTH first (a scenario that set requirepass), where ids are counted instead.
    fn handshake(&mut self, proto: u8) -> Option<ClientId> {
        if proto == 3 {
            // The HELLO reply holds the connection id, which may differ: not compared.
            self.send(&[b"HELLO".to_vec(), b"3".to_vec()]);
            self.take(1, Duration::from_millis(1));
        }
        self.send(&[b"CLIENT".to_vec(), b"ID".to_vec()]);
        match self.take(1, Duration::from_millis(1)).first() {
            Some(Reply::Integer(id)) => Some(*id as ClientId),
            Some(Reply::Error(e)) if e.starts_with(b"NOAUTH") => None,
            other => panic!("CLIENT ID answered {other:?}"),
        }
    }

    fn local(&self) -> String {
        self.stream.local_addr().map(|a| a.to_string()).unwrap_or_default()
    }
}

fn text(replies: &[Reply]) -> String {
    replies.iter().map(|r| String::from_utf8_lossy(&r.to_cli()).into_owned()).collect()
}

/// Runs a script on both sides and asserts identical transcripts; then through our server.
fn check(name: &str, script: &str) {
    check_engine(name, script);
    check_wire(name, script, 2);
    check_wire(name, script, 3);
}

/// One step of a scenario.
enum Step {
    Sleep(u64),
    /// `X?`: what arrived for X.
    Take(char),
    /// `X: cmd` (wait for a reply) or `X& cmd` (don't); `cmd |> f g` keeps only the fields `f`,
    /// `g` of `field=value` replies (CLIENT LIST/INFO).
    Send {
        who: char,
        wait: bool,
        cmd: String,
        fields: Option<Vec<String>>,
    },
}

fn parse_step(line: &str) -> Step {
    if let Some(ms) = line.strip_prefix("@sleep ") {
        return Step::Sleep(ms.trim().parse().unwrap());
    }
    let who = line.chars().next().unwrap();
    let rest = &line[who.len_utf8()..];
    if rest.trim() == "?" {
        return Step::Take(who);
    }
    let (wait, cmd) = match rest.chars().next() {
        Some(':') => (true, &rest[1..]),
        Some('&') => (false, &rest[1..]),
        _ => panic!("bad step {line:?}"),
    };
    let (cmd, fields) = match cmd.split_once(" |> ") {
        Some((c, f)) => (c, Some(f.split_whitespace().map(String::from).collect())),
        None => (cmd, None),
    };
    Step::Send { who, wait, cmd: cmd.trim().to_string(), fields }
}

/// The step's arguments, `$X` replaced by client X's id (the same on both sides).
fn step_argv(cmd: &str, ids: &[(char, ClientId)]) -> Vec<Vec<u8>> {
    let mut cmd = cmd.to_string();
    for (who, id) in ids {
        cmd = cmd.replace(&format!("${who}"), &id.to_string());
    }
    split_args(cmd.as_bytes()).expect("step arguments")
}

/// The `field=value` (CLIENT LIST/INFO) and `field:value` (INFO) tokens of `fields` in `text`
/// (a reply as printed, quoted or not), one line per client.
fn keep_fields(text: &str, fields: &[String]) -> String {
    let mut out = String::new();
    let text = text.replace("\\r\\n", " ").replace("\\n", " ");
    for token in text.split(|c: char| c.is_whitespace() || c == '"') {
        let Some((key, _)) = token.split_once(['=', ':']) else { continue };
        if key == "id" && !out.is_empty() {
            out.push('\n');
        }
        if fields.iter().any(|f| f == key) {
            out.push_str(token);
            out.push(' ');
        }
    }
    out.push('\n');
    out
}

/// MONITOR's timestamps (`1735689600.123456 [`, wall clock on one side, virtual on the other)
/// read `<time> [`.
fn mask_times(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits >= 9
            && (i == 0 || !b[i - 1].is_ascii_digit())
            && b.get(i + digits) == Some(&b'.')
            && b[i + digits + 1..].iter().take_while(|c| c.is_ascii_digit()).count() == 6
            && b[i + digits + 7..].starts_with(b" [")
        {
            out.push_str("<time>");
            i += digits + 7;
            continue;
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

/// The raw replies that arrive within `quiet` (after at least `at_least` frames).
fn take_raw(conn: &mut Conn, at_least: usize, quiet: Duration) -> Vec<u8> {
    let mut out = Vec::new();
    let mut frames = 0;
    loop {
        while let Some((_, used)) = parse_resp(&conn.buf) {
            out.extend(conn.buf.drain(..used));
            frames += 1;
        }
        // Generous: a debug-build `redisplay serve` on a loaded 2-core machine can take seconds.
        let wait = if frames < at_least { Duration::from_secs(30) } else { quiet };
        conn.stream.set_read_timeout(Some(wait)).ok();
        let mut chunk = [0u8; 65536];
        match conn.stream.read(&mut chunk) {
            Ok(0) => {
                out.extend_from_slice(b"<closed>");
                return out;
            }
            Ok(n) => conn.buf.extend_from_slice(&chunk[..n]),
            Err(_) if frames >= at_least => return out,
            Err(e) => panic!("no reply: {e}"),
        }
    }
}

/// Raw frames as text: the bytes, or — for a step that keeps some fields — those fields of the
/// frames as redis-cli prints them.
fn raw_text(raw: &[u8], proto: u8, fields: Option<&Vec<String>>, addrs: &[(String, char)]) -> String {
    let mut text = match fields {
        None => String::from_utf8_lossy(raw).into_owned(),
        Some(f) => {
            let mut rest = raw;
            let mut printed = String::new();
            while let Some((r, used)) = parse_resp(rest) {
                printed.push_str(&String::from_utf8_lossy(&r.to_cli_proto(proto)));
                rest = &rest[used..];
            }
            keep_fields(&printed, f)
        }
    };
    for (addr, who) in addrs {
        text = text.replace(addr.as_str(), &format!("<{who}>"));
    }
    mask_times(&text)
}

/// The script against a fresh redis-server and a fresh `redisplay serve`, on raw sockets
/// speaking RESP`proto`: every step's bytes must be identical. Each client has the same id on
/// both servers (connections are opened until they agree), so `$X` and the ids replies carry
/// match; peer addresses in MONITOR lines read `<X>`.
fn check_wire(name: &str, script: &str, proto: u8) {
    use redisplay::net::server::{ServeOptions, Server as Ours};
    let redis = Server::start();
    let ours = Ours::start(ServeOptions { port: 0, seed: 11, ..Default::default() }).expect("redisplay serve");
    let ports = [redis.port(), ours.addr.port()];
    let mut conns: Vec<(char, [Conn; 2])> = Vec::new();
    let mut ids: Vec<(char, ClientId)> = Vec::new();
    let mut addrs: [Vec<(String, char)>; 2] = [Vec::new(), Vec::new()];
    let mut transcripts = [String::new(), String::new()];
    let quiet = Duration::from_millis(40);
    for raw in script.lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let step = parse_step(line);
        if let Step::Sleep(ms) = step {
            std::thread::sleep(Duration::from_millis(ms));
            continue;
        }
        let who = match &step {
            Step::Take(w) | Step::Send { who: w, .. } => *w,
            Step::Sleep(_) => unreachable!(),
        };
        let idx = match conns.iter().position(|(c, _)| *c == who) {
            Some(i) => i,
            None => {
                let mut pair = ports.map(Conn::open);
                // Behind requirepass the ids can't be asked: each server's next is one more.
                let next = ids.iter().map(|(_, id)| *id).max().unwrap_or(0) + 1;
                let mut pair_ids = [pair[0].handshake(proto).unwrap_or(next), pair[1].handshake(proto).unwrap_or(next)];
                while pair_ids[0] != pair_ids[1] {
                    let lower = if pair_ids[0] < pair_ids[1] { 0 } else { 1 };
                    pair[lower] = Conn::open(ports[lower]);
                    pair_ids[lower] = pair[lower].handshake(proto).unwrap_or(next);
                }
                ids.push((who, pair_ids[0]));
                for (side, conn) in pair.iter().enumerate() {
                    addrs[side].push((conn.local(), who));
                }
                conns.push((who, pair));
                conns.len() - 1
            }
        };
        for t in transcripts.iter_mut() {
            t.push_str(&format!("{line}\n"));
        }
        let pair = &mut conns[idx].1;
        match step {
            Step::Take(_) => {
                for (i, conn) in pair.iter_mut().enumerate() {
                    transcripts[i].push_str(&raw_text(&take_raw(conn, 0, quiet), proto, None, &addrs[i]));
                }
            }
            Step::Send { wait, cmd, fields, .. } => {
                let argv = step_argv(&cmd, &ids);
                for (i, conn) in pair.iter_mut().enumerate() {
                    conn.send(&argv);
                    let got = take_raw(conn, wait as usize, quiet);
                    transcripts[i].push_str(&raw_text(&got, proto, fields.as_ref(), &addrs[i]));
                }
            }
            Step::Sleep(_) => {}
        }
    }
    let [live, ours] = &transcripts;
    assert_same(&format!("{name} over RESP{proto}"), "redisplay serve", live, ours);
}

/// What can't match between two servers in an ACL LOG entry: its `age-seconds` (wall time on
/// one side, milliseconds apart) and the socket fields of its `client-info`, which keeps only
/// `user=` and `cmd=`. Works on redis-cli text and on raw RESP2/RESP3 (a bulk's `$len` line
/// goes with its value).
fn mask_acl_log(text: &str) -> String {
    let mut out = Vec::new();
    let mut mask_next: Option<&str> = None;
    for line in text.split('\n') {
        let trimmed = line.trim_end_matches('\r');
        if let Some(field) = mask_next {
            if trimmed.starts_with('$') {
                out.push("<len>".to_string());
                continue;
            }
            mask_next = None;
            out.push(if field == "client-info" {
                let keep: Vec<&str> =
                    trimmed.split(' ').filter(|w| w.starts_with("user=") || w.starts_with("cmd=")).collect();
                format!("<client-info {}>", keep.join(" ").trim_end_matches('"'))
            } else {
                "<age>".to_string()
            });
            continue;
        }
        for field in ["age-seconds", "client-info"] {
            if trimmed.ends_with(field) || trimmed.ends_with(&format!("{field}\"")) {
                mask_next = Some(field);
            }
        }
        out.push(line.to_string());
    }
    out.join("\n")
}

/// Panics with the first differing lines and both transcripts when they differ.
fn assert_same(what: &str, ours_name: &str, live: &str, ours: &str) {
    // CLIENTS_LIVE_SHOW=1 prints what redis-server answered.
    if std::env::var_os("CLIENTS_LIVE_SHOW").is_some() {
        eprintln!("--- {what}: redis ---\n{live}");
    }
    let (live, ours) = (&mask_acl_log(live), &mask_acl_log(ours));
    if live != ours {
        let diff: Vec<String> = live
            .lines()
            .zip(ours.lines())
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .take(8)
            .map(|(i, (a, b))| format!("line {}: redis {a:?} | {ours_name} {b:?}", i + 1))
            .collect();
        panic!(
            "{what}: redis-server and {ours_name} differ\n{}\n--- redis ---\n{live}\n--- {ours_name} ---\n{ours}",
            diff.join("\n")
        );
    }
}

/// Runs a script on the live server and the in-process engine; asserts identical transcripts.
/// Each engine client gets the id and the address its live connection has.
fn check_engine(name: &str, script: &str) {
    check_tools();
    let server = Server::start();
    let mut engine = Engine::new(EngineOptions { seed: 11, start_ms: wall_ms() });
    let mut conns: Vec<(char, Conn, ClientId)> = Vec::new();
    let mut ids: Vec<(char, ClientId)> = Vec::new();
    let (mut live, mut ours) = (String::new(), String::new());
    let quiet = Duration::from_millis(40);
    for raw in script.lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let step = parse_step(line);
        if let Step::Sleep(ms) = step {
            std::thread::sleep(Duration::from_millis(ms));
            continue;
        }
        // The engine's clock follows the real one, as the server's does.
        let now = wall_ms();
        if now > engine.now_ms() {
            engine.advance_to(now, u64::MAX);
            engine.before_sleep();
        }
        let who = match &step {
            Step::Take(w) | Step::Send { who: w, .. } => *w,
            Step::Sleep(_) => unreachable!(),
        };
        let idx = match conns.iter().position(|(c, _, _)| *c == who) {
            Some(i) => i,
            None => {
                let mut conn = Conn::open(server.port());
                // Behind requirepass the id can't be asked: the server's next is one more.
                let want = conn.handshake(2).unwrap_or_else(|| ids.iter().map(|(_, id)| *id).max().unwrap_or(0) + 1);
                let id = loop {
                    let id = engine.connect();
                    assert!(id <= want, "the engine's client ids ran ahead of redis-server's");
                    if id == want {
                        break id;
                    }
                    engine.disconnect(id);
                };
                engine.set_client_addr(id, conn.local(), format!("127.0.0.1:{}", server.port()));
                // The live connection ran CLIENT ID (a MONITOR sees it): so does the engine's.
                engine.execute(id, &[b"CLIENT".to_vec(), b"ID".to_vec()]);
                ids.push((who, id));
                conns.push((who, conn, id));
                conns.len() - 1
            }
        };
        // A script that outlived its first slice, while the server sat in it: until it times
        // out or ends nothing else ran; after that, a slice between steps.
        while engine.busy_script().is_some_and(|b| !b.timed_out) {
            engine.run_script_slice(5_000_000);
        }
        if engine.busy_script().is_some() {
            engine.run_script_slice(5_000_000);
        }
        let header = format!("{line}\n");
        live.push_str(&header);
        ours.push_str(&header);
        let (_, conn, id) = &mut conns[idx];
        let id = *id;
        let (wait, cmd, fields) = match step {
            Step::Take(_) => {
                live.push_str(&mask_times(&text(&conn.take(0, quiet))));
                let pending = engine.take_outbox(id);
                ours.push_str(&mask_times(&text(&pending)));
                continue;
            }
            Step::Send { wait, cmd, fields, .. } => (wait, cmd, fields),
            Step::Sleep(_) => unreachable!(),
        };
        let argv = step_argv(&cmd, &ids);
        conn.send(&argv);
        // The server's answer first: the engine's run (a script's first slice) takes real time.
        let got = text(&conn.take(usize::from(wait), quiet));
        let reply = engine.execute(id, &argv);
        engine.before_sleep();
        let mut mine = engine.take_outbox_before_reply(id);
        if !engine.is_blocked(id) && !engine.reply_dropped(id) {
            mine.push(reply);
        }
        mine.extend(engine.take_outbox(id));
        let mine = text(&mine);
        match &fields {
            Some(f) => {
                live.push_str(&keep_fields(&got, f));
                ours.push_str(&keep_fields(&mine, f));
            }
            None => {
                live.push_str(&mask_times(&got));
                ours.push_str(&mask_times(&mine));
            }
        }
    }
    assert_same(name, "engine", &live, &ours);
}

#[test]
fn pubsub_delivery_and_formats() {
    check(
        "pubsub",
        r#"
        A: SUBSCRIBE news sport
        A: SUBSCRIBE news
        B: PUBLISH news "hello world"
        B: PUBLISH nobody x
        A?
        B: PUBSUB NUMSUB news sport nothing
        B: PUBSUB NUMPAT
        C: PSUBSCRIBE "spo*" "w?ather"
        B: PUBLISH sport goal
        B: PUBLISH weather rain
        B: PUBSUB NUMPAT
        A?
        C?
        A: PING
        A: PING hi
        A: GET k
        A: UNSUBSCRIBE sport nothing
        A: UNSUBSCRIBE
        A: UNSUBSCRIBE
        A: PING
        B: PUBLISH news lost
        A?
        C: PUNSUBSCRIBE
        C: PUNSUBSCRIBE
        C: PUBLISH sport "\x00binary\xff"
        D: SUBSCRIBE sport
        C: PUBLISH sport "\x00binary\xff"
        D?
        B: PUBSUB CHANNELS
        B: PUBSUB CHANNELS "sp*"
        B: PUBSUB NUMSUB
        B: PUBSUB FOO
        A: SUBSCRIBE
        D: RESET
        B: PUBSUB NUMSUB sport
        "#,
    );
}

#[test]
fn keyspace_notifications_for_a_scripted_set_of_commands() {
    check(
        "notifications",
        r#"
        B: CONFIG SET notify-keyspace-events KEA
        B: CONFIG GET notify-keyspace-events
        A: PSUBSCRIBE __key*@0__:*
        B: SET k v
        B: SET k v EX 100
        B: PERSIST k
        B: EXPIRE k 100
        B: EXPIRE k 0
        B: INCR n
        B: INCRBYFLOAT n 1.5
        B: DECRBY n 3
        B: APPEND s x
        B: SETRANGE s 3 y
        B: GETDEL s
        B: MSET a 1 b 2
        B: RENAME a a2
        B: COPY b b2
        B: MOVE b2 1
        B: LPUSH l a b c
        B: RPOP l
        B: LPOP l 2
        B: RPUSH l x y z
        B: LSET l 0 q
        B: LINSERT l BEFORE q p
        B: LREM l 1 p
        B: LTRIM l 0 0
        B: LMOVE l l2 LEFT RIGHT
        B: HSET h f v g w
        B: HINCRBY h n 1
        B: HINCRBYFLOAT h n 1.5
        B: HDEL h f g n
        B: SADD st a b c
        B: SREM st a
        B: SMOVE st st2 c
        B: SPOP st
        B: SINTERSTORE st3 st2 st2
        B: ZADD z 1 a 2 b
        B: ZINCRBY z 5 a
        B: ZREM z b
        B: ZPOPMIN z
        B: ZADD z 1 a 2 b 3 c
        B: ZREMRANGEBYSCORE z 1 1
        B: ZREMRANGEBYRANK z 0 0
        B: ZUNIONSTORE z2 1 z
        B: GETEX a2 PX 100000
        B: GETEX a2 PERSIST
        B: DEL nothing b
        A?
        B: SET gone v PX 5
        @sleep 30
        B: GET gone
        A?
        B: CONFIG SET notify-keyspace-events Em
        B: CONFIG GET notify-keyspace-events
        B: GET missing
        B: CONFIG SET notify-keyspace-events KEn
        B: CONFIG GET notify-keyspace-events
        B: SET fresh 1
        B: LPUSH fresh2 a
        A?
        B: CONFIG SET notify-keyspace-events Kl
        B: RPUSH fresh2 b
        B: SET ignored 1
        A?
        B: CONFIG SET notify-keyspace-events xyz
        B: CONFIG SET notify-keyspace-events ""
        "#,
    );
}

#[test]
fn dump_and_restore_notify_watch_and_wake() {
    // DUMP fires nothing; RESTORE fires `new` then `restore` (REPLACE: `restore` only; a TTL in
    // the past with REPLACE: `del`; with nothing to replace: nothing), touches WATCHers, and
    // serves a client blocked on the key it creates.
    check(
        "dump-restore",
        r#"
        B: CONFIG SET notify-keyspace-events KEA
        A: PSUBSCRIBE __key*@0__:*
        B: SET k v
        B: DUMP k
        B: RESTORE r 0 "\x00\x05hello\x0a\x00cr\xdfve4 \x0a"
        B: RESTORE r 0 "\x00\x05hello\x0a\x00cr\xdfve4 \x0a" REPLACE
        B: RESTORE r 0 "\x00\x05hello\x0a\x00cr\xdfve4 \x0a"
        B: RESTORE r 1 "\x00\x05hello\x0a\x00cr\xdfve4 \x0a" ABSTTL REPLACE
        B: RESTORE gone 1 "\x00\x05hello\x0a\x00cr\xdfve4 \x0a" ABSTTL
        B: RESTORE t 100000 "\x00\x05hello\x0a\x00cr\xdfve4 \x0a"
        B: RESTORE bad 0 "\x00\x05hellx\x0a\x00cr\xdfve4 \x0a"
        A?
        C: WATCH k
        B: RESTORE k 0 "\x00\xc190\x0a\x00\x9d\x94\xea'\x93\xfc\x08\xb9" REPLACE
        C: MULTI
        C: GET k
        C: EXEC
        D& BLPOP q 0
        B: RESTORE q 0 "\x12\x01\x02\x0f\x0f\x00\x00\x00\x03\x00\x81a\x02\x81b\x02\x07\x01\xff\x0a\x00\xa4\xd5}\x13~\x93C\x9c"
        D?
        B: LRANGE q 0 -1
        A?
        B: CONFIG SET notify-keyspace-events ""
        "#,
    );
}

#[test]
fn multi_exec_errors_and_no_rollback() {
    check(
        "multi",
        r#"
        A: MULTI
        A: SET a 1
        A: SET s hello
        A: INCR s
        A: INCR a
        A: EXEC
        A: GET a
        A: MULTI
        A: SET b 1
        A: NOSUCHCOMMAND x
        A: GET
        A: EXEC
        A: EXISTS b
        A: EXEC
        A: DISCARD
        A: MULTI
        A: MULTI
        A: WATCH a
        A: PING
        A: DISCARD
        A: MULTI
        A: SELECT 3
        A: SET in3 x
        A: EXEC
        A: DBSIZE
        A: SELECT 0
        A: MULTI
        A: EXEC
        A: MULTI
        A: BLPOP nolist 0
        A: BZPOPMIN nozset 0
        A: BLMOVE nolist dst LEFT LEFT 0
        A: EXEC
        A: MULTI
        A: SUBSCRIBE x
        A: UNWATCH
        A: EXEC
        A: UNSUBSCRIBE
        "#,
    );
}

#[test]
fn watch_races_between_clients() {
    check(
        "watch",
        r#"
        A: SET k 1
        A: WATCH k
        B: SET k 2
        A: MULTI
        A: INCR k
        A: EXEC
        A: GET k
        A: WATCH k
        A: MULTI
        A: INCR k
        B: GET k
        A: EXEC
        A: WATCH k other
        B: SET other x
        A: UNWATCH
        A: MULTI
        A: INCR k
        A: EXEC
        A: WATCH k
        B: SET k 2 XX
        A: MULTI
        A: EXEC
        A: WATCH nosuch
        B: DEL nosuch
        A: MULTI
        A: EXEC
        A: WATCH k
        B: FLUSHDB
        A: MULTI
        A: EXEC
        A: WATCH empty
        B: FLUSHALL
        A: MULTI
        A: EXEC
        A: SET t v PX 20
        A: WATCH t
        @sleep 40
        A: MULTI
        A: PING
        A: EXEC
        A: SET t2 v PX 5
        @sleep 20
        A: WATCH t2
        A: MULTI
        A: PING
        A: EXEC
        A: SET w 1
        A: WATCH w
        B: SELECT 1
        B: SET w 9
        A: MULTI
        A: PING
        A: EXEC
        A: WATCH w
        B: SWAPDB 0 1
        A: MULTI
        A: PING
        A: EXEC
        A: WATCH gone
        C: WATCH gone
        B: SELECT 0
        B: SET gone 1
        A: MULTI
        A: EXEC
        C: MULTI
        C: EXEC
        "#,
    );
}

#[test]
fn blocking_pops_are_served_in_order() {
    check(
        "blocking",
        r#"
        A& BLPOP q 0
        B& BRPOP other q 0
        C: RPUSH q x y z
        A?
        B?
        C: LRANGE q 0 -1
        A& BLMOVE src dst LEFT RIGHT 0
        B& BRPOP dst 0
        C: LPUSH src v w
        A?
        B?
        C: LRANGE src 0 -1
        C: EXISTS dst
        A& BZPOPMIN z1 z2 0
        B& BZMPOP 0 2 z2 z1 MAX COUNT 5
        C: ZADD z2 1 a 2 b 3 c
        A?
        B?
        C: ZADD z1 5 e
        A& BLMPOP 0 2 l1 l2 RIGHT COUNT 2
        C: RPUSH l2 1 2 3
        A?
        A& BLPOP typed 0
        C: SET typed str
        A?
        C: DEL typed
        C: RPUSH typed ok
        A?
        A& BRPOPLPUSH from to 0
        C: MULTI
        C: RPUSH from 1 2
        C: RPUSH from 3
        C: EXEC
        A?
        C: LRANGE to 0 -1
        C: LRANGE from 0 -1
        # A timeout well above the harness's 40 ms read window: the real server answers at the
        # first cron tick past it, which a loaded machine must not bring into that window.
        A& BLPOP t 0.5
        @sleep 900
        A?
        A: BLPOP q -1
        A: BLPOP q abc
        A: BZPOPMAX q 1e400
        A: BLMPOP 0 0 q LEFT
        A: BLMPOP x 1 q LEFT
        A: BZMPOP 1 1 q MIDDLE
        A: RPUSH ready 1
        A: BLPOP ready 0
        A& BLPOP dup dup 0
        C: RPUSH dup 1 2
        A?
        C: LLEN dup
        "#,
    );
}

#[test]
fn scripts_among_clients() {
    check(
        "scripts",
        r#"
        A: WATCH lock:job
        B: EVAL "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])" 1 lock:job owner-b 30000
        A: MULTI
        A: SET lock:job owner-a
        A: EXEC
        A: EVAL "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])" 1 lock:job owner-a 30000
        A: EVAL "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end" 1 lock:job owner-a
        B: EVAL "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end" 1 lock:job owner-b
        A: WATCH q
        B: EVAL "return redis.call('ZADD', KEYS[1], 100, 'task:1', 200, 'task:2', 300, 'task:3')" 1 q
        A: MULTI
        A: ZRANGEBYSCORE q -inf 250
        A: EXEC
        C: SUBSCRIBE jobs
        D: CONFIG SET notify-keyspace-events KEA
        D: PSUBSCRIBE "__keyevent@0__:*"
        A: EVAL "local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 10) for _, t in ipairs(due) do redis.call('ZREM', KEYS[1], t) redis.call('PUBLISH', 'jobs', t) end return due" 1 q 250
        B: EVAL "local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 10) for _, t in ipairs(due) do redis.call('ZREM', KEYS[1], t) redis.call('PUBLISH', 'jobs', t) end return due" 1 q 250
        C?
        D?
        A& BLPOP work 0
        B& BLPOP work 0
        E: EVAL "redis.call('RPUSH', KEYS[1], 'one') redis.call('RPUSH', KEYS[1], 'two') return redis.call('LLEN', KEYS[1])" 1 work
        A?
        B?
        D?
        E: EVAL "redis.call('RPUSH', KEYS[1], 'x') return redis.call('LPOP', KEYS[1])" 1 work
        E: LLEN work
        D?
        E: MULTI
        E: EVAL "return redis.call('INCR', KEYS[1])" 1 n
        E: EVAL "return redis.call('NOPE')" 0
        E: EXEC
        E: MULTI
        E: EVAL "return redis.call('INCR', KEYS[1])" 1 n
        E: EVAL "return redis.pcall('HSET', KEYS[1], 'f', 'v')" 1 n
        E: EXEC
        D?
        A: CONFIG SET notify-keyspace-events ""
        "#,
    );
}

// ---------------------------------------------------------------------------------------------
// Client-side caching (tracking.c): the table, BCAST, OPTIN/OPTOUT, NOLOOP, REDIRECT. Over RESP2
// only a redirection to a subscribed client receives invalidations (as `message`s on
// `__redis__:invalidate`); over RESP3 every client gets `invalidate` pushes.
// ---------------------------------------------------------------------------------------------

#[test]
fn tracking_remembers_what_a_client_read_and_invalidates_it_once() {
    check(
        "tracking",
        r#"
        R: SUBSCRIBE __redis__:invalidate
        A: CLIENT TRACKINGINFO
        A: CLIENT GETREDIR
        A: CLIENT TRACKING on REDIRECT $R
        A: CLIENT GETREDIR
        A: CLIENT TRACKINGINFO
        A: CLIENT INFO |> flags redir
        A: GET a
        A: MGET b c
        B: SET a 1
        R?
        B: MSET b 1 c 2
        R?
        A: GET a
        B: DEL a
        B: DEL a
        R?
        A: EXISTS x y
        A: TTL t1
        A: TYPE t2
        A: STRLEN t3
        A: HGET h f
        A: ZSCORE z m
        A: SMEMBERS s
        A: LRANGE l 0 -1
        A: ZUNION 2 z1 z2
        A: SINTERCARD 2 s1 s2
        B: MSET x 1 y 2 t1 1 t2 1 t3 1
        B: HSET h f v
        B: ZADD z 1 m
        B: SADD s m
        B: RPUSH l a
        B: ZADD z1 1 a
        B: SADD s2 a
        R?
        A: GET k
        A: SET k 1
        R?
        A: GET wt
        A: HSET wt f v
        A: HGET wt f
        B: SET wt x
        R?
        A: GET a
        B: SELECT 1
        B: SET a 1
        B: SELECT 0
        R?
        A: GET hl
        B: PFADD hl a
        R?
        A: GET hl
        B: PFCOUNT hl
        R?
        A: GET hl
        B: PFCOUNT hl
        R?
        A: GET f1
        A: GET f2
        A: FLUSHDB
        R?
        A: GET f3
        B: FLUSHALL
        R?
        B: FLUSHALL
        R?
        A: MULTI
        A: GET m1
        A: SET m1 x
        A: GET m1
        A: EXEC
        R?
        B: SET m1 y
        R?
        C: CLIENT TRACKING on
        C: GET own
        B: SET own 1
        C?
        C: GET own
        C: SET own 2
        C: CLIENT TRACKING off
        B: SET own 3
        C?
        B: INFO |> tracking_clients tracking_total_prefixes
        A: CLIENT TRACKING off
        A: CLIENT TRACKINGINFO
        B: INFO |> tracking_clients
        "#,
    );
}

#[test]
fn tracking_bcast_prefixes_and_noloop() {
    check(
        "tracking-bcast",
        r#"
        R: SUBSCRIBE __redis__:invalidate
        A: CLIENT TRACKING on BCAST REDIRECT $R
        A: CLIENT TRACKINGINFO
        A: CLIENT INFO |> flags redir
        B: SET foo 1
        R?
        B: MSET b 1 a 2 a 3
        R?
        A: SET mine 1
        R?
        A: CLIENT TRACKING on BCAST PREFIX x
        A: CLIENT TRACKING on
        A: CLIENT TRACKING off
        A: CLIENT TRACKING on BCAST PREFIX user: PREFIX obj: REDIRECT $R NOLOOP
        A: CLIENT TRACKINGINFO
        B: SET user:1 a
        B: SET obj:2 b
        B: SET other c
        R?
        A: SET user:2 x
        A: MSET user:3 y obj:3 z
        B: SET user:3 w
        R?
        A: CLIENT TRACKING on BCAST PREFIX us
        A: CLIENT TRACKING on BCAST PREFIX user:1:
        A: CLIENT TRACKING on BCAST PREFIX a PREFIX ab
        A: CLIENT TRACKING on BCAST PREFIX z PREFIX a PREFIX ab
        A: PING
        A: CLIENT TRACKINGINFO
        D: CLIENT TRACKING on BCAST PREFIX user REDIRECT $R
        B: SET user:9 x
        R?
        B: INFO |> tracking_clients tracking_total_prefixes
        B: EVAL "redis.call('set', 'user:7', 1) redis.call('set', 'abc', 1) return 1" 0
        R?
        A: EVAL "redis.call('set', 'user:8', 1) return 1" 0
        R?
        D: CLIENT TRACKING off
        B: FLUSHALL
        R?
        B: INFO |> tracking_clients tracking_total_prefixes
        "#,
    );
}

#[test]
fn tracking_optin_optout_noloop_scripts_and_errors() {
    check(
        "tracking-modes",
        r#"
        R: SUBSCRIBE __redis__:invalidate
        A: CLIENT CACHING yes
        A: CLIENT TRACKING on OPTIN REDIRECT $R
        A: CLIENT CACHING no
        A: CLIENT CACHING maybe
        A: CLIENT TRACKING on OPTOUT
        A: CLIENT CACHING yes
        A: CLIENT TRACKINGINFO
        A: GET k1
        A: GET k2
        A: CLIENT CACHING yes
        A: CLIENT TRACKINGINFO
        A: MULTI
        A: GET k3
        A: GET k4
        A: EXEC
        A: GET k5
        B: MSET k1 1 k2 1 k3 1 k4 1 k5 1
        R?
        A: CLIENT TRACKING off
        A: CLIENT TRACKING on OPTOUT REDIRECT $R
        A: CLIENT CACHING yes
        A: GET o1
        A: CLIENT CACHING no
        A: CLIENT TRACKINGINFO
        A: GET o2
        A: GET o3
        B: MSET o1 1 o2 1 o3 1
        R?
        A: CLIENT TRACKING off
        A: CLIENT TRACKING on NOLOOP REDIRECT $R
        A: GET n
        A: SET n 1
        R?
        A: GET n
        B: SET n 2
        R?
        A: CLIENT TRACKING off
        A: CLIENT TRACKING on REDIRECT $R
        A: EVAL "return redis.call('get', KEYS[1])" 1 s2
        A: EVAL "return redis.call('get', 's3')" 0
        A: EVAL "redis.call('get', 's4') return redis.call('get', KEYS[1])" 1 s5
        A: EVAL_RO "return redis.call('get', KEYS[1])" 1 s6
        A: EVAL "return redis.call('set', KEYS[1], 'v')" 1 s8
        B: MSET s2 1 s3 1 s4 1 s5 1 s6 1 s8 1
        R?
        A: CLIENT TRACKING on PREFIX a
        A: CLIENT TRACKING on BCAST OPTIN
        A: CLIENT TRACKING on OPTIN OPTOUT
        A: CLIENT TRACKING on REDIRECT 99999
        A: CLIENT TRACKING on REDIRECT abc
        A: CLIENT TRACKING on REDIRECT 0
        A: CLIENT TRACKING on REDIRECT -5
        A: CLIENT TRACKING on REDIRECT $R REDIRECT $R
        A: CLIENT TRACKING on FOO
        A: CLIENT TRACKING maybe
        A: CLIENT TRACKING off FOO
        A: CLIENT TRACKING on REDIRECT
        A: CLIENT TRACKING on PREFIX
        A: CLIENT TRACKING
        A: CLIENT CACHING
        A: CLIENT GETREDIR x
        A: CLIENT TRACKINGINFO x
        A: CLIENT TRACKING on REDIRECT $A
        A: GET self
        B: SET self 1
        A?
        S: SUBSCRIBE __redis__:invalidate
        A: CLIENT TRACKING on REDIRECT $S
        A: GET q
        C: CLIENT KILL ID $S
        B: SET q 1
        A?
        A: CLIENT TRACKINGINFO
        A: CLIENT LIST ID $A |> flags redir
        A: GET q
        B: SET q 2
        A?
        A: CLIENT TRACKING on
        A: CLIENT TRACKINGINFO
        A: RESET
        A: CLIENT TRACKINGINFO
        "#,
    );
}

#[test]
fn tracking_invalidates_expired_evicted_and_forgotten_keys() {
    check(
        "tracking-expiry",
        r#"
        R: SUBSCRIBE __redis__:invalidate
        A: CLIENT TRACKING on REDIRECT $R
        B: SET e v PX 100
        A: GET e
        @sleep 400
        R?
        B: SET big x
        A: GET big
        A: GET other
        B: CONFIG SET maxmemory-policy allkeys-lru
        B: CONFIG SET maxmemory 1
        B: GET other
        B: DBSIZE
        B: CONFIG SET maxmemory 0
        R?
        B: CONFIG SET tracking-table-max-keys 2
        B: CONFIG GET tracking-table-max-keys
        A: MGET m1 m2
        B: INFO |> tracking_total_keys tracking_total_items
        A: GET m3
        B: PING
        B: INFO |> tracking_total_keys tracking_total_items
        B: CONFIG SET tracking-table-max-keys 0
        B: CONFIG SET tracking-table-max-keys -1
        B: CONFIG SET tracking-table-max-keys 1000000
        "#,
    );
}

// ---------------------------------------------------------------------------------------------
// CLIENT REPLY, UNBLOCK, PAUSE, NO-EVICT, KILL and the flags CLIENT LIST shows (networking.c)
// ---------------------------------------------------------------------------------------------

#[test]
fn client_reply_off_skip_drop_replies_but_not_pushes() {
    check(
        "client-reply",
        r#"
        A& CLIENT REPLY OFF
        A& SET k v
        A& GET k
        A& NOSUCHCOMMAND
        A: CLIENT REPLY ON
        A: GET k
        A& CLIENT REPLY SKIP
        A& PING
        A: PING x
        A& CLIENT REPLY SKIP
        A& CLIENT REPLY SKIP
        A& PING y
        A& CLIENT REPLY OFF
        A& CLIENT REPLY SKIP
        A: CLIENT REPLY ON
        A& CLIENT REPLY SKIP
        A: CLIENT REPLY ON
        A: PING z
        A: CLIENT REPLY foo
        A& CLIENT REPLY SKIP
        A& CLIENT REPLY foo
        A: PING w
        A: CLIENT REPLY
        A& CLIENT REPLY OFF
        A& SUBSCRIBE ch2
        B: PUBLISH ch2 hi
        A?
        A& CLIENT REPLY ON
        A& UNSUBSCRIBE
        A: CLIENT REPLY ON
        A& CLIENT REPLY SKIP
        A& BLPOP q 0
        B: RPUSH q x
        A?
        A: PING after
        A& CLIENT REPLY SKIP
        A& BLPOP q 0.05
        @sleep 300
        A?
        A: PING after2
        A& CLIENT REPLY OFF
        A& CLIENT TRACKING on REDIRECT $A
        A& GET t
        B: SET t 1
        A?
        A& RESET
        A: PING reset
        "#,
    );
}

#[test]
fn client_unblock_answers_a_blocked_client_with_its_timeout_or_an_error() {
    check(
        "client-unblock",
        r#"
        B& BLPOP q 0
        A: CLIENT LIST ID $B |> flags cmd
        A: CLIENT UNBLOCK $B ERROR
        B?
        B& BZPOPMIN z 0
        A: CLIENT UNBLOCK $B TIMEOUT
        B?
        B& BLMOVE a b LEFT LEFT 0
        A: CLIENT UNBLOCK $B
        B?
        A: CLIENT UNBLOCK $B
        A: CLIENT UNBLOCK $A
        A: CLIENT UNBLOCK 999
        A: CLIENT UNBLOCK 999 foo
        A: CLIENT UNBLOCK abc
        A: CLIENT UNBLOCK abc foo
        A: CLIENT UNBLOCK -1
        A: CLIENT UNBLOCK 1 2 3
        A: CLIENT UNBLOCK
        B& BLPOP q 5
        A: INFO |> blocked_clients clients_in_timeout_table
        A: CLIENT UNBLOCK $B TIMEOUT
        B?
        A: INFO |> blocked_clients clients_in_timeout_table
        A: CLIENT PAUSE 100000 WRITE
        B& BLPOP q 0
        A: CLIENT UNBLOCK $B ERROR
        A: INFO |> blocked_clients
        A: CLIENT LIST ID $B |> flags cmd
        A: CLIENT UNPAUSE
        B?
        A: CLIENT LIST ID $B |> flags cmd
        A: CLIENT UNBLOCK $B ERROR
        B?
        A: MULTI
        A: CLIENT UNBLOCK $B
        A: EXEC
        "#,
    );
}

#[test]
fn client_pause_holds_writes_or_everything_until_unpause_or_its_end() {
    check(
        "client-pause",
        r##"
        A: SET FOO BAR
        A: CLIENT PAUSE 100000 WRITE
        B: GET FOO
        B: PING
        B: INFO |> blocked_clients
        B& SET FOO BAZ
        C: INFO |> blocked_clients
        C: CLIENT LIST ID $B |> flags cmd argv-mem
        B?
        D: MULTI
        D& SET x 1
        E& PUBLISH ch m
        F& EVAL "return 1" 0
        G: EVAL "#!lua flags=no-writes\nreturn 2" 0
        H: EVAL_RO "return 3" 0
        J: SCRIPT LOAD "return 1"
        K& EVAL "#!lua\nreturn redis.call('set', 'y', 1)" 0
        L: MULTI
        L: GET FOO
        L: PING
        L: EXEC
        N& EXPIRE FOO 100
        O& SPUBLISH ch x
        P: MULTI
        P: GET FOO
        P: CLIENT PAUSE 100000 WRITE
        C: CLIENT PAUSE 10 WRITE
        C: CLIENT PAUSE abc
        C: CLIENT PAUSE -1
        C: CLIENT PAUSE 10 FOO
        C: CLIENT PAUSE abc FOO
        C: CLIENT PAUSE 10 write extra
        C: CLIENT PAUSE 99999999999999999999
        C: CLIENT UNPAUSE x
        C: INFO |> blocked_clients
        A: CLIENT UNPAUSE
        B?
        D?
        E?
        F?
        K?
        N?
        O?
        D: EXEC
        P: EXEC
        A: TTL FOO
        A: CLIENT UNPAUSE
        A: MULTI
        A: SET FOO1 BAR
        A: CLIENT PAUSE 100000 WRITE
        A: SET FOO2 BAR
        A: EXEC
        B& SET FOO3 BAR
        A: MGET FOO1 FOO2 FOO3
        A: CLIENT UNPAUSE
        B?
        M: PING
        A: CLIENT PAUSE 1500 ALL
        B& PING
        A& CLIENT UNPAUSE
        M& MONITOR
        @sleep 2000
        B?
        A?
        M?
        B: PING
        A: MULTI
        A: CLIENT PAUSE 1500 ALL
        A: CLIENT PAUSE 10 WRITE
        A: EXEC
        @sleep 100
        B& GET FOO
        B?
        @sleep 2000
        B?
        "##,
    );
}

#[test]
fn client_pause_freezes_expiry_and_lets_reads_see_keys_as_gone() {
    check(
        "client-pause-expiry",
        r#"
        A: MULTI
        A: SET key value PX 100
        A: SET k2 v
        A: CLIENT PAUSE 100000 WRITE
        A: SET k3 v
        A: EXEC
        @sleep 400
        A: GET key
        A: EXISTS key
        A: DBSIZE
        A: TTL key
        A: TYPE key
        A: KEYS key
        A: INFO |> expired_keys
        A: CLIENT UNPAUSE
        A: GET key
        A: INFO |> expired_keys
        "#,
    );
}

#[test]
fn client_flags_no_evict_and_kill_filters() {
    check(
        "client-flags",
        r#"
        A: CLIENT NO-EVICT on
        A: CLIENT INFO |> flags
        A: CLIENT NO-EVICT OFF
        A: CLIENT INFO |> flags
        A: CLIENT NO-EVICT x
        A: CLIENT NO-EVICT
        A: CLIENT NO-EVICT ON
        A: CLIENT TRACKING on BCAST
        A: WATCH k
        B: SET k 1
        A: MULTI
        A: PING
        A: CLIENT INFO |> flags multi
        A: EXEC
        A: RESET
        A: CLIENT INFO |> flags
        C: SUBSCRIBE x
        A: CLIENT LIST TYPE pubsub |> id flags sub
        C: PSUBSCRIBE p*
        A: CLIENT LIST ID $C |> flags sub psub ssub
        A: CLIENT KILL TYPE foo
        A: CLIENT KILL ID abc
        A: CLIENT KILL ID 0
        A: CLIENT KILL ID 1 SKIPME maybe
        A: CLIENT KILL MAXAGE 1
        A: CLIENT KILL USER nobody
        A: CLIENT KILL ADDR 1.2.3.4:5
        A: CLIENT KILL LADDR 1.2.3.4:5
        A: CLIENT KILL 1.2.3.4:5
        A: CLIENT KILL ID $C TYPE normal
        A: CLIENT KILL ID $C TYPE pubsub
        A: CLIENT KILL ID $C
        D: CLIENT KILL ID $D
        D: CLIENT KILL ID $D SKIPME no
        "#,
    );
}

// ---------------------------------------------------------------------------------------------
// MONITOR (replication.c replicationFeedMonitors)
// ---------------------------------------------------------------------------------------------

#[test]
fn monitor_sees_every_command_as_redis_shows_it() {
    check(
        "monitor",
        r#"
        M: MONITOR
        A: SET k v
        A: SELECT 2
        A: SET k2 12345
        A: SELECT 0
        A: GET nokey
        A: LPUSH k x
        A: MULTI
        A: SET a 1
        A: INCR a
        A: EXEC
        A: EVAL "redis.call('set','b','x') return redis.call('get','b')" 0
        A: EVAL "return redis.call('select', 3) and redis.call('set','x','y')" 0
        A: EVAL "return 1" abc
        A: EVALSHA 0000000000000000000000000000000000000000 0
        A: EVAL_RO "return redis.call('get','x')" 0
        A: AUTH foo
        A: AUTH user pass
        A: AUTH a b c
        A: HELLO 2 AUTH default pw
        A: HELLO 2 SETNAME name AUTH default pw
        A: HELLO 9 AUTH default pw
        A: CONFIG GET hz
        A: CLIENT ID
        A: CLIENT LIST |> id
        A: CLIENT KILL ID 9999
        A: NOSUCH cmd
        A: GET
        A: SET "a b" "x\ny\x00\xff"
        A& BLPOP q 0
        B: RPUSH q x
        A?
        A: PING
        M?
        M: PING x
        M& MONITOR
        M?
        N: MONITOR
        C: SUBSCRIBE c
        C: PING
        C: UNSUBSCRIBE
        M?
        N?
        M: RESET
        A: PING
        M?
        N?
        A: QUIT
        N?
        "#,
    );
}

// ---------------------------------------------------------------------------------------------
// Sharded Pub/Sub (7.0: SSUBSCRIBE, SUNSUBSCRIBE, SPUBLISH, PUBSUB SHARD*; one shard)
// ---------------------------------------------------------------------------------------------

#[test]
fn sharded_pubsub_delivery_counts_and_restrictions() {
    check(
        "pubsub-shard",
        r#"
        A: SSUBSCRIBE a b
        A: SUBSCRIBE c
        A: SSUBSCRIBE a
        A: PSUBSCRIBE p*
        B: SPUBLISH a hello
        B: PUBLISH a nope
        B: SPUBLISH c nope
        B: SPUBLISH nobody x
        B: PUBSUB SHARDCHANNELS b*
        B: PUBSUB SHARDCHANNELS nothing*
        B: PUBSUB SHARDNUMSUB a b c d
        B: PUBSUB SHARDNUMSUB
        B: PUBSUB CHANNELS
        B: PUBSUB NUMSUB a c
        B: PUBSUB NUMPAT
        B: INFO |> pubsub_channels pubsub_patterns pubsubshard_channels
        B: CLIENT LIST ID $A |> flags sub psub ssub
        A?
        A: GET x
        A: SPUBLISH a x
        A: PING
        A: SUNSUBSCRIBE a x
        A: SUNSUBSCRIBE
        A: SUNSUBSCRIBE
        A: UNSUBSCRIBE
        A: PUNSUBSCRIBE
        A: SUNSUBSCRIBE
        A: SSUBSCRIBE q
        A: PING
        B: SPUBLISH q "\x00bin\xff"
        A?
        A: RESET
        B: PUBSUB SHARDNUMSUB q
        B: SSUBSCRIBE x
        B: SPUBLISH x self
        B: SUNSUBSCRIBE x
        B: SPUBLISH x self
        C: MULTI
        C: SSUBSCRIBE m
        C: SUBSCRIBE m2
        C: EXEC
        C: UNSUBSCRIBE
        C: SSUBSCRIBE
        C: SPUBLISH
        C: SPUBLISH a
        C: EVAL "return redis.call('spublish','a','b')" 0
        C: EVAL "return redis.call('ssubscribe','a')" 0
        C: CONFIG SET notify-keyspace-events KEA
        D: SSUBSCRIBE __keyspace@0__:k
        C: SET k v
        D?
        C: CONFIG SET notify-keyspace-events ""
        E: SSUBSCRIBE gone
        C: CLIENT KILL ID $E
        C: PUBSUB SHARDNUMSUB gone
        C: INFO |> pubsubshard_channels
        "#,
    );
}

#[test]
fn protected_commands_are_refused_before_authentication() {
    check(
        "protected before auth",
        r#"
        A: CONFIG SET requirepass pw
        B: DEBUG OBJECT x
        B: MODULE LOAD /nonexistent.so
        B: MODULE LIST
        B: GET x
        A: CONFIG SET requirepass ""
        "#,
    );
}

#[test]
fn acl_users_among_clients() {
    check(
        "acl",
        r#"
        A: ACL SETUSER bob on >pw +@all -@dangerous ~b* &news
        A: ACL SETUSER eve on >pw +@all ~* &*
        B: AUTH bob pw
        B: SUBSCRIBE news
        A: PUBLISH news hello
        B?
        # Rules that keep bob's channel keep its subscriber; revoking it disconnects it.
        A: ACL SETUSER bob &more
        A: PUBLISH news still-there
        B?
        A: ACL SETUSER bob resetchannels &other
        B?
        A: PUBSUB NUMSUB news
        C: AUTH bob pw
        C: SET b1 v
        C: GET a1
        C: PSUBSCRIBE oth*
        C: PSUBSCRIBE other
        C: PUNSUBSCRIBE
        D: AUTH bob pw
        A: CLIENT KILL USER bob
        A: CLIENT KILL USER nosuch
        C?
        D?
        # ACL DELUSER disconnects the user's clients, its own connection after the reply.
        E: AUTH bob pw
        A: ACL DELUSER bob
        E?
        F: AUTH eve pw
        F: ACL DELUSER eve
        F?
        A: ACL USERS
        # A disabled user's connections keep working; new AUTHs fail.
        A: ACL SETUSER sam on nopass +@all ~*
        G: AUTH sam x
        A: ACL SETUSER sam off
        G: SET s v
        G: ACL WHOAMI
        H: AUTH sam x
        H: HELLO 2 AUTH sam x
        # EXEC checks the queue again: rules changed by another client in between.
        A: ACL SETUSER sam on
        G: MULTI
        G: SET s1 v
        G: GET s1
        A: ACL SETUSER sam -get
        G: EXEC
        # requirepass: new connections must AUTH, connected ones stay in.
        A: CONFIG SET requirepass pw2
        I: GET s
        I: AUTH pw2
        I: GET s
        A: ACL WHOAMI
        A: CONFIG SET requirepass ""
        J: GET s
        "#,
    );
}

/// Bitmaps (bitops.c): `setbit` only when a bit changed or the string was created or grew
/// (SETBIT and BITFIELD alike), BITOP's `set` or `del`, keymiss, WATCH touched by the same.
#[test]
fn keyspace_events_of_bitmaps() {
    check(
        "bitmaps",
        r#"
        B: CONFIG SET notify-keyspace-events KEAm
        A: PSUBSCRIBE __key*@0__:*
        B: SETBIT b 0 0
        B: SETBIT b 0 0
        B: SETBIT b 1 1
        B: SETBIT b 1 1
        B: SETBIT b 100 0
        B: GETBIT nosuch 3
        B: BITFIELD f SET u8 0 0
        B: BITFIELD f SET u8 0 0
        B: BITFIELD f INCRBY u8 0 0 GET u8 0
        B: BITFIELD f OVERFLOW FAIL INCRBY u8 0 1000
        B: BITFIELD g OVERFLOW FAIL INCRBY u2 20 10
        B: BITFIELD_RO nosuch GET u8 0
        B: BITOP AND dest b nosuch
        B: BITOP OR dest nosuch
        B: BITOP OR dest nosuch
        B: SET n 12
        B: SETBIT n 2 0
        B: BITCOUNT nosuch
        A?
        C: WATCH b
        B: SETBIT b 1 1
        C: MULTI
        C: GET b
        C: EXEC
        C: WATCH b
        B: SETBIT b 1 0
        C: MULTI
        C: GET b
        C: EXEC
        C: WATCH dest2
        B: BITOP NOT dest2 b
        C: MULTI
        C: GET dest2
        C: EXEC
        A?
        B: CONFIG SET notify-keyspace-events ""
        "#,
    );
}

/// HyperLogLog (hyperloglog.c): `pfadd` from PFADD (only when something changed) and from
/// PFMERGE (always); PFCOUNT rewriting its cache touches WATCHers but fires no event; a
/// PFCOUNT served from a valid cache touches nothing.
#[test]
fn keyspace_events_of_hyperloglogs() {
    check(
        "hyperloglog",
        r#"
        B: CONFIG SET notify-keyspace-events KEA
        A: PSUBSCRIBE __key*@0__:*
        B: PFADD h a b c
        B: PFADD h a
        B: PFADD h
        B: PFADD fresh
        B: PFMERGE m h
        B: PFMERGE m
        B: PFCOUNT h
        B: PFDEBUG TODENSE h
        B: PFDEBUG GETREG fresh
        A?
        C: WATCH h
        B: PFCOUNT h
        C: MULTI
        C: PFCOUNT h
        C: EXEC
        C: WATCH h
        B: PFCOUNT h
        C: MULTI
        C: PFCOUNT h
        C: EXEC
        C: WATCH h
        B: PFADD h a
        C: MULTI
        C: PFCOUNT h
        C: EXEC
        A?
        B: CONFIG SET notify-keyspace-events ""
        "#,
    );
}

/// SORT … STORE (sort.c): `sortstore` (list class) or `del` when the result is empty; a
/// client blocked on the destination is served; WATCHers touched; BY/GET lookups of missing
/// keys are key misses.
#[test]
fn keyspace_events_and_blocked_clients_of_sort_store() {
    check(
        "sort",
        r#"
        B: CONFIG SET notify-keyspace-events KEA
        A: PSUBSCRIBE __key*@0__:*
        B: RPUSH src 3 1 2
        C& BLPOP dst 0
        B: SORT src STORE dst
        C?
        B: LRANGE dst 0 -1
        B: SORT src DESC STORE dst
        B: SORT nosuch STORE dst
        B: SORT nosuch STORE dst
        B: SORT src BY w_* GET h_*->f LIMIT 0 1
        A?
        D: WATCH out
        B: SORT src STORE out
        D: MULTI
        D: LLEN out
        D: EXEC
        D: WATCH out
        B: SORT src LIMIT 5 5 STORE out
        D: MULTI
        D: EXISTS out
        D: EXEC
        D: WATCH src
        B: SORT_RO src
        B: SORT src
        D: MULTI
        D: LLEN src
        D: EXEC
        C& BLPOP l2 0
        B: ZADD z 1 a 2 b
        B: SORT z BY nosort STORE l2
        C?
        A?
        B: CONFIG SET notify-keyspace-events Km
        B: SORT src BY w_* GET h_*->f
        A?
        B: CONFIG SET notify-keyspace-events ""
        "#,
    );
}

#[test]
fn acl_log_among_clients() {
    check(
        "acl-log",
        r#"
        A: ACL LOG RESET
        A: ACL SETUSER lim on >pw -@all +get +multi +exec +discard +eval +publish +auth ~a* &ch
        B: AUTH nosuch x
        B: AUTH nosuch x
        B: auth lim wrong
        B: AUTH lim pw
        B: GET b1
        B: GET a1
        B: SET a1 v
        B: MULTI
        B: GET c1
        B: DISCARD
        B: EVAL "return redis.call('get', 'd1')" 0
        B: PUBLISH other m
        B: GET b1
        A: ACL LOG
        A: ACL LOG 2
        A: CONFIG SET acllog-max-len 2
        B: GET e1
        A: ACL LOG
        A: ACL LOG RESET
        A: ACL LOG
        A: CONFIG SET acllog-max-len 128
        "#,
    );
}

/// The `new` event (db.c `dbAdd()`) for keys created by SETBIT, BITFIELD (even when its write
/// fails), BITOP, PFADD, PFMERGE and SORT … STORE — and none when they overwrite.
#[test]
fn new_key_events_of_bitmaps_hyperloglogs_and_sort() {
    check(
        "new keys",
        r#"
        B: CONFIG SET notify-keyspace-events KEn
        A: PSUBSCRIBE __key*@0__:*
        B: SETBIT b 3 1
        B: SETBIT b 4 1
        B: BITFIELD f OVERFLOW FAIL INCRBY u2 0 9
        B: BITOP NOT d b
        B: BITOP NOT d b
        B: PFADD h a
        B: PFMERGE m h
        B: PFMERGE m h
        B: RPUSH l 2 1
        B: SORT l STORE s
        B: SORT l STORE s
        A?
        B: CONFIG SET notify-keyspace-events ""
        "#,
    );
}

#[test]
fn stream_reads_block_and_are_woken_by_xadd() {
    check(
        "stream blocking",
        r#"
        A& XREAD BLOCK 0 STREAMS s1 $
        B: XADD s1 1-1 k v
        A?
        A& XREAD BLOCK 0 STREAMS s1 s2 $ $
        B: XADD s2 1-1 other v
        A?
        A& XREAD BLOCK 0 COUNT 2 STREAMS s1 $
        B: MULTI
        B: XADD s1 2-1 a 1
        B: XADD s1 3-1 a 2
        B: XADD s1 4-1 a 3
        B: EXEC
        A?
        A: XREAD BLOCK 0 STREAMS s1 2-1
        A: XREAD BLOCK 0 STREAMS s1 s1 $ 0
        A& XREAD BLOCK 0 STREAMS s1 s1 s1 $ $ $
        B: XADD s1 5-1 same name
        A?
        A& XREAD BLOCK 0 STREAMS s3 $
        C& XREAD BLOCK 0 STREAMS s3 0
        D& XREAD BLOCK 0 COUNT 1 STREAMS s3 $
        B: XADD s3 1-1 f v
        A?
        C?
        D?
        A& XREAD BLOCK 200 STREAMS s3 $
        @sleep 500
        A?
        A& XREAD BLOCK 0 STREAMS s4 $
        B: MULTI
        B: XADD s4 1-1 old v
        B: DEL s4
        B: EXEC
        A?
        B: XADD s4 2-1 new v
        A?
        A& XREAD BLOCK 0 STREAMS s5 $
        B: MULTI
        B: XADD s5 1-1 old v
        B: DEL s5
        B: LPUSH s5 x
        B: EXEC
        A?
        B: DEL s5
        B: XADD s5 2-1 new v
        A?
        B: XADD s6 1-1 a 1
        A& XREAD BLOCK 0 STREAMS s6 $
        B: MULTI
        B: XADD s6 2-1 a 2
        B: XDEL s6 2-1
        B: EXEC
        A?
        A& XREAD BLOCK 0 STREAMS s7 $
        B: SET s7 string
        B: DEL s7
        B: XADD s7 9-9 back v
        A?
        A& XREAD BLOCK 0 STREAMS s8 $
        B: XADD s8 18446744073709551615-18446744073709551615 max v
        A?
        A& XREAD BLOCK 0 STREAMS big $
        B: EVAL "for i = 1, 1500 do redis.call('XADD', KEYS[1], i, 'f', i) end return 1500" 1 big
        A?
        B: XLEN big
        A& XREAD BLOCK 0 COUNT 0 STREAMS big $
        B: XADD big 1501 f v
        A?
        "#,
    );
}

#[test]
fn xreadgroup_blocks_until_new_entries_or_the_group_goes() {
    check(
        "xreadgroup blocking",
        r#"
        B: XGROUP CREATE s g $ MKSTREAM
        A& XREADGROUP GROUP g alice BLOCK 0 STREAMS s >
        B: XADD s 1-1 f v
        A?
        B: XPENDING s g
        A& XREADGROUP GROUP g alice BLOCK 0 NOACK STREAMS s >
        B: XADD s 2-1 f v
        A?
        B: XPENDING s g
        A& XREADGROUP GROUP g bob BLOCK 0 COUNT 1 STREAMS s >
        C& XREADGROUP GROUP g carol BLOCK 0 COUNT 1 STREAMS s >
        B: MULTI
        B: XADD s 3-1 f v
        B: XADD s 4-1 f v
        B: EXEC
        A?
        C?
        B: XINFO GROUPS s
        B: XPENDING s g
        A: XREADGROUP GROUP g bob BLOCK 0 STREAMS s 0
        A& XREADGROUP GROUP g bob BLOCK 0 STREAMS s >
        B: XGROUP DESTROY s g
        A?
        B: XGROUP CREATE s g $
        A& XREADGROUP GROUP g bob BLOCK 0 STREAMS s >
        B: DEL s
        A?
        B: XGROUP CREATE s g $ MKSTREAM
        A& XREADGROUP GROUP g bob BLOCK 0 STREAMS s >
        B: SET s string
        A?
        B: DEL s
        B: XGROUP CREATE s g $ MKSTREAM
        A& XREADGROUP GROUP g bob BLOCK 0 STREAMS s >
        B: XGROUP CREATE s2 g $ MKSTREAM
        B: XADD s2 100 f1 v1
        B: RENAME s2 s
        A?
        A& XREADGROUP GROUP g bob BLOCK 0 STREAMS s >
        B: XGROUP CREATE s3 other $ MKSTREAM
        B: XADD s3 100 f1 v1
        B: RENAME s3 s
        A?
        B: DEL s
        B: XGROUP CREATE s g $ MKSTREAM
        A& XREADGROUP GROUP g bob BLOCK 0 STREAMS s >
        B: MULTI
        B: DEL s
        B: XGROUP CREATE s g $ MKSTREAM
        B: XADD s 7 f v
        B: EXEC
        A?
        B: FLUSHALL
        B: XGROUP CREATE s g $ MKSTREAM
        A& XREADGROUP GROUP g bob BLOCK 0 STREAMS s >
        B: FLUSHALL
        A?
        B: XGROUP CREATE s g $ MKSTREAM
        A& XREADGROUP GROUP g bob BLOCK 0 STREAMS s >
        B: SWAPDB 0 1
        A?
        B: SWAPDB 0 1
        A& XREAD BLOCK 0 STREAMS s $
        C& XREADGROUP GROUP g carol BLOCK 0 STREAMS s >
        B: XGROUP SETID s g $
        B: XGROUP CREATECONSUMER s g dave
        B: XADD s 1 x y
        A?
        C?
        B: XINFO GROUPS s
        C& XREADGROUP GROUP g carol BLOCK 200 STREAMS s >
        @sleep 500
        C?
        B: PEXPIRE s 300
        C& XREADGROUP GROUP g carol BLOCK 0 STREAMS s >
        @sleep 800
        C?
        B: EXISTS s
        "#,
    );
}

#[test]
fn stream_keyspace_events_and_watch() {
    check(
        "stream events",
        r#"
        B: CONFIG SET notify-keyspace-events KEA
        A: PSUBSCRIBE __keyevent@0__:*
        B: XADD s 1 f v
        B: XADD s MAXLEN 1 2 f v
        B: XADD s MAXLEN 5 3 f v
        B: XTRIM s MAXLEN 1
        B: XTRIM s MAXLEN 1
        B: XDEL s 3
        B: XDEL s 3
        B: XGROUP CREATE s g 0
        B: XGROUP CREATE s2 g $ MKSTREAM
        B: XGROUP CREATECONSUMER s g c
        B: XGROUP CREATECONSUMER s g c
        B: XADD s 4 f v
        B: XREADGROUP GROUP g c2 STREAMS s >
        B: XREADGROUP GROUP g c2 STREAMS s 0
        B: XACK s g 4
        B: XCLAIM s g c3 0 4
        B: XADD s 5 f v
        B: XREADGROUP GROUP g c2 STREAMS s >
        B: XCLAIM s g c3 0 5 JUSTID
        B: XAUTOCLAIM s g c4 0 0
        B: XGROUP SETID s g 0
        B: XGROUP DELCONSUMER s g c
        B: XGROUP DELCONSUMER s g nobody
        B: XGROUP DESTROY s g
        B: XGROUP DESTROY s g
        B: XSETID s 10
        B: XADD nomk NOMKSTREAM 1 f v
        B: DEL s s2
        A?
        B: CONFIG SET notify-keyspace-events Kt
        C: SUBSCRIBE __keyspace@0__:t
        B: XADD t 1 f v
        B: XLEN t
        C?
        B: CONFIG SET notify-keyspace-events ""
        D: XADD w 1 f v
        D: XGROUP CREATE w g 0
        E: WATCH w
        D: XGROUP CREATE w g2 0
        D: XGROUP SETID w g 0
        D: XGROUP CREATECONSUMER w g c
        D: XREADGROUP GROUP g c STREAMS w >
        D: XACK w g 1
        D: XSETID w 5
        D: XTRIM w MAXLEN 5
        D: XDEL w 9
        E: MULTI
        E: PING
        E: EXEC
        E: WATCH w
        D: XDEL w 1
        E: MULTI
        E: PING
        E: EXEC
        E: WATCH nk
        D: XGROUP CREATE nk g $ MKSTREAM
        E: MULTI
        E: PING
        E: EXEC
        "#,
    );
}

#[test]
fn a_busy_script_among_clients() {
    check(
        "busy script",
        r#"
        # Every connection opens first (its CLIENT ID handshake would meet the script).
        A: SET k v
        B: PING
        C: PING
        # A script that ends on its own: a command sent meanwhile waits for it.
        A& EVAL "local n = 0 for i = 1, 5e7 do n = n + 1 end return n" 0
        B: GET k
        A?
        A: CONFIG SET busy-reply-threshold 10
        A& EVAL "local i = 0\nwhile true do i = i + 1 end" 0
        @sleep 100
        B: PING
        B: GET k
        B: EVAL "return 1" 0
        B: MULTI
        B: SET k v2
        B: EXEC
        C: SCRIPT KILL
        A?
        B: GET k
        B: SCRIPT KILL
        # pcall cannot catch the kill.
        A& EVAL "local f = function() while 1 do redis.call('ping') end end while 1 do pcall(f) end" 0
        @sleep 100
        B: SCRIPT KILL
        A?
        A: EVAL "return redis.call('GET', KEYS[1])" 1 k
        A: CONFIG SET busy-reply-threshold 5000
        "#,
    );
}

#[test]
fn a_busy_function_among_clients() {
    check(
        "busy function",
        r##"
        A: SET k v
        B: PING
        C: PING
        A: FUNCTION LOAD "#!lua name=busy\nredis.register_function('spin', function() local i = 0 while true do i = i + 1 end end)\nredis.register_function{function_name='spinro', callback=function() while true do end end, flags={'no-writes'}}"
        A: CONFIG SET busy-reply-threshold 10
        A& FCALL spin 0
        @sleep 100
        B: PING
        B: GET k
        B: SCRIPT KILL
        B: FCALL spinro 0
        C: FUNCTION KILL
        A?
        B: FUNCTION KILL
        B: GET k
        A& FCALL_RO spinro 0
        @sleep 100
        B: FUNCTION KILL
        A?
        # FUNCTION KILL and FUNCTION STATS while an EVAL'd script runs.
        A& EVAL "while true do end" 0
        @sleep 100
        B: FUNCTION KILL
        B: FUNCTION STATS
        B: SCRIPT KILL
        A?
        A: FUNCTION FLUSH
        A: CONFIG SET busy-reply-threshold 5000
        "##,
    );
}
