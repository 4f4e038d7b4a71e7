//! Real clients against `redisplay serve`, next to a real redis-server 7.0:
//! 1. redis-cli — piped into its interactive mode and one-shot (`--no-raw`, and `-3`): the same
//!    stdout as from redis-server.
//! 2. redis-benchmark, with and without `-P 16`: every test runs and reports its rate; the data
//!    is there afterwards and the server still answers.
//! 3. redis-py (PyPI `redis` 5.x, installed by scripts/setup.sh test in .venv-tests/): the
//!    scripted workload tests/clients/workload.py prints one line per step; its output against
//!    redisplay must equal its output against redis-server, over RESP2 and over RESP3.
//! 4. CLOCK through the server: TTLs pass with CLOCK ADVANCE, not with real time when pinned.
//! 5. requirepass, and binding beyond loopback without one refused.
//!
//! redis-server, redis-cli, redis-benchmark and the venv are required (scripts/setup.sh test
//! installs them): without them this FAILS.

// Sockets and `redisplay::net::server` exist only natively (`cargo test --target wasm32` builds every test target).
#![cfg(not(target_arch = "wasm32"))]

#[path = "clients/servers.rs"]
mod servers;

#[path = "support/live_server.rs"]
mod live_server;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use redisplay::net::server::{ServeOptions, Server};
use servers::{ours, Conn, Redis, NEED_REDIS};

fn run(cmd: &mut Command, stdin: &[u8]) -> (Vec<u8>, Vec<u8>, i32) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}. {NEED_REDIS}"));
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    let writer = thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait for the child");
    writer.join().unwrap();
    (out.stdout, out.stderr, out.status.code().unwrap_or(-1))
}

/// A readable line diff (longest common subsequence), `-` redis-server, `+` redisplay.
fn diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push_str(&format!("+ {}\n", b[j]));
            j += 1;
        } else {
            out.push_str(&format!("- {}\n", a[i]));
            i += 1;
        }
    }
    out
}

fn assert_same(what: &str, redis: &[u8], ours: &[u8]) {
    let (r, o) = (String::from_utf8_lossy(redis), String::from_utf8_lossy(ours));
    assert!(r == o, "{what}: output differs (- redis-server, + redisplay):\n{}", diff(&r, &o));
}

// ---------------------------------------------------------------------------------------------
// 1. redis-cli
// ---------------------------------------------------------------------------------------------

const CLI_SCRIPT: &[&str] = &[
    "SET k v",
    "GET k",
    "INCR n",
    "INCRBY n 41",
    "HSET h a 1 b 2",
    "HGETALL h",
    "ZADD z 1 a 2.5 b -3 c",
    "ZRANGE z 0 -1 WITHSCORES",
    "ZSCORE z b",
    "RPUSH l x y z",
    "LRANGE l 0 -1",
    "SADD s 3 1 2",
    "SMEMBERS s",
    "GET nokey",
    "LPUSH k x",
    "INCR k",
    "NOSUCHCOMMAND a",
    "SET x \"two words\"",
    "GET x",
    "MGET k nokey x",
    "EXISTS k nokey",
    "TYPE h",
    "DEL k n h z l s x",
    "DBSIZE",
];

