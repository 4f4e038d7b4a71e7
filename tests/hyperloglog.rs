//! HyperLogLog (src/ds/hll.rs, src/command/hyperloglog.rs) side by side with a real
//! redis-server 7.0.15: 100,000 elements added in batches to one key and one by one to another,
//! the estimates, the registers, the sparse opcodes, the sizes and the bytes compared as they
//! grow (PFCOUNT must be identical — it is the same hash, the same registers, the same
//! estimator). PFSELFTEST runs here too (it is too slow for a transcript: redis-cli prints the
//! time it took).

#[path = "support/live_server.rs"]
mod live_server;

use live_server::{check_tools, reply_text as text, Server};
use redisplay::{ClientId, Engine, EngineOptions, Reply};

fn ours(e: &mut Engine, client: ClientId, args: &[String]) -> String {
    let argv: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    text(&e.execute(client, &argv))
}

#[test]
fn a_hundred_thousand_elements_count_as_on_redis_server() {
    check_tools();
    let server = Server::start();
    let mut r = server.connect();
    let mut e = Engine::new(EngineOptions { seed: 3, start_ms: 1_735_689_600_000 });
    e.set_event_recording(false);
    let client = e.connect();
    let mut mismatches = Vec::new();
    let mut compare = |e: &mut Engine, r: &mut live_server::Resp, args: Vec<String>| {
        let refs: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        let (real, mine) = (r.call(&refs), ours(e, client, &args));
        if real != mine && mismatches.len() < 10 {
            mismatches.push(format!("{}: redis-server {real:?}, engine {mine:?}", args.join(" ")));
        }
    };
    let cmd = |parts: &[&str]| parts.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // One key fed in batches of 1,000: sparse at first, dense soon.
    for batch in 0..100 {
        let mut args = cmd(&["PFADD", "batched"]);
        args.extend((0..1000).map(|i| format!("element:{}", batch * 1000 + i)));
        compare(&mut e, &mut r, args);
        compare(&mut e, &mut r, cmd(&["PFCOUNT", "batched"]));
        if batch % 10 == 0 {
            for probe in
                [&["PFDEBUG", "ENCODING", "batched"][..], &["STRLEN", "batched"], &["MEMORY", "USAGE", "batched"]]
            {
                compare(&mut e, &mut r, cmd(probe));
            }
        }
    }
    // Another fed one element at a time through the sparse range, then by hundreds.
    for i in 0..4000 {
        compare(&mut e, &mut r, vec!["PFADD".into(), "single".into(), format!("{}", i * 7919)]);
        if i % 97 == 0 {
            for probe in [
                &["PFCOUNT", "single"][..],
                &["PFDEBUG", "ENCODING", "single"],
                &["STRLEN", "single"],
                &["MEMORY", "USAGE", "single"],
                &["GET", "single"],
            ] {
                compare(&mut e, &mut r, cmd(probe));
            }
        }
        if i % 500 == 0 {
            compare(&mut e, &mut r, cmd(&["PFDEBUG", "DECODE", "single"]));
        }
    }
    for round in 0..60 {
        let mut args = cmd(&["PFADD", "single"]);
        args.extend((0..100).map(|i| format!("{}", (4000 + round * 100 + i) * 7919)));
        compare(&mut e, &mut r, args);
        compare(&mut e, &mut r, cmd(&["PFCOUNT", "single"]));
    }
    for probe in [
        &["PFCOUNT", "batched", "single"][..],
        &["PFMERGE", "merged", "single", "batched"],
        &["PFCOUNT", "merged"],
        &["GET", "merged"],
        &["GET", "batched"],
        &["PFDEBUG", "GETREG", "single"],
        &["PFDEBUG", "GETREG", "batched"],
        &["MEMORY", "USAGE", "merged"],
    ] {
        compare(&mut e, &mut r, cmd(probe));
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn pfselftest_passes() {
    let mut e = Engine::new(EngineOptions { seed: 9, start_ms: 1_735_689_600_000 });
    let client = e.connect();
    assert_eq!(e.execute(client, &[b"PFSELFTEST".to_vec()]), Reply::Status("OK".into()));
}
