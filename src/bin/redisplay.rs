//! The native CLI: `redisplay [--seed N] [--time UNIX_MS] [--raw] [FILE]`.
//!
//! Reads commands from FILE (or stdin), one per line with redis-cli quoting, skips blank lines
//! and lines whose first non-blank character is `#`, runs them as one client of a fresh
//! engine, and prints each reply exactly as `redis-cli --no-raw` prints it (with `--raw`, as
//! `redis-cli --raw` does). The clock follows
//! the wall clock, like a server's, unless `--time` pins its start; `--seed` fixes the RNG.
//! With `--time`, the clock only moves when a script says so (`CLOCK ADVANCE`). A blocking
//! command (BLPOP…) waits in virtual time until its timeout; SUBSCRIBE ends the script, as
//! redis-cli then only reads messages.

use std::io::{BufRead, Read, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use redisplay::{EngineOptions, Session};

const USAGE: &str = "usage: redisplay [--seed N] [--time UNIX_MS] [--raw] [FILE]
       redisplay lru-experiment [--keys N] [--seed N]
       redisplay delay-queue [--strategy 1-6|all] [--consumers N] [--poll 1s] … (--help for all)
       redisplay serve [--port 6379] [--bind 127.0.0.1] [--seed N] [--time UNIX_MS] [--requirepass PASS]
                       [--dir D] [--dbfilename F] [--save \"SECS CHANGES ...\"] [--<any redis parameter> VALUE]
  Runs redis-cli style command lines (from FILE or stdin) against a fresh redisplay engine
  and prints the replies as `redis-cli --no-raw` would. Lines starting with # are comments.
  --seed N        seed the engine's random number generator (default: random)
  --time UNIX_MS  start the virtual clock here and keep it still (default: follow the wall clock)
  --raw           print the replies as `redis-cli --raw` would
  lru-experiment  prints the LRU-approximation table (true LRU vs maxmemory-samples 5 and 10)
  delay-queue     runs the delay-queue lab (producers and consumers on a ZSET in virtual time)
                  and prints its metrics table
  serve           the engine as a Redis server (RESP2/RESP3) for redis-cli, redis-benchmark and
                  client libraries; loopback only unless --requirepass is given. It loads D/F
                  (dump.rdb in the working directory by default) at start; SAVE and SHUTDOWN
                  write it; SHUTDOWN ends the process with status 0. With --appendonly yes it
                  keeps Redis 7.0's multi-part AOF in D/appendonlydir instead, loaded at start
";

/// `redisplay serve …`: runs until killed. (Native only: the wasm build has no sockets.)
#[cfg(not(target_arch = "wasm32"))]
fn serve(args: impl Iterator<Item = String>) {
    let mut opts = match redisplay::net::server::parse_args(args) {
        Ok(o) => o,
        Err(msg) => fail(&format!("serve: {msg}")),
    };
    opts.log = true;
    let clock = match opts.time {
        Some(t) => format!("clock pinned at {t} ms (CLOCK ADVANCE moves it)"),
        None => "clock follows the wall clock".into(),
    };
    match redisplay::net::server::Server::start(opts) {
        Ok(server) => {
            eprintln!("redisplay (Redis 7.0.15 engine) ready to accept connections on {}; {clock}", server.addr);
            // Until SHUTDOWN (exit status 0) or a signal.
            server.wait();
        }
        // A data file that doesn't load, a directory that isn't one: as redis-server, status 1.
        Err(e) if matches!(e.kind(), std::io::ErrorKind::InvalidData | std::io::ErrorKind::InvalidInput) => {
            eprintln!("redisplay: serve: {e}");
            std::process::exit(1);
        }
        Err(e) => fail(&format!("serve: {e}")),
    }
}

fn wall_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// `redisplay lru-experiment [--keys N] [--seed N]`.
fn lru_experiment(args: impl Iterator<Item = String>) {
    let mut keys = 5000usize;
    let mut seed = 1u64;
    let mut args = args;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--keys" => match args.next().and_then(|v| v.parse().ok()) {
                Some(v) if (10..=200_000).contains(&v) => keys = v,
                _ => fail("--keys needs a number between 10 and 200000"),
            },
            "--seed" => match args.next().and_then(|v| v.parse().ok()) {
                Some(v) => seed = v,
                None => fail("--seed needs an unsigned integer"),
            },
            _ => fail(&format!("unknown lru-experiment option {a}")),
        }
    }
    print!("{}", redisplay::sim::lru_experiment::table(keys, &[5, 10], seed));
}

