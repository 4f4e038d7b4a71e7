//! The differential tests through `redisplay serve` (issue 10): the same transcripts as
//! tests/differential.rs, but over a TCP connection to the engine's server.
//!
//! 1. redis-cli --no-raw, fed each transcript, prints against our server exactly what the
//!    recording (taken from redis-server 7.0.15) holds — the in-process engine and the server
//!    must agree, and both agree with Redis.
//! 2. RESP3, byte for byte: each transcript's commands are sent after `HELLO 3` to a fresh
//!    redis-server and to a fresh server of ours, and every reply frame must be the same bytes
//!    (maps, sets, doubles, nulls, verbatim strings, nested pairs). `# unordered` lines compare
//!    their elements as a multiset. Lines redis-cli handles itself (help, :set, repeat counts)
//!    are not sent.
//! 3. The same over RESP2 on raw sockets (the wire bytes, not only what redis-cli prints).
//!
//! redis-server is required: without it this test FAILS. `scripts/test.sh` installs it.

// Sockets and `redisplay::net::server` exist only natively (`cargo test --target wasm32` builds every test target).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::native::{scripts, wall_ms};
use common::{compare, parse_script, split_like, Check};
use redisplay::net::server::{ServeOptions, Server as Ours};
use redisplay::reply::parse_resp;
use redisplay::tokenize::split_args;
use redisplay::{EngineOptions, Reply, Session};

#[path = "support/live_server.rs"]
mod live_server;

use live_server::{check_tools, cli_on, Server as Redis};

/// A fresh server whose RDB file (SAVE in a transcript) goes to a directory of its own,
/// removed with it.
struct OursInDir {
    server: Ours,
    dir: std::path::PathBuf,
}

impl std::ops::Deref for OursInDir {
    type Target = Ours;
    fn deref(&self) -> &Ours {
        &self.server
    }
}

