//! A real redis-server 7.0 on a free loopback port, for the live tests (the differential, the
//! `*_live.rs` files, the `server_*.rs` ones): started fresh, killed and cleaned up on drop.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const NEED_REDIS: &str = "redis-server 7.0.15 and redis-cli are required by the live differential test \
     (tests/differential.rs). Run the README's test command, scripts/test.sh, which installs them \
     (scripts/setup.sh test); or: apt-get install redis-server";

pub fn check_tools() {
    let version = Command::new("redis-server").arg("--version").output();
    let Ok(version) = version else { panic!("redis-server not found. {NEED_REDIS}") };
    let text = String::from_utf8_lossy(&version.stdout);
    assert!(text.contains("v=7.0."), "redis-server is not 7.0 ({}). {NEED_REDIS}", text.trim());
    if Command::new("redis-cli").arg("--version").output().is_err() {
        panic!("redis-cli not found. {NEED_REDIS}");
    }
}

pub struct Server {
    pub child: Child,
    port: u16,
    dir: PathBuf,
}

impl Server {
    pub fn start() -> Server {
        Server::start_with(&[])
    }

    /// A fresh redis-server with extra options (e.g. `--requirepass pw`).
    pub fn start_with(extra: &[&str]) -> Server {
        for attempt in 0..5 {
            let port =
                TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port");
            let dir = std::env::temp_dir().join(format!("redisplay-diff-{}-{port}-{attempt}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let child = Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
                .arg("--dir")
                .arg(&dir)
                .args(["--daemonize", "no", "--logfile", ""])
                .args(extra)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start redis-server: {e}. {NEED_REDIS}"));
            let mut server = Server { child, port, dir };
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                if let Ok(conn) = std::net::TcpStream::connect(("127.0.0.1", port)) {
                    // Ours, and not another test's server that took the port first (ours then
                    // fails to bind and exits).
                    if serves_pid(conn, server.child.id()) {
                        return server;
                    }
                    break;
                }
                if let Ok(Some(_)) = server.child.try_wait() {
                    break; // the port was taken meanwhile: try another
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            drop(server);
        }
        panic!("redis-server did not start on a loopback port after 5 attempts");
    }

    /// Everything redis-cli prints for `input` (its interactive mode, reading lines from a pipe).
    pub fn cli(&self, input: &[u8]) -> Vec<u8> {
        cli_on(self.port, input)
    }
}

/// Whether the server behind `conn` is the process `pid` (its INFO's `process_id`).
fn serves_pid(mut conn: TcpStream, pid: u32) -> bool {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
    if conn.write_all(b"*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n").is_err() {
        return false;
    }
    let want = format!("process_id:{pid}\r\n");
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = conn.read(&mut buf) {
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
        // NOAUTH behind requirepass: nothing to compare.
        if got.first() == Some(&b'-') {
            return true;
        }
        let text = String::from_utf8_lossy(&got);
        if text.contains(&want) {
            return true;
        }
        if text.contains("process_id:") && text.contains("run_id:") {
            return false;
        }
    }
    false
}

/// Everything redis-cli prints for `input` against the server on `port` (redis-server, or
/// `redisplay serve` in tests/server_live.rs).
pub fn cli_on(port: u16, input: &[u8]) -> Vec<u8> {
    {
        let mut child = Command::new("redis-cli")
            .args(["-p", &port.to_string(), "--no-raw"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run redis-cli: {e}. {NEED_REDIS}"));
        let mut stdin = child.stdin.take().unwrap();
        let input = input.to_vec();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let out = child.wait_with_output().expect("redis-cli output");
        writer.join().unwrap();
        assert!(out.stderr.is_empty(), "redis-cli wrote to stderr: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Server {
    #[allow(dead_code)]
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's own `--dir` (where SAVE writes), removed with it.
    #[allow(dead_code)]
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// A RESP connection reading `Reply` values.
    pub fn connect_conn(&self) -> Conn {
        Conn::open(self.port)
    }

    /// A plain RESP connection to the server.
    pub fn connect(&self) -> Resp {
        let stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect to redis-server");
        stream.set_nodelay(true).ok();
        Resp { stream, buf: Vec::new() }
    }
}

/// A minimal RESP2 client: sends commands, reads replies as text (integers, bulks and
/// statuses as their text; arrays flattened, one element per line).
pub struct Resp {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Resp {
    fn encode(args: &[&str]) -> Vec<u8> {
        let mut out = format!("*{}\r\n", args.len()).into_bytes();
        for a in args {
            out.extend(format!("${}\r\n", a.len()).bytes());
            out.extend(a.bytes());
            out.extend(b"\r\n");
        }
        out
    }

    fn line(&mut self) -> Vec<u8> {
        loop {
            if let Some(p) = self.buf.windows(2).position(|w| w == b"\r\n") {
                let line = self.buf[..p].to_vec();
                self.buf.drain(..p + 2);
                return line;
            }
            let mut chunk = [0u8; 65536];
            let n = self.stream.read(&mut chunk).expect("read from redis-server");
            assert!(n > 0, "redis-server closed the connection");
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    fn reply(&mut self) -> String {
        let line = self.line();
        let rest = String::from_utf8_lossy(&line[1..]).into_owned();
        match line[0] {
            b'$' => {
                let n: i64 = rest.parse().unwrap();
                if n < 0 {
                    return "(nil)".into();
                }
                while self.buf.len() < n as usize + 2 {
                    let mut chunk = [0u8; 65536];
                    let got = self.stream.read(&mut chunk).expect("read");
                    self.buf.extend_from_slice(&chunk[..got]);
                }
                let body = String::from_utf8_lossy(&self.buf[..n as usize]).into_owned();
                self.buf.drain(..n as usize + 2);
                body
            }
            b'*' => {
                let n: i64 = rest.parse().unwrap();
                (0..n.max(0)).map(|_| self.reply()).collect::<Vec<_>>().join("\n")
            }
            _ => rest,
        }
    }

    pub fn call(&mut self, args: &[&str]) -> String {
        self.stream.write_all(&Self::encode(args)).expect("write to redis-server");
        self.reply()
    }

    /// Sends a command without reading its reply (a blocking command); `read_reply` later.
    pub fn send(&mut self, args: &[&str]) {
        self.stream.write_all(&Self::encode(args)).expect("write to redis-server");
    }

    pub fn read_reply(&mut self) -> String {
        self.reply()
    }

    /// Sends many commands at once and reads all their replies.
    pub fn pipeline(&mut self, cmds: &[Vec<String>]) -> Vec<String> {
        let mut out = Vec::new();
        for c in cmds {
            let args: Vec<&str> = c.iter().map(|s| s.as_str()).collect();
            out.extend(Self::encode(&args));
        }
        self.stream.write_all(&out).expect("write to redis-server");
        cmds.iter().map(|_| self.reply()).collect()
    }

    /// One `field:value` of INFO.
    pub fn info_field(&mut self, field: &str) -> String {
        let text = self.call(&["INFO", "all"]);
        text.lines().find_map(|l| l.strip_prefix(&format!("{field}:"))).unwrap_or("").trim().to_string()
    }
}

/// A reply as one line of text per element, for comparing an engine's reply with the real
/// server's (integers, bulks, statuses and errors as their text, `(nil)`, arrays one per line).
pub fn reply_text(r: &redisplay::Reply) -> String {
    use redisplay::Reply;
    match r {
        Reply::Integer(n) => n.to_string(),
        Reply::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        Reply::Status(s) => s.clone(),
        Reply::Error(e) => String::from_utf8_lossy(e).into_owned(),
        Reply::Nil => "(nil)".into(),
        Reply::Array(items) => items.iter().map(reply_text).collect::<Vec<_>>().join("\n"),
        other => format!("{other:?}"),
    }
}

/// A RESP connection speaking bytes: each command's reply as a `Reply` (dump_live.rs,
/// rdb_live.rs).
pub struct Conn {
    pub stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    pub fn open(port: u16) -> Conn {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream.set_nodelay(true).ok();
        Conn { stream, buf: Vec::new() }
    }

    pub fn call(&mut self, argv: &[Vec<u8>]) -> redisplay::Reply {
        let mut out = format!("*{}\r\n", argv.len()).into_bytes();
        for a in argv {
            out.extend(format!("${}\r\n", a.len()).bytes());
            out.extend_from_slice(a);
            out.extend_from_slice(b"\r\n");
        }
        self.stream.write_all(&out).unwrap();
        loop {
            if let Some((reply, used)) = redisplay::reply::parse_resp(&self.buf) {
                self.buf.drain(..used);
                return reply;
            }
            let mut chunk = [0u8; 1 << 16];
            let n = self.stream.read(&mut chunk).unwrap();
            assert!(n > 0, "the server closed the connection");
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }
}