/// `redisplay delay-queue [flags]`.
fn delay_queue(args: Vec<String>) {
    use redisplay::sim::delay_queue::cli::{parse_cli, run_cli, CLI_USAGE};
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{CLI_USAGE}");
        return;
    }
    match parse_cli(&args) {
        Ok(req) => print!("{}", run_cli(&req)),
        Err(msg) => fail(&format!("delay-queue: {msg}")),
    }
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("delay-queue") {
        delay_queue(std::env::args().skip(2).collect());
        return;
    }
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::args().nth(1).as_deref() == Some("serve") {
        serve(std::env::args().skip(2));
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("lru-experiment") {
        lru_experiment(std::env::args().skip(2));
        return;
    }
    let mut seed: Option<u64> = None;
    let mut time: Option<i64> = None;
    let mut file: Option<String> = None;
    let mut raw = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seed" => match args.next().and_then(|v| v.parse().ok()) {
                Some(v) => seed = Some(v),
                None => fail("--seed needs an unsigned integer"),
            },
            "--time" => match args.next().and_then(|v| v.parse().ok()) {
                Some(v) if v >= 0 => time = Some(v),
                _ => fail("--time needs a Unix time in milliseconds"),
            },
            "--raw" => raw = true,
            "--no-raw" => raw = false,
            "-h" | "--help" => {
                print!("{USAGE}");
                return;
            }
            _ if a.starts_with("--") => fail(&format!("unknown option {a}")),
            _ => file = Some(a),
        }
    }
    let seed = seed.unwrap_or_else(|| {
        let mut b = [0u8; 8];
        getrandom::fill(&mut b).map(|_| u64::from_le_bytes(b)).unwrap_or(0)
    });
    let follow_wall_clock = time.is_none();
    let start_ms = time.unwrap_or_else(wall_ms);
    let mut session = Session::new(EngineOptions { seed, start_ms });
    session.set_raw(0, raw);
    // redis-cli shows RESP3 push messages when its output is a terminal.
    session.show_pushes = std::io::IsTerminal::is_terminal(&std::io::stdout());
    // No views here: don't build events nobody will read.
    session.engine.set_event_recording(false);

    let mut input: Box<dyn BufRead> = match &file {
        Some(path) => match std::fs::File::open(path) {
            Ok(f) => Box::new(std::io::BufReader::new(f)),
            Err(e) => fail(&format!("cannot open {path}: {e}")),
        },
        None => Box::new(std::io::BufReader::new(std::io::stdin())),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => fail(&format!("read error: {e}")),
        }
        while matches!(line.last(), Some(b'\n') | Some(b'\r')) {
            line.pop();
        }
        let trimmed: &[u8] = {
            let start = line.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(line.len());
            &line[start..]
        };
        if trimmed.is_empty() || trimmed[0] == b'#' {
            continue;
        }
        if follow_wall_clock {
            let now = wall_ms();
            if now > session.engine.now_ms() {
                session.engine.advance_to(now, u64::MAX);
            }
        }
        let result = session.run_line(&line);
        let _ = out.write_all(&result.text);
        if result.quit {
            break;
        }
        // One client, so nobody can serve a blocked command: redis-cli would wait for its
        // timeout, so the virtual clock runs until it (and the reply prints); without one it
        // would wait forever. As in Redis 7.0, where no timer wakes the event loop for a blocked
        // client, the timeout is noticed by the first beforeSleep at or after it — with nothing
        // else happening, the one after the next serverCron tick (which may expire keys first).
        // A command held by CLIENT PAUSE waits for the pause to end, in virtual time too.
        while session.is_waiting(0) {
            // A long script: nobody else can stop it, so it runs to its end (or to the
            // playground's time limit).
            if session.engine.busy_script().is_some() {
                session.engine.run_script_slice(10_000_000);
                let _ = out.write_all(&session.poll(0));
                continue;
            }
            let timeout = session.engine.next_block_timeout();
            let pause_end = session.engine.pause_end_ms().filter(|&end| end < redisplay::engine::MAX_CLOCK_MS);
            if timeout == 0 && pause_end.is_none() {
                eprintln!("redisplay: redis-cli would wait here forever (no other client can answer it); stopping");
                let _ = out.flush();
                std::process::exit(1);
            }
            let tick = session.engine.next_cron_ms();
            let target = match pause_end {
                Some(end) if timeout == 0 => tick.max(end.saturating_add(1)),
                _ => tick,
            };
            session.engine.advance_to(target, u64::MAX);
            let _ = out.write_all(&session.poll(0));
        }
        // redis-cli reads messages (or MONITOR's lines) until Ctrl-C and never reads another line.
        if result.subscribed {
            break;
        }
    }
    let _ = out.flush();
    // Drain stdin so a writer piping into us never sees EPIPE.
    if file.is_none() {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("redisplay: {msg}");
    eprint!("{USAGE}");
    std::process::exit(2);
}
