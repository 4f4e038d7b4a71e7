//! Servers and raw connections for tests/server_robustness.rs and tests/server_clients.rs:
//! a throwaway redis-server 7.0 started with whatever options a test needs (e.g.
//! `--requirepass`), `redisplay serve` in-process (`redisplay::net::server::Server`) on a free
//! loopback port, and `exchange()`: send bytes on a fresh connection, collect everything until
//! the server closes it or stays silent.
#![allow(dead_code)]

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

use redisplay::net::server::{ServeOptions, Server};

pub const NEED_REDIS: &str = "redis-server 7.0, redis-cli and redis-benchmark are required by the server tests. \
     Run the README's test command, scripts/test.sh, which installs them (scripts/setup.sh test); \
     or: apt-get install redis-server redis-tools";

pub fn check_tools() {
    let version = Command::new("redis-server").arg("--version").output();
    let Ok(version) = version else { panic!("redis-server not found. {NEED_REDIS}") };
    let text = String::from_utf8_lossy(&version.stdout);
    assert!(text.contains("v=7.0."), "redis-server is not 7.0 ({}). {NEED_REDIS}", text.trim());
}

/// A real redis-server on a free loopback port, killed on drop (tests/support/live_server.rs;
/// `Redis::start_with(&["--requirepass", "pw"])` for options).
pub use crate::live_server::Server as Redis;

/// `redisplay serve` in this process on a free loopback port.
pub fn ours(requirepass: Option<&str>) -> Server {
    Server::start(ServeOptions {
        bind: "127.0.0.1".into(),
        port: 0,
        seed: 1,
        time: None,
        requirepass: requirepass.map(String::from),
        ..Default::default()
    })
    .expect("start redisplay's server")
}

/// One thing a client does on its connection.
#[derive(Clone, Debug)]
pub enum Step {
    /// One write.
    Send(Vec<u8>),
    /// One write per byte, a millisecond apart (so the server reads them one by one).
    Bytewise(Vec<u8>),
    /// shutdown(SHUT_WR): the server reads EOF.
    ShutWrite,
}

/// What came back on a connection.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub reply: Vec<u8>,
    /// The server closed (EOF or reset) rather than going silent.
    pub closed: bool,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", if self.closed { "closed after" } else { "open after" }, show(&self.reply))
    }
}

/// Bytes as an escaped string, long runs shortened.
pub fn show(b: &[u8]) -> String {
    let mut s = String::new();
    let mut i = 0;
    while i < b.len() {
        let mut run = 1;
        while i + run < b.len() && b[i + run] == b[i] {
            run += 1;
        }
        if run > 16 {
            s.push_str(&format!("<{run}×{}>", std::ascii::escape_default(b[i])));
            i += run;
            continue;
        }
        s.extend(std::ascii::escape_default(b[i]).map(char::from));
        i += 1;
    }
    s
}

/// Opens a connection, does `steps`, then collects every byte until the server closes the
/// connection or sends nothing for `silence` (at most 20 s in all).
pub fn exchange(port: u16, steps: &[Step], silence: Duration) -> Outcome {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_nodelay(true).unwrap();
    'steps: for step in steps {
        match step {
            Step::Send(b) => {
                if s.write_all(b).is_err() {
                    break 'steps; // the server closed while we wrote: read what it said
                }
            }
            Step::Bytewise(b) => {
                for byte in b {
                    if s.write_all(&[*byte]).is_err() {
                        break 'steps;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            Step::ShutWrite => {
                let _ = s.shutdown(Shutdown::Write);
            }
        }
    }
    read_rest(&mut s, silence)
}

/// Everything until close or `silence`.
pub fn read_rest(s: &mut TcpStream, silence: Duration) -> Outcome {
    s.set_read_timeout(Some(silence)).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut reply = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        if Instant::now() > deadline {
            return Outcome { reply, closed: false };
        }
        match s.read(&mut buf) {
            Ok(0) => return Outcome { reply, closed: true },
            Ok(n) => reply.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Outcome { reply, closed: false }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return Outcome { reply, closed: true }, // reset
        }
    }
}

/// A RESP command.
pub fn resp(args: &[&[u8]]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for a in args {
        out.extend(format!("${}\r\n", a.len()).bytes());
        out.extend_from_slice(a);
        out.extend(b"\r\n");
    }
    out
}

/// A blocking RESP2 connection that reads one reply at a time, as raw bytes.
pub struct Conn {
    pub stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    pub fn open(port: u16) -> Conn {
        Conn::open_addr(std::net::SocketAddr::from(([127, 0, 0, 1], port)))
    }

    pub fn open_addr(addr: std::net::SocketAddr) -> Conn {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_nodelay(true).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        Conn { stream, buf: Vec::new() }
    }

    fn fill(&mut self) {
        let mut chunk = [0u8; 65536];
        let n = self.stream.read(&mut chunk).unwrap_or_else(|e| panic!("reading a reply: {e}"));
        assert!(n > 0, "the server closed the connection");
        self.buf.extend_from_slice(&chunk[..n]);
    }

    fn line(&mut self) -> Vec<u8> {
        loop {
            if let Some(p) = self.buf.windows(2).position(|w| w == b"\r\n") {
                let line = self.buf[..p + 2].to_vec();
                self.buf.drain(..p + 2);
                return line;
            }
            self.fill();
        }
    }

    /// One whole reply, as the bytes the server sent.
    pub fn reply(&mut self) -> Vec<u8> {
        let line = self.line();
        let n: i64 = std::str::from_utf8(&line[1..line.len() - 2]).ok().and_then(|s| s.parse().ok()).unwrap_or(-1);
        let mut out = line.clone();
        match line[0] {
            b'$' | b'=' | b'!' if n >= 0 => {
                while self.buf.len() < n as usize + 2 {
                    self.fill();
                }
                out.extend(self.buf.drain(..n as usize + 2));
            }
            b'*' | b'~' | b'>' => (0..n.max(0)).for_each(|_| out.extend(self.reply())),
            b'%' => (0..2 * n.max(0)).for_each(|_| out.extend(self.reply())),
            _ => {}
        }
        out
    }

    pub fn call(&mut self, args: &[&str]) -> Vec<u8> {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        self.stream.write_all(&resp(&args)).expect("write a command");
        self.reply()
    }

    /// The reply's text: a status, error, integer or bulk string without its framing.
    pub fn call_text(&mut self, args: &[&str]) -> String {
        let r = self.call(args);
        let text = String::from_utf8_lossy(&r).into_owned();
        match r[0] {
            b'$' => text.split_once("\r\n").map(|(_, b)| b.trim_end_matches("\r\n").to_string()).unwrap_or_default(),
            _ => text[1..].trim_end_matches("\r\n").to_string(),
        }
    }

    /// One `field:value` of INFO.
    pub fn info_field(&mut self, field: &str) -> String {
        let text = self.call_text(&["INFO", "all"]);
        text.lines().find_map(|l| l.strip_prefix(&format!("{field}:"))).unwrap_or("").trim().to_string()
    }
}