fn cli_outputs(port: u16) -> Vec<(String, Vec<u8>)> {
    let p = port.to_string();
    let script = CLI_SCRIPT.iter().map(|l| format!("{l}\n")).collect::<String>();
    let mut outs = Vec::new();
    for (label, extra) in
        [("piped", &[][..]), ("piped --no-raw", &["--no-raw"][..]), ("piped -3 --no-raw", &["-3", "--no-raw"][..])]
    {
        let (stdout, stderr, code) = run(Command::new("redis-cli").args(["-p", &p]).args(extra), script.as_bytes());
        outs.push((format!("redis-cli {label} (stdout)"), stdout));
        outs.push((format!("redis-cli {label} (stderr, exit {code})"), stderr));
    }
    for (label, extra) in [("--no-raw", &["--no-raw"][..]), ("-3 --no-raw", &["-3", "--no-raw"][..]), ("raw", &[][..])]
    {
        for line in CLI_SCRIPT {
            let words = redisplay::tokenize::split_args(line.as_bytes()).expect("a well-quoted line");
            let words: Vec<String> = words.iter().map(|w| String::from_utf8_lossy(w).into_owned()).collect();
            let (stdout, stderr, code) = run(Command::new("redis-cli").args(["-p", &p]).args(extra).args(&words), b"");
            outs.push((format!("redis-cli {label} {line} (stdout)"), stdout));
            outs.push((format!("redis-cli {label} {line} (stderr, exit {code})"), stderr));
        }
    }
    outs
}