impl Drop for OursInDir {
    fn drop(&mut self) {
        self.server.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn ours() -> OursInDir {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("redisplay-serve-live-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = vec![("dir".to_string(), dir.to_string_lossy().into_owned())];
    let server = Ours::start(ServeOptions { port: 0, seed: 0x5eed, config, ..Default::default() })
        .expect("redisplay serve starts");
    OursInDir { server, dir }
}

#[test]
fn redis_cli_through_the_server_prints_the_recordings() {
    check_tools();
    let mut failures = Vec::new();
    let mut commands = 0;
    for script in scripts() {
        let name = script.file_name().unwrap().to_string_lossy().into_owned();
        let lines = parse_script(&std::fs::read(&script).unwrap());
        commands += lines.len();
        let recorded = std::fs::read(script.with_extension("out")).unwrap();
        let server = ours();
        let through_server = without_timings(&cli_on(server.addr.port(), &common::cli_input(&lines)));
        drop(server);
        // The in-process engine's per-command output only cuts the stream.
        let mut session = Session::new(EngineOptions { seed: 0x5eed, start_ms: wall_ms() });
        let engine: Vec<Vec<u8>> = lines.iter().map(|l| session.run_line(&l.line).text).collect();
        let pieces = split_like(&lines, &engine, &through_server);
        let consumed: usize = pieces.iter().map(Vec::len).sum();
        let result = if consumed != through_server.len() && lines.iter().all(|l| l.check == Check::Exact) {
            if through_server == recorded {
                Ok(())
            } else {
                Err(format!(
                    "output differs\n--- recorded\n{}\n--- through the server\n{}",
                    common::show(&recorded),
                    common::show(&through_server)
                ))
            }
        } else {
            compare(&lines, &pieces, &recorded).map_err(|m| m.to_string())
        };
        if let Err(m) = result {
            failures.push(format!("{name}: redis-cli through redisplay serve ≠ the recording\n{m}"));
        }
    }
    eprintln!("server differential: {commands} command lines through redis-cli and redisplay serve");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// redis-cli prints `(0.60s)` after a reply that took over half a second of real time — a
/// script of thousands of calls in this debug build on a loaded machine: not the server's answer,
/// so not compared.
fn without_timings(out: &[u8]) -> Vec<u8> {
    let timing = |l: &[u8]| {
        l.len() > 3
            && l.starts_with(b"(")
            && l.ends_with(b"s)")
            && l[1..l.len() - 2].iter().all(|b| b.is_ascii_digit() || *b == b'.')
    };
    let mut kept = Vec::with_capacity(out.len());
    for line in out.split_inclusive(|&b| b == b'\n') {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        if !timing(body) {
            kept.extend_from_slice(line);
        }
    }
    kept
}

// ---------------------------------------------------------------------------------------------
// Raw frames
// ---------------------------------------------------------------------------------------------

/// One reply as it came over the wire: parsed (`redisplay::reply::parse_resp`, RESP2 and RESP3)
/// and its raw bytes.
struct Frame {
    reply: Reply,
    raw: Vec<u8>,
}

/// A reply with every aggregate's elements as a multiset (a map's pairs), for `# unordered`
/// lines: the same text for the same elements in any order.
fn canonical(r: &Reply) -> String {
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v.join(",")
    };
    match r {
        Reply::Map(kv) => {
            format!("%[{}]", sorted(kv.iter().map(|(k, v)| format!("{}=>{}", canonical(k), canonical(v))).collect()))
        }
        Reply::Pairs(kv) => {
            format!("P[{}]", sorted(kv.iter().map(|(k, v)| format!("[{},{}]", canonical(k), canonical(v))).collect()))
        }
        Reply::Array(items) => format!("*[{}]", sorted(items.iter().map(canonical).collect())),
        Reply::Set(items) => format!("~[{}]", sorted(items.iter().map(canonical).collect())),
        Reply::Push(items) => format!(">[{}]", sorted(items.iter().map(canonical).collect())),
        other => {
            let mut out = Vec::new();
            other.encode(3, &mut out);
            String::from_utf8_lossy(&out).into_owned()
        }
    }
}

struct Raw {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Raw {
    fn connect(port: u16) -> Raw {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        stream.set_nodelay(true).unwrap();
        Raw { stream, buf: Vec::new() }
    }

    fn send(&mut self, argv: &[Vec<u8>]) {
        let mut out = format!("*{}\r\n", argv.len()).into_bytes();
        for a in argv {
            out.extend(format!("${}\r\n", a.len()).bytes());
            out.extend_from_slice(a);
            out.extend_from_slice(b"\r\n");
        }
        self.stream.write_all(&out).expect("write");
    }

    fn frame(&mut self) -> Frame {
        loop {
            if let Some((reply, used)) = parse_resp(&self.buf) {
                let raw = self.buf.drain(..used).collect();
                return Frame { reply, raw };
            }
            let mut chunk = [0u8; 65536];
            let n = self.stream.read(&mut chunk).expect("a reply in time");
            assert!(n > 0, "the server closed the connection");
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    fn call(&mut self, argv: &[Vec<u8>]) -> Frame {
        self.send(argv);
        self.frame()
    }
}

/// The argv redis-cli would send for a transcript line, or None for lines it handles itself.
fn argv_of(line: &[u8]) -> Option<Vec<Vec<u8>>> {
    let argv = split_args(line)?;
    let first = argv.first()?.to_ascii_lowercase();
    if matches!(first.as_slice(), b"help" | b"?" | b"quit" | b"exit" | b"clear" | b"connect" | b"restart")
        || first.starts_with(b":")
    {
        return None;
    }
    if argv.len() > 1 && first.iter().all(u8::is_ascii_digit) {
        return None; // a repeat count
    }
    Some(argv)
}

fn show_frame(f: &Frame) -> String {
    common::show(&f.raw)
}

fn wire_differential(proto: u8) {
    check_tools();
    let mut failures = Vec::new();
    let mut frames = 0;
    for script in scripts() {
        let name = script.file_name().unwrap().to_string_lossy().into_owned();
        let lines = parse_script(&std::fs::read(&script).unwrap());
        let redis = Redis::start();
        let server = ours();
        let mut theirs = Raw::connect(redis.port());
        let mut mine = Raw::connect(server.addr.port());
        if proto == 3 {
            for c in [&mut theirs, &mut mine] {
                let hello = c.call(&[b"HELLO".to_vec(), b"3".to_vec()]);
                assert!(matches!(hello.reply, Reply::Map(_)), "{name}: HELLO 3 answers a map: {}", show_frame(&hello));
            }
        }
        for l in &lines {
            let Some(argv) = argv_of(&l.line) else { continue };
            let (a, b) = (theirs.call(&argv), mine.call(&argv));
            frames += 1;
            let same = match l.check {
                Check::Unordered => canonical(&a.reply) == canonical(&b.reply),
                // HELLO's map: all but the connection id.
                Check::IdVaries => match (&a.reply, &b.reply) {
                    (Reply::Map(x), Reply::Map(y)) => x.len() == y.len(),
                    (Reply::Array(x), Reply::Array(y)) => x.len() == y.len(),
                    _ => false,
                },
                _ => a.raw == b.raw,
            };
            if !same {
                failures.push(format!(
                    "{name}:{} {}\n  redis-server: {}\n  redisplay:    {}",
                    l.lineno,
                    String::from_utf8_lossy(&l.line),
                    show_frame(&a),
                    show_frame(&b)
                ));
            }
        }
    }
    eprintln!("RESP{proto} wire differential: {frames} replies compared, {} differ", failures.len());
    assert!(failures.is_empty(), "{} replies differ over RESP{proto}:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn resp3_replies_are_byte_identical_to_redis() {
    wire_differential(3);
}

#[test]
fn resp2_replies_are_byte_identical_to_redis() {
    wire_differential(2);
}

#[test]
fn info_and_client_list_name_the_servers_real_port() {
    let server = ours();
    let port = server.addr.port();
    let mut c = Raw::connect(port);
    let info = c.call(&[b"INFO".to_vec(), b"server".to_vec()]);
    let body = |f: &Frame| match &f.reply {
        Reply::Bulk(b) | Reply::Verbatim(b) => String::from_utf8_lossy(b).into_owned(),
        other => panic!("not text: {other:?}"),
    };
    let text = body(&info);
    assert!(text.contains(&format!("tcp_port:{port}\r\n")), "{text}");
    let list = c.call(&[b"CLIENT".to_vec(), b"LIST".to_vec()]);
    let text = body(&list);
    let local = c.stream.local_addr().unwrap();
    assert!(text.starts_with("id=3 "), "the first client of a fresh server is id 3, as on redis-server: {text}");
    assert!(text.contains(&format!(" addr={local} laddr=127.0.0.1:{port} ")), "{text}");
}
