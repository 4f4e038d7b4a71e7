//! Streams through the engine with a stepped virtual clock (src/command/stream*.rs,
//! src/ds/stream.rs): what the golden transcripts can't pin because it depends on the time —
//! `*` IDs taking the clock's milliseconds as t_stream.c `streamNextID()` does, idle times,
//! XCLAIM/XAUTOCLAIM's min-idle-time, delivery and seen times, XREAD/XREADGROUP BLOCK timeouts —
//! plus the memory model, the lazy-free cost, and the playground's reply-size cap.

use redisplay::{ClientId, Engine, EngineOptions, Reply};

const T0: i64 = 1_735_689_600_000;

fn engine() -> (Engine, ClientId) {
    let mut e = Engine::new(EngineOptions { seed: 1, start_ms: T0 });
    let c = e.connect();
    (e, c)
}

fn run(e: &mut Engine, c: ClientId, line: &str) -> Reply {
    let argv: Vec<Vec<u8>> = line.split(' ').map(|w| w.as_bytes().to_vec()).collect();
    e.execute(c, &argv)
}

fn bulk(r: &Reply) -> String {
    match r {
        Reply::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        other => panic!("not a bulk: {other:?}"),
    }
}

fn int(r: &Reply) -> i64 {
    match r {
        Reply::Integer(n) => *n,
        other => panic!("not an integer: {other:?}"),
    }
}

fn items(r: &Reply) -> Vec<Reply> {
    r.clone().into_items().unwrap_or_else(|| panic!("not an array: {r:?}"))
}

/// Moves the virtual clock as the page does (serverCron runs for each tick crossed).
fn advance(e: &mut Engine, ms: i64) {
    let t = e.now_ms() + ms;
    e.advance_to(t, u64::MAX);
    e.before_sleep();
}

fn info_field(e: &mut Engine, c: ClientId, name: &str) -> u64 {
    let Reply::Verbatim(text) = run(e, c, "INFO all") else { panic!("INFO") };
    String::from_utf8_lossy(&text)
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name}:")).map(|v| v.trim().parse().unwrap()))
        .unwrap_or_else(|| panic!("no {name} in INFO"))
}

#[test]
fn star_ids_take_the_virtual_clock_and_never_go_back() {
    let (mut e, c) = engine();
    assert_eq!(bulk(&run(&mut e, c, "XADD s * f v")), format!("{T0}-0"));
    assert_eq!(bulk(&run(&mut e, c, "XADD s * f v")), format!("{T0}-1"));
    advance(&mut e, 5);
    assert_eq!(bulk(&run(&mut e, c, "XADD s * f v")), format!("{}-0", T0 + 5));
    // `<ms>-*` continues the sequence at the last ID's ms.
    assert_eq!(bulk(&run(&mut e, c, &format!("XADD s {}-* f v", T0 + 5))), format!("{}-1", T0 + 5));
    // A clock set backwards: the ID keeps the last ms and bumps the sequence.
    e.set_time(T0 - 60_000);
    assert_eq!(bulk(&run(&mut e, c, "XADD s * f v")), format!("{}-2", T0 + 5));
    // An explicit ID in the future: `*` follows it, not the clock.
    run(&mut e, c, &format!("XADD s {}-7 f v", T0 + 1_000_000));
    assert_eq!(bulk(&run(&mut e, c, "XADD s * f v")), format!("{}-8", T0 + 1_000_000));
    // The last possible ms: `*` still works until the sequence runs out.
    run(&mut e, c, "XADD m 18446744073709551615-18446744073709551613 f v");
    assert_eq!(bulk(&run(&mut e, c, "XADD m * f v")), "18446744073709551615-18446744073709551614");
    assert_eq!(bulk(&run(&mut e, c, "XADD m * f v")), "18446744073709551615-18446744073709551615");
    assert!(run(&mut e, c, "XADD m * f v").is_error());
    // A C string: `*` followed by a NUL is `*`.
    let argv = vec![b"XADD".to_vec(), b"n".to_vec(), b"*\x00junk".to_vec(), b"f".to_vec(), b"v".to_vec()];
    assert_eq!(bulk(&e.execute(c, &argv)), format!("{}-0", T0 - 60_000));
}

