//! The propagation stream in virtual time (src/propagate.rs): the absolute times it carries,
//! a reclaimed key's DEL (with the command that found it, from the active expire cycle, from
//! eviction), a script's effects and a busy script's effects when it ends, and that nothing is
//! recorded unless something listens. tests/propagation_live.rs compares the stream with
//! redis-server 7.0.15's.

mod common;

use common::engine::run;
use redisplay::propagate::Feed;
use redisplay::{Engine, EngineOptions, Reply};

const T0: i64 = 1_700_000_000_000;

fn engine() -> (Engine, u64) {
    let mut e = Engine::new(EngineOptions { seed: 1, start_ms: T0 });
    e.set_propagation(true);
    let c = e.connect();
    (e, c)
}

/// The stream since the last call, as words.
fn stream(e: &mut Engine, feed: &mut Feed) -> Vec<String> {
    let ops = e.take_propagated();
    feed.commands(&ops).iter().map(|a| String::from_utf8_lossy(&a.join(&b' ')).into_owned()).collect()
}

#[test]
fn relative_times_become_absolute_from_the_virtual_clock() {
    let (mut e, c) = engine();
    let mut feed = Feed::default();
    run(&mut e, c, "SET a 1 EX 100");
    run(&mut e, c, "EXPIRE a 50");
    run(&mut e, c, "SETEX b 10 v");
    e.advance_to(T0 + 5_000, u64::MAX);
    run(&mut e, c, "PEXPIRE b 1000 LT");
    run(&mut e, c, "GETEX a PX 2500");
    run(&mut e, c, "INCRBYFLOAT f 0.1");
    run(&mut e, c, "INCRBYFLOAT f 0.2");
    assert_eq!(
        stream(&mut e, &mut feed),
        [
            "SELECT 0".to_string(),
            format!("SET a 1 PXAT {}", T0 + 100_000),
            format!("PEXPIREAT a {}", T0 + 50_000),
            format!("SET b v PXAT {}", T0 + 10_000),
            format!("PEXPIREAT b {} LT", T0 + 6_000),
            format!("PEXPIREAT a {}", T0 + 7_500),
            "SET f 0.1 KEEPTTL".to_string(),
            "SET f 0.3 KEEPTTL".to_string(),
        ]
    );
}

#[test]
fn reclaimed_keys_go_out_as_del_or_unlink() {
    let (mut e, c) = engine();
    let mut feed = Feed::default();
    run(&mut e, c, "SET k v PX 10");
    run(&mut e, c, "SET j v PX 10");
    e.advance_to(T0 + 11, 0);
    // A write that meets an expired key: MULTI, its DEL, itself, EXEC (7.0).
    run(&mut e, c, "APPEND k x");
    // A read: the DEL alone.
    assert_eq!(run(&mut e, c, "GET j"), Reply::Nil);
    assert_eq!(stream(&mut e, &mut feed)[3..], ["MULTI", "DEL k", "APPEND k x", "EXEC", "DEL j"]);
    // The active expire cycle, under lazyfree-lazy-expire: UNLINK.
    run(&mut e, c, "CONFIG SET lazyfree-lazy-expire yes");
    run(&mut e, c, "SET gone v PX 10");
    e.advance_to(T0 + 2_000, u64::MAX);
    assert_eq!(stream(&mut e, &mut feed)[1..], ["UNLINK gone"]);
    // Eviction: the victim's DEL, before the command that needed the room.
    run(&mut e, c, "CONFIG SET maxmemory-policy allkeys-lru");
    run(&mut e, c, "SET victim 1");
    let used = match run(&mut e, c, "MEMORY STATS") {
        Reply::Map(m) => m.iter().find_map(|(k, v)| (*k == Reply::bulk("total.allocated")).then(|| v.clone())),
        _ => None,
    };
    let Some(Reply::Integer(used)) = used else { panic!("total.allocated") };
    run(&mut e, c, &format!("CONFIG SET maxmemory {}", used + 10));
    run(&mut e, c, &format!("SET big {}", "x".repeat(1000)));
    let s = stream(&mut e, &mut feed);
    assert!(s.contains(&"DEL victim".to_string()), "{s:?}");
}

