//! SORT (src/command/sort.rs) on big lists next to a real redis-server 7.0.15 — where the
//! exact sorting algorithms show: ties under ALPHA BY a pattern keep the order glibc's merge
//! sort leaves them in, and BY with LIMIT goes through pqsort.c, whose partitioning decides
//! which of several equal elements make the cut. Plus the playground's cap on what GET
//! patterns may fetch.

#[path = "support/live_server.rs"]
mod live_server;

use live_server::{check_tools, reply_text as text, Server};
use redisplay::{Engine, EngineOptions, Reply};

/// splitmix64, for the data.
fn next(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[test]
fn big_sorts_with_ties_match_redis_server() {
    check_tools();
    let server = Server::start();
    let mut r = server.connect();
    let mut e = Engine::new(EngineOptions { seed: 3, start_ms: 1_735_689_600_000 });
    e.set_event_recording(false);
    let client = e.connect();
    let mut x = 2024u64;
    let mut setup: Vec<Vec<String>> = Vec::new();
    // 20,000 elements with many duplicates; weights with many ties (and some missing).
    for chunk in 0..20 {
        let mut cmd = vec!["RPUSH".to_string(), "big".to_string()];
        cmd.extend((0..1000).map(|_| format!("e{}", next(&mut x) % 5000)));
        setup.push(cmd);
        let mut w = vec!["MSET".to_string()];
        for i in 0..250 {
            w.push(format!("w_e{}", chunk * 250 + i));
            w.push(format!("{}", next(&mut x) % 7));
        }
        setup.push(w);
        let mut n = vec!["RPUSH".to_string(), "nums".to_string()];
        n.extend((0..1000).map(|_| format!("{}", (next(&mut x) % 2000) as f64 / 8.0)));
        setup.push(n);
    }
    for cmd in &setup {
        let args: Vec<&str> = cmd.iter().map(|s| s.as_str()).collect();
        r.call(&args);
        let argv: Vec<Vec<u8>> = cmd.iter().map(|a| a.as_bytes().to_vec()).collect();
        e.execute(client, &argv);
    }
    let queries: &[&str] = &[
        "SORT big ALPHA LIMIT 0 50",
        "SORT big BY w_* LIMIT 0 100",
        "SORT big BY w_* LIMIT 9000 60",
        "SORT big BY w_* DESC LIMIT 19950 100",
        "SORT big BY w_* ALPHA",
        "SORT big BY w_* ALPHA LIMIT 7000 50",
        "SORT big BY w_* ALPHA DESC LIMIT 12345 40",
        "SORT big BY nosort-* ALPHA LIMIT 100 30",
        "SORT big BY nosort-* LIMIT 100 30",
        "SORT big BY w_* GET # GET w_* LIMIT 500 20",
        "SORT nums",
        "SORT nums DESC LIMIT 10000 20",
        "SORT nums BY w_* LIMIT 3 40",
        "SORT nums ALPHA LIMIT 0 30",
        "SORT big BY w_* ALPHA STORE out",
        "LRANGE out 5000 5060",
    ];
    let mut diffs = Vec::new();
    for q in queries {
        let args: Vec<&str> = q.split(' ').collect();
        let real = r.call(&args);
        let argv: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        let ours = text(&e.execute(client, &argv));
        if real != ours {
            let at = real.lines().zip(ours.lines()).position(|(a, b)| a != b);
            diffs.push(format!("{q}: first difference at line {at:?}"));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
fn get_patterns_may_not_fetch_past_the_playground_limit() {
    let mut e = Engine::new(EngineOptions { seed: 3, start_ms: 1_735_689_600_000 });
    let client = e.connect();
    let run = |e: &mut Engine, args: &[&str]| {
        e.execute(client, &args.iter().map(|a| a.as_bytes().to_vec()).collect::<Vec<_>>())
    };
    let mut push = vec!["RPUSH", "l"];
    push.extend(std::iter::repeat_n("x", 2000));
    run(&mut e, &push);
    let big = "v".repeat(100_000);
    run(&mut e, &["SET", "w_x", &big]);
    // 2,000 × 100 KB = 200 MB of reply: refused.
    let r = run(&mut e, &["SORT", "l", "BY", "nosort", "GET", "w_*"]);
    assert!(matches!(&r, Reply::Error(m) if m.starts_with(b"ERR playground limit")), "{r:?}");
    let r = run(&mut e, &["SORT", "l", "BY", "nosort", "GET", "w_*", "STORE", "dst"]);
    assert!(matches!(&r, Reply::Error(m) if m.starts_with(b"ERR playground limit")), "{r:?}");
    assert_eq!(run(&mut e, &["EXISTS", "dst"]), Reply::Integer(0));
    // Within the limit it answers as Redis does.
    let r = run(&mut e, &["SORT", "l", "BY", "nosort", "GET", "w_*", "LIMIT", "0", "100"]);
    assert!(matches!(&r, Reply::Array(v) if v.len() == 100));
    // Many GETs of small values multiply too.
    let mut many = vec!["SORT", "l", "BY", "nosort"];
    for _ in 0..400 {
        many.extend(["GET", "#"]);
    }
    let r = run(&mut e, &many);
    assert!(matches!(&r, Reply::Error(m) if m.starts_with(b"ERR playground limit")), "{r:?}");
    let r = run(&mut e, &["SORT", "l", "BY", "nosort", "GET", "#", "GET", "#"]);
    assert!(matches!(&r, Reply::Array(v) if v.len() == 4000));
}