#[test]
fn idle_times_and_claims_follow_the_virtual_clock() {
    let (mut e, c) = engine();
    for i in 1..=4 {
        run(&mut e, c, &format!("XADD s {i} f {i}"));
    }
    run(&mut e, c, "XGROUP CREATE s g 0");
    run(&mut e, c, "XREADGROUP GROUP g alice STREAMS s >");
    advance(&mut e, 3_000);
    let pending = items(&run(&mut e, c, "XPENDING s g - + 10"));
    assert_eq!(pending.len(), 4);
    for p in &pending {
        let p = items(p);
        assert_eq!(int(&p[2]), 3_000, "idle is the virtual time since delivery");
        assert_eq!(int(&p[3]), 1);
    }
    // IDLE filters by the same measure.
    assert_eq!(items(&run(&mut e, c, "XPENDING s g IDLE 3000 - + 10")).len(), 4);
    assert_eq!(items(&run(&mut e, c, "XPENDING s g IDLE 3001 - + 10")).len(), 0);
    // XCLAIM's min-idle-time: 3000 ms is enough for 3000, not for 3001.
    assert_eq!(items(&run(&mut e, c, "XCLAIM s g bob 3001 1 JUSTID")).len(), 0);
    assert_eq!(items(&run(&mut e, c, "XCLAIM s g bob 3000 1 JUSTID")).len(), 1);
    // The claim reset its idle time; IDLE and TIME set it.
    run(&mut e, c, "XCLAIM s g bob 0 2 IDLE 1234 JUSTID");
    run(&mut e, c, &format!("XCLAIM s g bob 0 3 TIME {} JUSTID", T0 + 3_000 - 777));
    let idle = |e: &mut Engine, id: &str| -> i64 {
        let r = items(&run(e, c, &format!("XPENDING s g {id} {id} 1")));
        int(&items(&r[0])[2])
    };
    assert_eq!(idle(&mut e, "1"), 0);
    assert_eq!(idle(&mut e, "2"), 1234);
    assert_eq!(idle(&mut e, "3"), 777);
    assert_eq!(idle(&mut e, "4"), 3000);
    // XAUTOCLAIM: only entries idle long enough; the cursor continues after what it looked at.
    advance(&mut e, 1_000);
    let r = items(&run(&mut e, c, "XAUTOCLAIM s g carol 2000 0 JUSTID"));
    assert_eq!(bulk(&r[0]), "0-0");
    let claimed: Vec<String> = items(&r[1]).iter().map(bulk).collect();
    assert_eq!(claimed, vec!["2-0", "4-0"], "1 (idle 1000) and 3 (idle 1777) are too fresh");
    // Consumers: seen-time (FULL) and idle (CONSUMERS) are the virtual clock's.
    let now = e.now_ms();
    let consumers = items(&run(&mut e, c, "XINFO CONSUMERS s g"));
    let names: Vec<(String, i64)> = consumers
        .iter()
        .map(|m| {
            let m = items(m);
            (bulk(&m[1]), int(&m[5]))
        })
        .collect();
    assert_eq!(names, vec![("alice".to_string(), 4_000), ("bob".to_string(), 1_000), ("carol".to_string(), 0)]);
    let full = items(&run(&mut e, c, "XINFO STREAM s FULL"));
    let groups = items(&full[17]);
    let g = items(&groups[0]);
    let pel = items(&g[11]);
    let first = items(&pel[0]);
    assert_eq!(int(&first[2]), now - 1_000, "1-0 was claimed by bob 1000 ms ago");
    let consumers = items(&g[13]);
    let carol = items(&consumers[2]);
    assert_eq!(int(&carol[3]), now, "carol's seen-time");
}

