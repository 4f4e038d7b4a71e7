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

// Sockets and `redisplay::server` exist only natively (wasm-pack builds every test target).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{compare, parse_script, split_like, Check};
use redisplay::server::{ServeOptions, Server as Ours};
use redisplay::tokenize::split_args;
use redisplay::{EngineOptions, Session};

#[path = "support/live_server.rs"]
mod live_server;

use live_server::{check_tools, cli_on, Server as Redis};

fn wall_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

fn scripts() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "redis"))
        .collect();
    v.sort();
    v
}

fn ours() -> Ours {
    Ours::start(ServeOptions { port: 0, seed: 0x5eed, ..Default::default() }).expect("redisplay serve starts")
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
        let through_server = cli_on(server.addr.port(), &common::cli_input(&lines));
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
                Err(format!("output differs\n--- recorded\n{}\n--- through the server\n{}", common::show(&recorded), common::show(&through_server)))
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

// ---------------------------------------------------------------------------------------------
// Raw frames
// ---------------------------------------------------------------------------------------------

/// One RESP2/RESP3 frame: its type byte, its header line (or body), its children.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Frame {
    kind: u8,
    data: Vec<u8>,
    children: Vec<Frame>,
    raw: Vec<u8>,
}

fn find_crlf(b: &[u8]) -> Option<usize> {
    b.windows(2).position(|w| w == b"\r\n")
}

/// Parses one frame from the front of `b`: `None` when incomplete.
fn parse_frame(b: &[u8]) -> Option<(Frame, usize)> {
    let end = find_crlf(b)?;
    let kind = *b.first()?;
    let line = &b[1..end];
    let mut pos = end + 2;
    let n = || std::str::from_utf8(line).ok().and_then(|s| s.parse::<i64>().ok()).unwrap_or(-1);
    let (data, children) = match kind {
        b'$' | b'=' | b'!' => {
            let len = n();
            if len < 0 {
                (line.to_vec(), vec![])
            } else {
                let len = len as usize;
                if b.len() < pos + len + 2 {
                    return None;
                }
                let body = b[pos..pos + len].to_vec();
                pos += len + 2;
                (body, vec![])
            }
        }
        b'*' | b'~' | b'>' | b'%' | b'|' => {
            let count = n();
            let count = if kind == b'%' || kind == b'|' { count * 2 } else { count };
            let mut children = Vec::new();
            for _ in 0..count.max(0) {
                let (child, used) = parse_frame(&b[pos..])?;
                children.push(child);
                pos += used;
            }
            (line.to_vec(), children)
        }
        _ => (line.to_vec(), vec![]),
    };
    Some((Frame { kind, data, children, raw: b[..pos].to_vec() }, pos))
}

/// The frame with its elements as a multiset (maps: their pairs), for `# unordered` lines.
fn canonical(f: &Frame) -> Frame {
    let mut f = f.clone();
    f.raw.clear();
    if f.kind == b'%' {
        let mut pairs: Vec<(Frame, Frame)> = f.children.chunks(2).map(|p| (canonical(&p[0]), canonical(&p[1]))).collect();
        pairs.sort();
        f.children = pairs.into_iter().flat_map(|(k, v)| [k, v]).collect();
    } else {
        f.children = f.children.iter().map(canonical).collect();
        f.children.sort();
    }
    f
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
            if let Some((f, used)) = parse_frame(&self.buf) {
                self.buf.drain(..used);
                return f;
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
    if matches!(first.as_slice(), b"help" | b"?" | b"quit" | b"exit" | b"clear" | b"connect" | b"restart") || first.starts_with(b":") {
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
                assert_eq!(hello.kind, b'%', "{name}: HELLO 3 answers a map: {}", show_frame(&hello));
            }
        }
        for l in &lines {
            let Some(argv) = argv_of(&l.line) else { continue };
            let (a, b) = (theirs.call(&argv), mine.call(&argv));
            frames += 1;
            let same = match l.check {
                Check::Unordered => canonical(&a) == canonical(&b),
                // HELLO's map: all but the connection id.
                Check::IdVaries => a.children.len() == b.children.len() && a.kind == b.kind,
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
    let text = String::from_utf8_lossy(&info.data).into_owned();
    assert!(text.contains(&format!("tcp_port:{port}\r\n")), "{text}");
    let list = c.call(&[b"CLIENT".to_vec(), b"LIST".to_vec()]);
    let text = String::from_utf8_lossy(&list.data).into_owned();
    let local = c.stream.local_addr().unwrap();
    assert!(text.starts_with("id=3 "), "the first client of a fresh server is id 3, as on redis-server: {text}");
    assert!(text.contains(&format!(" addr={local} laddr=127.0.0.1:{port} ")), "{text}");
}