#[test]
fn a_busy_scripts_effects_go_out_when_it_ends() {
    let (mut e, c) = engine();
    let mut feed = Feed::default();
    let script =
        "redis.call('set', 'a', '1') local n = 0 for i = 1, 3e6 do n = n + 1 end redis.call('incr', 'a') return n";
    assert_eq!(common::engine::execute(&mut e, c, &["EVAL", script, "0"]), Reply::Array(vec![]));
    assert!(e.busy_script().is_some());
    assert!(e.take_propagated().is_empty(), "nothing before the script ends");
    while e.busy_script().is_some() {
        e.run_script_slice(1_000_000);
    }
    assert_eq!(stream(&mut e, &mut feed), ["SELECT 0", "MULTI", "set a 1", "incr a", "EXEC"]);
}

#[test]
fn nothing_is_recorded_unless_something_listens() {
    let mut e = Engine::new(EngineOptions { seed: 1, start_ms: T0 });
    let c = e.connect();
    run(&mut e, c, "SET a 1 EX 100");
    assert!(e.take_propagated().is_empty());
    e.set_propagation(true);
    run(&mut e, c, "SET a 2");
    e.set_propagation(false);
    assert!(e.take_propagated().is_empty(), "stopping drops what was not taken");
}

#[test]
fn the_event_log_shows_the_stream_with_its_causes_when_asked() {
    let mut e = Engine::new(EngineOptions { seed: 1, start_ms: T0 });
    let c = e.connect();
    run(&mut e, c, "SET quiet 1");
    let propagated = |e: &mut Engine| -> Vec<(i64, String, Option<String>)> {
        let (events, _) = e.drain_events();
        events
            .into_iter()
            .filter_map(|ev| match ev {
                redisplay::Event::Propagated { at_ms, argv, cause, .. } => Some((at_ms, argv.join(" "), cause)),
                _ => None,
            })
            .collect()
    };
    assert!(propagated(&mut e).is_empty(), "off unless the host asks");
    e.set_propagation_trace(true);
    run(&mut e, c, "SET session:1 v EX 2");
    run(&mut e, c, "GET session:1");
    let at = T0 + 2_000;
    assert_eq!(
        propagated(&mut e),
        [(T0, format!("SET session:1 v PXAT {at}"), Some(format!("client {c}: SET session:1 v EX 2")))]
    );
    // Reclaimed by the active expire cycle: a DEL with no command behind it, at the tick.
    e.advance_to(T0 + 10_000, u64::MAX);
    let dels = propagated(&mut e);
    assert_eq!(dels.len(), 1, "{dels:?}");
    assert_eq!((dels[0].1.as_str(), dels[0].2.clone()), ("DEL session:1", None));
    assert!(dels[0].0 > at && dels[0].0 <= T0 + 10_000);
    // Found expired by a write: MULTI, DEL, the write, EXEC — all from that command.
    run(&mut e, c, "SET k v PX 10");
    e.set_time(T0 + 10_050);
    propagated(&mut e);
    run(&mut e, c, "APPEND k x");
    let ops: Vec<String> = propagated(&mut e).into_iter().map(|(_, a, _)| a).collect();
    assert_eq!(ops, ["MULTI", "DEL k", "APPEND k x", "EXEC"]);
    // Cron run by a CLOCK command is still cron: its DELs go out alone, not as the command's.
    run(&mut e, c, "SET x v PX 10");
    propagated(&mut e);
    run(&mut e, c, "CLOCK ADVANCE 5000");
    let ops: Vec<(String, Option<String>)> = propagated(&mut e).into_iter().map(|(_, a, c)| (a, c)).collect();
    assert_eq!(ops, [("DEL x".to_string(), None)]);
    assert!(e.take_propagated().is_empty(), "the trace is not the host's stream");
}