#[test]
fn blocking_reads_time_out_in_virtual_time() {
    let (mut e, a) = engine();
    let b = e.connect();
    let r = run(&mut e, a, "XREAD BLOCK 1000 STREAMS s $");
    assert!(e.is_blocked(a));
    assert_eq!(r, Reply::Array(vec![]), "a placeholder while blocked");
    advance(&mut e, 999);
    assert!(e.is_blocked(a));
    advance(&mut e, 2);
    assert!(!e.is_blocked(a));
    assert_eq!(e.take_outbox(a), vec![Reply::NilArray]);
    // XREADGROUP BLOCK, then an XADD from another client serves it and fills the PEL.
    run(&mut e, b, "XGROUP CREATE s g $ MKSTREAM");
    run(&mut e, a, "XREADGROUP GROUP g alice BLOCK 5000 STREAMS s >");
    advance(&mut e, 100);
    assert!(e.is_blocked(a));
    run(&mut e, b, "XADD s 1-1 f v");
    assert!(!e.is_blocked(a));
    let got = e.take_outbox(a);
    assert_eq!(got.len(), 1);
    assert_eq!(items(&run(&mut e, b, "XPENDING s g"))[0], Reply::Integer(1));
    // BLOCK 0 waits forever; a huge timeout wraps as in 7.0.15 and never fires either.
    run(&mut e, a, "XREAD BLOCK 9223372036854775807 STREAMS s $");
    advance(&mut e, 86_400_000);
    assert!(e.is_blocked(a));
    run(&mut e, b, "XADD s 2-1 f v");
    assert!(!e.is_blocked(a));
    e.take_outbox(a);
    // The stream expiring while an XREADGROUP waits: the next beforeSleep tells the client.
    run(&mut e, a, "XREADGROUP GROUP g alice STREAMS s >");
    run(&mut e, a, "XREADGROUP GROUP g alice BLOCK 0 STREAMS s >");
    assert!(e.is_blocked(a));
    run(&mut e, b, "PEXPIRE s 500");
    advance(&mut e, 400);
    assert!(e.is_blocked(a));
    advance(&mut e, 2_000);
    assert!(!e.is_blocked(a));
    assert_eq!(e.take_outbox(a), vec![Reply::err("UNBLOCKED the stream key no longer exists")]);
    // Inside MULTI nothing blocks.
    run(&mut e, a, "MULTI");
    run(&mut e, a, "XREAD BLOCK 0 STREAMS nokey $");
    assert_eq!(run(&mut e, a, "EXEC"), Reply::Array(vec![Reply::NilArray]));
    assert!(!e.is_blocked(a));
}

#[test]
fn memory_model_counts_streams_and_frees_them() {
    let (mut e, c) = engine();
    run(&mut e, c, "SET warm v");
    run(&mut e, c, "DEL warm");
    run(&mut e, c, "XADD warm 1 f v");
    run(&mut e, c, "XGROUP CREATE warm g 0");
    run(&mut e, c, "XREADGROUP GROUP g c COUNT 1 STREAMS warm >");
    run(&mut e, c, "XLEN warm");
    run(&mut e, c, "MEMORY USAGE warm");
    run(&mut e, c, "XINFO STREAM warm");
    run(&mut e, c, "XTRIM warm MAXLEN 0");
    // (The script is cached by its first run, which also counts in used_memory.)
    let script = "for i = 1, 10000 do redis.call('XADD', KEYS[1], i .. '-1', 'field', i, 'other', 'value-' .. i) end";
    let eval = |key: &str| -> Vec<Vec<u8>> {
        vec![b"EVAL".to_vec(), script.as_bytes().to_vec(), b"1".to_vec(), key.as_bytes().to_vec()]
    };
    e.execute(c, &eval("warm2"));
    run(&mut e, c, "INFO all");
    run(&mut e, c, "DEL warm warm2");
    let base = info_field(&mut e, c, "used_memory");
    e.execute(c, &eval("s"));
    let with_stream = info_field(&mut e, c, "used_memory");
    let usage = int(&run(&mut e, c, "MEMORY USAGE s SAMPLES 0")) as u64;
    // The model and MEMORY USAGE (all nodes sampled) count the same listpacks, but MEMORY USAGE charges the rax 16 bytes a key and 244 a node
    // (object.c streamRadixTreeMemoryUsage()) where its nodes really take ~30.
    let info = items(&run(&mut e, c, "XINFO STREAM s"));
    let (keys, nodes) = (int(&info[3]) as u64, int(&info[5]) as u64);
    assert_eq!(keys, 100);
    let listpacks = usage - 16 - 80 - (keys * 16 + nodes * 244);
    let grown = with_stream - base;
    assert!(grown > 250_000 && grown < 400_000, "grew by {grown}");
    assert!(grown > listpacks && grown - listpacks < 10_000, "listpacks {listpacks} vs model {grown}");
    // A PEL costs its NACKs and two rax trees.
    run(&mut e, c, "XGROUP CREATE s g 0");
    run(&mut e, c, "XREADGROUP GROUP g c COUNT 5000 STREAMS s >");
    let with_pel = info_field(&mut e, c, "used_memory");
    let per_entry = (with_pel - with_stream) / 5000;
    assert!((120..=170).contains(&per_entry), "{per_entry} bytes a pending entry");
    // DEL gives everything back.
    run(&mut e, c, "XTRIM s MAXLEN 0");
    run(&mut e, c, "DEL s");
    assert_eq!(info_field(&mut e, c, "used_memory"), base);
}