#[test]
fn redis_cli_prints_the_same_as_against_redis_server() {
    let redis = Redis::start_with(&[]);
    let server = ours(None);
    let theirs = cli_outputs(redis.port());
    let mine = cli_outputs(server.addr.port());
    let mut failures = Vec::new();
    for ((label, t), (_, m)) in theirs.iter().zip(&mine) {
        if t != m {
            let (t, m) = (String::from_utf8_lossy(t), String::from_utf8_lossy(m));
            failures.push(format!("{label}:\n{}", diff(&t, &m)));
        }
    }
    assert!(!theirs[0].1.is_empty(), "redis-cli printed nothing");
    assert!(failures.is_empty(), "redis-cli output differs (- redis-server, + redisplay):\n{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// 2. redis-benchmark
// ---------------------------------------------------------------------------------------------

const BENCH_TESTS: &str = "set,get,incr,lpush,rpop,sadd,hset,zadd,lrange_100";
const BENCH_NAMES: &[&str] =
    &["SET", "GET", "INCR", "LPUSH", "RPOP", "SADD", "HSET", "ZADD", "LRANGE_100 (first 100 elements)"];

/// Runs redis-benchmark; returns each test's requests per second.
fn benchmark(port: u16, pipeline: u32) -> Vec<(String, f64)> {
    let (stdout, stderr, code) = run(
        Command::new("redis-benchmark").args([
            "-p",
            &port.to_string(),
            "-t",
            BENCH_TESTS,
            "-n",
            "2000",
            "-q",
            "-P",
            &pipeline.to_string(),
        ]),
        b"",
    );
    let text = String::from_utf8_lossy(&stdout);
    assert_eq!(code, 0, "redis-benchmark -P {pipeline} exited {code}: {text}\n{}", String::from_utf8_lossy(&stderr));
    // -q prints progress lines ended by \r, then "NAME: N requests per second, p50=…".
    let rates: Vec<(String, f64)> = text
        .split(['\r', '\n'])
        .filter_map(|l| {
            let (name, rest) = l.trim().split_once(": ")?;
            let rps = rest.split_once(" requests per second")?.0;
            Some((name.to_string(), rps.parse().ok()?))
        })
        .collect();
    for name in BENCH_NAMES {
        assert!(
            rates.iter().any(|(n, r)| n == name && *r > 0.0),
            "redis-benchmark -P {pipeline}: no rate for {name}:\n{text}"
        );
    }
    rates
}

#[test]
fn redis_benchmark_runs_with_and_without_pipelining() {
    let server = ours(None);
    let redis = Redis::start_with(&[]);
    let mut table = String::new();
    for pipeline in [1, 16] {
        let mine = benchmark(server.addr.port(), pipeline);
        let theirs = benchmark(redis.port(), pipeline);
        for (name, rps) in &mine {
            let other = theirs.iter().find(|(n, _)| n == name).map_or(0.0, |(_, r)| *r);
            table.push_str(&format!(
                "-P {pipeline:<2} {name:<36} redisplay {rps:>10.0}/s   redis-server {other:>10.0}/s\n"
            ));
        }
    }
    eprintln!("redis-benchmark -n 2000 (redisplay in this test binary, debug build unless --release):\n{table}");
    let mut c = Conn::open(server.addr.port());
    let dbsize: i64 = c.call_text(&["DBSIZE"]).parse().unwrap();
    assert!(dbsize > 0, "DBSIZE {dbsize} after redis-benchmark");
    assert_eq!(c.call(&["STRLEN", "key:__rand_int__"]), b":3\r\n");
    assert_eq!(c.call(&["PING"]), b"+PONG\r\n");
    // redis-benchmark's 50 clients are gone.
    let deadline = Instant::now() + Duration::from_secs(10);
    while c.info_field("connected_clients") != "1" && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(c.info_field("connected_clients"), "1");
}

// ---------------------------------------------------------------------------------------------
// 3. redis-py
// ---------------------------------------------------------------------------------------------

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn venv_python() -> PathBuf {
    let python = root().join(".venv-tests/bin/python");
    let ok = Command::new(&python).args(["-c", "import redis; assert redis.__version__.startswith('5.')"]).output();
    assert!(
        ok.as_ref().is_ok_and(|o| o.status.success()),
        "{} with redis-py 5.x is required: run scripts/setup.sh test (it makes the venv .venv-tests/){}",
        python.display(),
        ok.map(|o| format!(": {}", String::from_utf8_lossy(&o.stderr))).unwrap_or_default()
    );
    python
}

fn workload(python: &Path, port: u16, protocol: u32) -> (Vec<u8>, Vec<u8>) {
    let script = root().join("tests/clients/workload.py");
    let (stdout, stderr, code) =
        run(Command::new(python).arg(&script).args([port.to_string(), protocol.to_string()]), b"");
    assert_eq!(
        code,
        0,
        "workload.py against port {port}, RESP{protocol} exited {code}:\n{}",
        String::from_utf8_lossy(&stderr)
    );
    (stdout, stderr)
}

fn redis_py_workload(protocol: u32) {
    let python = venv_python();
    let redis = Redis::start_with(&[]);
    let server = ours(None);
    let (theirs, mine) = thread::scope(|s| {
        let t = s.spawn(|| workload(&python, redis.port(), protocol));
        (t.join().unwrap(), workload(&python, server.addr.port(), protocol))
    });
    assert!(theirs.0.len() > 1000, "the workload printed little:\n{}", String::from_utf8_lossy(&theirs.0));
    // stderr holds what redis-py logs, e.g. "Push response: …" for RESP3 push frames.
    let both = |o: &(Vec<u8>, Vec<u8>)| [o.0.as_slice(), b"--- stderr ---\n", o.1.as_slice()].concat();
    assert_same(&format!("redis-py workload over RESP{protocol}"), &both(&theirs), &both(&mine));
}

#[test]
fn redis_py_workload_resp2_matches_redis_server() {
    redis_py_workload(2);
}

#[test]
fn redis_py_workload_resp3_matches_redis_server() {
    redis_py_workload(3);
}

// ---------------------------------------------------------------------------------------------
// 4. CLOCK through the server
// ---------------------------------------------------------------------------------------------

#[test]
fn clock_advance_expires_keys_without_sleeping() {
    let server = ours(None);
    let mut c = Conn::open(server.addr.port());
    let before: i64 = c.call_text(&["CLOCK", "GET"]).parse().unwrap();
    assert_eq!(c.call(&["SET", "k", "v", "PX", "1500"]), b"+OK\r\n");
    assert_eq!(c.call(&["SET", "long", "v", "EX", "100"]), b"+OK\r\n");
    let started = Instant::now();
    let advanced: i64 = c.call_text(&["CLOCK", "ADVANCE", "2000"]).parse().expect("CLOCK ADVANCE answers the new time");
    assert_eq!(c.call(&["GET", "k"]), b"$-1\r\n");
    assert_eq!(c.call(&["EXISTS", "k"]), b":0\r\n");
    assert_eq!(c.call(&["TTL", "long"]), b":98\r\n");
    let after: i64 = c.call_text(&["CLOCK", "GET"]).parse().unwrap();
    assert!(after >= advanced && advanced - before >= 2000);
    let real = started.elapsed().as_millis() as i64;
    assert!(after - before >= 2000 && after - before <= 2000 + real + 1000, "CLOCK GET moved {} ms", after - before);
    // The wall clock goes on from the advanced time (an offset, not a pin).
    let later: i64 = c.call_text(&["CLOCK", "GET"]).parse().unwrap();
    assert!(later >= after);
    // Another client sees the same time and the same expiry.
    let mut d = Conn::open(server.addr.port());
    assert_eq!(d.call(&["GET", "k"]), b"$-1\r\n");
    assert!(d.call_text(&["CLOCK", "GET"]).parse::<i64>().unwrap() >= after);
}

#[test]
fn a_pinned_clock_only_moves_with_clock_commands() {
    const T: i64 = 1_700_000_000_000;
    let server =
        Server::start(ServeOptions { bind: "127.0.0.1".into(), port: 0, seed: 1, time: Some(T), ..Default::default() })
            .unwrap();
    let mut c = Conn::open(server.addr.port());
    assert_eq!(c.call_text(&["CLOCK", "GET"]), T.to_string());
    assert_eq!(c.call(&["SET", "t", "v", "EX", "100"]), b"+OK\r\n");
    assert_eq!(c.call(&["SET", "short", "v", "PX", "100"]), b"+OK\r\n");
    // A real wait: nothing moves (the server's cron keeps running meanwhile).
    thread::sleep(Duration::from_millis(400));
    assert_eq!(c.call(&["PTTL", "t"]), b":100000\r\n");
    assert_eq!(c.call(&["PTTL", "short"]), b":100\r\n");
    assert_eq!(c.call_text(&["GET", "short"]), "v");
    assert_eq!(c.call_text(&["CLOCK", "GET"]), T.to_string());
    let time = c.call(&["TIME"]);
    assert!(
        time.starts_with(format!("*2\r\n$10\r\n{}\r\n", T / 1000).as_bytes()),
        "{}",
        String::from_utf8_lossy(&time)
    );
    // CLOCK moves it.
    assert_eq!(c.call_text(&["CLOCK", "ADVANCE", "500"]), (T + 500).to_string());
    assert_eq!(c.call_text(&["CLOCK", "GET"]), (T + 500).to_string());
    assert_eq!(c.call(&["PTTL", "t"]), b":99500\r\n");
    assert_eq!(c.call(&["GET", "short"]), b"$-1\r\n");
    c.call(&["CLOCK", "SET", &(T + 60_000).to_string()]);
    assert_eq!(c.call(&["TTL", "t"]), b":40\r\n");
    thread::sleep(Duration::from_millis(200));
    assert_eq!(c.call_text(&["CLOCK", "GET"]), (T + 60_000).to_string());
}

/// The binary: `redisplay serve --port 0 --time MS` says where it listens, and serves there.
#[test]
fn the_serve_command_pins_the_clock_and_refuses_a_public_bind_without_a_password() {
    let exe = env!("CARGO_BIN_EXE_redisplay");
    let mut child = Command::new(exe)
        .args(["serve", "--port", "0", "--time", "1700000000000", "--seed", "3"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start redisplay serve");
    let mut banner = String::new();
    BufReader::new(child.stderr.take().unwrap()).read_line(&mut banner).unwrap();
    let addr = banner
        .split(" on ")
        .nth(1)
        .and_then(|s| s.split(';').next())
        .unwrap_or_else(|| panic!("no address in {banner:?}"));
    let port: u16 = addr.rsplit(':').next().unwrap().parse().unwrap();
    let result = std::panic::catch_unwind(|| {
        let mut c = Conn::open(port);
        assert_eq!(c.call_text(&["CLOCK", "GET"]), "1700000000000");
        assert_eq!(c.call(&["PING"]), b"+PONG\r\n");
    });
    let _ = child.kill();
    let _ = child.wait();
    result.unwrap();

    let out = Command::new(exe).args(["serve", "--port", "0", "--bind", "0.0.0.0"]).output().unwrap();
    assert!(!out.status.success(), "serve --bind 0.0.0.0 without a password started");
    assert!(String::from_utf8_lossy(&out.stderr).contains("requirepass"), "{}", String::from_utf8_lossy(&out.stderr));
}

// ---------------------------------------------------------------------------------------------
// 5. requirepass
// ---------------------------------------------------------------------------------------------

#[test]
fn requirepass_is_enforced_and_public_binds_need_it() {
    let server = ours(Some("s3cret"));
    let mut c = Conn::open(server.addr.port());
    assert_eq!(c.call(&["GET", "k"]), b"-NOAUTH Authentication required.\r\n");
    assert_eq!(c.call(&["AUTH", "nope"]), b"-WRONGPASS invalid username-password pair or user is disabled.\r\n");
    assert_eq!(
        c.call(&["AUTH", "default", "nope"]),
        b"-WRONGPASS invalid username-password pair or user is disabled.\r\n"
    );
    assert_eq!(c.call(&["SET", "k", "v"]), b"-NOAUTH Authentication required.\r\n");
    assert_eq!(c.call(&["AUTH", "s3cret"]), b"+OK\r\n");
    assert_eq!(c.call(&["SET", "k", "v"]), b"+OK\r\n");
    assert_eq!(c.call(&["GET", "k"]), b"$1\r\nv\r\n");
    // Each connection authenticates on its own; HELLO AUTH does it too.
    let mut d = Conn::open(server.addr.port());
    assert_eq!(d.call(&["GET", "k"]), b"-NOAUTH Authentication required.\r\n");
    let hello = d.call(&["HELLO", "3", "AUTH", "default", "s3cret"]);
    assert!(hello.starts_with(b"%7\r\n"), "{}", String::from_utf8_lossy(&hello));
    assert_eq!(d.call(&["GET", "k"]), b"$1\r\nv\r\n");
    // redis-cli -a works.
    let (stdout, _, code) = run(
        Command::new("redis-cli").args([
            "-p",
            &server.addr.port().to_string(),
            "--no-auth-warning",
            "-a",
            "s3cret",
            "GET",
            "k",
        ]),
        b"",
    );
    assert_eq!((stdout, code), (b"v\n".to_vec(), 0));

    // Binding beyond loopback without a password is refused; loopback names are fine.
    for bind in ["0.0.0.0", "::"] {
        for pass in [None, Some(String::new())] {
            let r = Server::start(ServeOptions {
                bind: bind.into(),
                port: 0,
                seed: 0,
                time: None,
                requirepass: pass.clone(),
                ..Default::default()
            });
            assert!(r.is_err(), "bind {bind} with password {pass:?} started");
            assert_eq!(r.err().unwrap().kind(), std::io::ErrorKind::InvalidInput);
        }
    }
    for bind in ["127.0.0.1", "localhost"] {
        let s = Server::start(ServeOptions {
            bind: bind.into(),
            port: 0,
            seed: 0,
            time: None,
            requirepass: None,
            ..Default::default()
        })
        .unwrap();
        assert!(s.addr.ip().is_loopback(), "{bind} → {}", s.addr);
        assert_eq!(Conn::open_addr(s.addr).call(&["PING"]), b"+PONG\r\n");
    }
    let public = Server::start(ServeOptions {
        bind: "0.0.0.0".into(),
        port: 0,
        seed: 0,
        time: None,
        requirepass: Some("pw".into()),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(Conn::open(public.addr.port()).call(&["PING"]), b"-NOAUTH Authentication required.\r\n");
}
