//! Eviction side by side with a real redis-server 7.0: `maxmemory 2mb`, `allkeys-lru`, then
//! 20,000 × `SET key:N valueN` over one connection, then `INFO` (evicted_keys) and `DBSIZE`, the
//! same commands in the same order on both. The engine's evicted_keys and DBSIZE must be within
//! 5% of the server's: that checks the used_memory model (per-key sizes, bucket arrays, the
//! startup and client baselines, the per-command latency histograms) and the eviction loop.

#[path = "support/live_server.rs"]
mod live_server;

use live_server::{check_tools, Server};
use redisplay::{Engine, EngineOptions, Reply};

const N: usize = 20_000;

fn setup() -> Vec<Vec<String>> {
    vec![
        vec!["CONFIG".into(), "SET".into(), "maxmemory".into(), "2mb".into()],
        vec!["CONFIG".into(), "SET".into(), "maxmemory-policy".into(), "allkeys-lru".into()],
        vec!["CONFIG".into(), "RESETSTAT".into()],
    ]
}

fn field(info: &str, name: &str) -> u64 {
    info.lines().find_map(|l| l.strip_prefix(&format!("{name}:"))).unwrap_or("0").trim().parse().unwrap_or(0)
}

#[test]
fn evicted_keys_and_dbsize_within_five_percent_of_redis_server() {
    check_tools();
    let server = Server::start();
    let mut r = server.connect();
    for cmd in setup() {
        let args: Vec<&str> = cmd.iter().map(|s| s.as_str()).collect();
        r.call(&args);
    }
    for i in 0..N {
        r.call(&["SET", &format!("key:{i}"), &format!("value{i}")]);
    }
    let real_evicted = field(&r.call(&["INFO", "all"]), "evicted_keys");
    let real_dbsize: u64 = r.call(&["DBSIZE"]).parse().unwrap();

    let mut e = Engine::new(EngineOptions { seed: 3, start_ms: 1_700_000_000_000 });
    e.set_event_recording(false);
    let c = e.connect();
    let run = |e: &mut Engine, args: &[String]| {
        let argv: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        let reply = e.execute(c, &argv);
        e.before_sleep();
        reply
    };
    for cmd in setup() {
        run(&mut e, &cmd);
    }
    for i in 0..N {
        run(&mut e, &["SET".into(), format!("key:{i}"), format!("value{i}")]);
    }
    let Reply::Bulk(info) = run(&mut e, &["INFO".into(), "all".into()]).into_resp2() else { panic!("INFO") };
    let evicted = field(&String::from_utf8_lossy(&info), "evicted_keys");
    let Reply::Integer(dbsize) = run(&mut e, &["DBSIZE".into()]) else { panic!("DBSIZE") };
    let report = format!(
        "redis-server: evicted {real_evicted}, dbsize {real_dbsize}; engine: evicted {evicted}, dbsize {dbsize}"
    );
    eprintln!("{report}");
    let close = |a: u64, b: u64| (a as f64 - b as f64).abs() <= 0.05 * b as f64;
    assert!(real_evicted > 1000, "the server must have evicted: {report}");
    assert!(close(evicted, real_evicted), "{report}");
    assert!(close(dbsize as u64, real_dbsize), "{report}");
}
