//! Lua scripts that never end: the engine stops them (a documented deviation — Redis would
//! answer other clients BUSY until SCRIPT KILL), answers at once afterwards, and keeps the
//! data consistent — every write the script made before it was stopped is there, as in Redis,
//! nothing half-done.

mod common;

use common::engine::execute as run;
use redisplay::{Engine, EngineOptions, Reply};

fn error_text(r: &Reply) -> String {
    match r {
        Reply::Error(m) => String::from_utf8_lossy(m).into_owned(),
        other => panic!("expected an error, got {other:?}"),
    }
}

#[test]
fn an_empty_infinite_loop_is_stopped_and_the_engine_answers_afterwards() {
    let mut e = Engine::new(EngineOptions::default());
    let c = e.connect();
    assert_eq!(run(&mut e, c, &["SET", "k", "v"]), Reply::ok());
    let r = run(&mut e, c, &["EVAL", "while true do end", "0"]);
    assert!(error_text(&r).starts_with("ERR Script killed by the playground"), "{r:?}");
    assert_eq!(run(&mut e, c, &["GET", "k"]), Reply::bulk("v"));
    assert_eq!(run(&mut e, c, &["SCRIPT", "KILL"]), Reply::err("NOTBUSY No scripts in execution right now."));
    // The Lua state is still usable: the next script runs normally.
    assert_eq!(run(&mut e, c, &["EVAL", "return redis.call('GET', KEYS[1])", "1", "k"]), Reply::bulk("v"));
}

#[test]
fn a_loop_of_writes_is_stopped_with_every_write_it_made_in_place() {
    let mut e = Engine::new(EngineOptions::default());
    let c = e.connect();
    let r = run(
        &mut e,
        c,
        &[
            "EVAL",
            "while true do redis.call('INCR', KEYS[1]) redis.call('RPUSH', KEYS[2], 'x') end",
            "2",
            "counter",
            "list",
        ],
    );
    assert!(error_text(&r).starts_with("ERR Script "), "{r:?}");
    // Consistent: each INCR was followed by its RPUSH, or the script stopped between the two.
    let Reply::Bulk(n) = run(&mut e, c, &["GET", "counter"]) else { panic!("counter missing") };
    let n: i64 = String::from_utf8(n).unwrap().parse().unwrap();
    let Reply::Integer(len) = run(&mut e, c, &["LLEN", "list"]) else { panic!("list missing") };
    assert!(n > 1000, "the script ran a while before it was stopped: {n}");
    assert!(len == n || len == n - 1, "INCR {n} times, RPUSH {len} times");
    assert_eq!(run(&mut e, c, &["INCR", "counter"]), Reply::Integer(n + 1));
}

#[test]
fn pcall_cannot_catch_the_stop() {
    let mut e = Engine::new(EngineOptions::default());
    let c = e.connect();
    let script = "local n = 0 while true do pcall(function() while true do n = n + 1 end end) end";
    let r = run(&mut e, c, &["EVAL", script, "0"]);
    assert!(error_text(&r).starts_with("ERR Script killed by the playground"), "{r:?}");
    assert_eq!(run(&mut e, c, &["PING"]), Reply::Status("PONG".into()));
}

#[test]
fn a_heap_that_keeps_doubling_is_stopped() {
    let mut e = Engine::new(EngineOptions::default());
    let c = e.connect();
    let r = run(&mut e, c, &["EVAL", "local s = 'x' while true do s = s .. s end", "0"]);
    assert!(error_text(&r).starts_with("ERR Script killed by the playground"), "{r:?}");
    let r = run(&mut e, c, &["EVAL", "return #string.rep('x', 2^40)", "0"]);
    assert!(r.is_error(), "{r:?}");
    assert_eq!(run(&mut e, c, &["EVAL", "return #string.rep('x', 1000)", "0"]), Reply::Integer(1000));
}

#[test]
fn the_caller_db_and_globals_survive_a_stopped_script() {
    let mut e = Engine::new(EngineOptions::default());
    let c = e.connect();
    let r = run(&mut e, c, &["EVAL", "redis.call('SELECT', 5) while true do end", "0"]);
    assert!(r.is_error());
    assert_eq!(e.client_db(c), Some(0));
    assert_eq!(run(&mut e, c, &["EVAL", "return type(redis.call)", "0"]), Reply::bulk("function"));
}