#[test]
fn a_big_stream_is_freed_in_the_background_by_unlink() {
    let (mut e, c) = engine();
    let script = "for i = 1, 20000 do redis.call('XADD', KEYS[1], i .. '-1', 'f', i) end";
    for key in ["a", "b"] {
        let argv: Vec<Vec<u8>> =
            vec![b"EVAL".to_vec(), script.as_bytes().to_vec(), b"1".to_vec(), key.as_bytes().to_vec()];
        e.execute(c, &argv);
    }
    let lazy_before = info_field(&mut e, c, "lazyfreed_objects");
    run(&mut e, c, "UNLINK a");
    assert_eq!(info_field(&mut e, c, "lazyfreed_objects"), lazy_before + 1, "200 nodes > LAZYFREE_THRESHOLD");
    run(&mut e, c, "DEL b");
    assert_eq!(info_field(&mut e, c, "lazyfreed_objects"), lazy_before + 1, "DEL frees on the main thread");
    // A small stream is never worth the background thread.
    run(&mut e, c, "XADD small 1 f v");
    run(&mut e, c, "UNLINK small");
    assert_eq!(info_field(&mut e, c, "lazyfreed_objects"), lazy_before + 1);
}

#[test]
fn replies_larger_than_playground_max_alloc_are_refused() {
    let (mut e, c) = engine();
    run(&mut e, c, "CONFIG SET playground-max-alloc 100000");
    let script = "for i = 1, 5000 do redis.call('XADD', KEYS[1], i, 'f', string.rep('x', 20)) end";
    let argv: Vec<Vec<u8>> = vec![b"EVAL".to_vec(), script.as_bytes().to_vec(), b"1".to_vec(), b"s".to_vec()];
    e.execute(c, &argv);
    let r = run(&mut e, c, "XRANGE s - +");
    let Reply::Error(msg) = &r else { panic!("{r:?}") };
    assert!(String::from_utf8_lossy(msg).starts_with("ERR playground limit"), "{r:?}");
    assert!(run(&mut e, c, "XREVRANGE s + -").is_error());
    assert!(run(&mut e, c, "XREAD STREAMS s 0").is_error());
    assert!(run(&mut e, c, "XINFO STREAM s FULL COUNT 0").is_error());
    // With COUNT it is fine, and the stream is untouched.
    assert_eq!(items(&run(&mut e, c, "XRANGE s - + COUNT 100")).len(), 100);
    assert_eq!(items(&run(&mut e, c, "XREAD COUNT 100 STREAMS s 0")).len(), 1);
    assert_eq!(int(&run(&mut e, c, "XLEN s")), 5000);
    // XREADGROUP refused: nothing delivered, nothing pending.
    run(&mut e, c, "XGROUP CREATE s g 0");
    assert!(run(&mut e, c, "XREADGROUP GROUP g c STREAMS s >").is_error());
    assert_eq!(items(&run(&mut e, c, "XPENDING s g"))[0], Reply::Integer(0));
    // A huge COUNT is only a bound.
    assert_eq!(items(&run(&mut e, c, "XAUTOCLAIM s g c 0 0 COUNT 1000000000"))[0], Reply::bulk("0-0"));
}
