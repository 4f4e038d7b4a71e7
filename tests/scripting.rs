//! The busy script, stepped in virtual time (script/call.rs): a script that runs long is
//! suspended between slices; past `busy-reply-threshold` other clients get BUSY and SCRIPT
//! KILL / FUNCTION KILL are served; before it, their commands wait (parked) as they wait in
//! a real server's socket; the script's client gets its reply in its outbox when it ends. A
//! script nobody kills is ended by `playground-script-time-limit`, keeping what it wrote.
//! The expected words are redis-server 7.0.15's (tests/clients_live.rs checks them live).

mod common;

use common::engine::execute as run;
use redisplay::{Engine, EngineOptions, Reply};

fn error_text(r: &Reply) -> String {
    match r {
        Reply::Error(m) => String::from_utf8_lossy(m).into_owned(),
        other => panic!("expected an error, got {other:?}"),
    }
}

const BUSY: &str = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
const UNKILLABLE: &str = "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.";

/// Runs slices until the script ends (at most `max` slices of `steps`).
fn finish(e: &mut Engine, steps: u64, max: usize) {
    for _ in 0..max {
        if e.busy_script().is_none() {
            return;
        }
        e.run_script_slice(steps);
    }
    panic!("the script is still running after {max} slices");
}

/// Runs slices until the script times out.
fn until_timed_out(e: &mut Engine) {
    for _ in 0..10_000 {
        match e.busy_script() {
            Some(b) if b.timed_out => return,
            Some(_) => {
                e.run_script_slice(1_000_000);
            }
            None => panic!("the script ended before timing out"),
        }
    }
    panic!("the script never timed out");
}

fn engine(threshold_ms: &str) -> (Engine, u64, u64) {
    let mut e = Engine::new(EngineOptions::default());
    let a = e.connect();
    let b = e.connect();
    assert_eq!(run(&mut e, a, &["CONFIG", "SET", "busy-reply-threshold", threshold_ms]), Reply::ok());
    (e, a, b)
}

#[test]
fn a_long_script_is_suspended_and_its_reply_arrives_in_the_outbox() {
    let (mut e, a, b) = engine("1000");
    run(&mut e, b, &["SET", "k", "v"]);
    // 4·10^6 instructions: 100 ms of virtual time, more than one slice, less than the threshold.
    let r = run(&mut e, a, &["EVAL", "local n = 0 for i = 1, 2e6 do n = n + 1 end return n", "0"]);
    assert_eq!(r, Reply::Array(vec![]), "a placeholder: the reply comes later");
    assert!(e.is_blocked(a));
    let busy = e.busy_script().expect("running");
    assert!(busy.eval && !busy.timed_out && busy.client == a);
    assert!(busy.elapsed_ms > 0.0 && busy.elapsed_ms < 1000.0, "{busy:?}");
    // Before the threshold nothing else runs: B's command waits for the script.
    assert_eq!(run(&mut e, b, &["GET", "k"]), Reply::Array(vec![]));
    assert!(e.is_blocked(b));
    assert!(e.take_outbox(b).is_empty());
    let mut elapsed = busy.elapsed_ms;
    while e.busy_script().is_some() {
        elapsed += e.run_script_slice(1_000_000).elapsed_ms;
    }
    assert!(!e.is_blocked(a) && !e.is_blocked(b));
    assert_eq!(e.take_outbox(a), vec![Reply::Integer(2_000_000)]);
    assert_eq!(e.take_outbox(b), vec![Reply::bulk("v")]);
    // 2 instructions per iteration at 25 ns each (cost.rs).
    assert_eq!(elapsed.round(), 100.0);
}

#[test]
fn past_the_threshold_other_clients_get_busy_and_script_kill_ends_it() {
    let (mut e, a, b) = engine("10");
    let r = run(&mut e, a, &["EVAL", "local i = 0\nwhile true do i = i + 1 end", "0"]);
    assert_eq!(r, Reply::Array(vec![]));
    let busy = e.busy_script().expect("running");
    assert!(busy.timed_out, "the first slice stops where the threshold is crossed: {busy:?}");
    assert_eq!(run(&mut e, b, &["PING"]), Reply::err(BUSY));
    assert_eq!(run(&mut e, b, &["GET", "k"]), Reply::err(BUSY));
    assert_eq!(run(&mut e, b, &["EVAL", "return 1", "0"]), Reply::err(BUSY));
    // The script runs on between slices until it is killed.
    e.run_script_slice(1_000_000);
    assert!(e.busy_script().is_some());
    assert_eq!(run(&mut e, b, &["SCRIPT", "KILL"]), Reply::ok());
    let slice = e.run_script_slice(1_000_000);
    assert!(slice.done);
    let reply = e.take_outbox(a);
    assert_eq!(reply.len(), 1);
    let text = error_text(&reply[0]);
    assert!(text.starts_with("ERR Script killed by user with SCRIPT KILL... script: "), "{text}");
    assert!(text.ends_with(", on @user_script:2."), "the line it was on: {text}");
    assert_eq!(run(&mut e, b, &["PING"]), Reply::Status("PONG".into()));
    assert_eq!(run(&mut e, b, &["SCRIPT", "KILL"]), Reply::err("NOTBUSY No scripts in execution right now."));
    // The Lua state is still usable.
    assert_eq!(run(&mut e, a, &["EVAL", "return 1 + 1", "0"]), Reply::Integer(2));
}

#[test]
fn commands_sent_before_the_threshold_run_when_the_script_times_out() {
    let (mut e, a, b) = engine("100");
    run(&mut e, a, &["EVAL", "while true do end", "0"]);
    assert!(!e.busy_script().unwrap().timed_out);
    assert_eq!(run(&mut e, b, &["PING"]), Reply::Array(vec![]));
    assert_eq!(run(&mut e, b, &["SCRIPT", "KILL"]), Reply::Array(vec![]));
    assert!(e.is_blocked(b));
    until_timed_out(&mut e);
    // At the timeout the waiting commands ran: PING got BUSY, SCRIPT KILL was served.
    assert_eq!(e.take_outbox(b), vec![Reply::err(BUSY), Reply::ok()]);
    finish(&mut e, 1_000_000, 10);
    assert!(error_text(&e.take_outbox(a)[0]).contains("Script killed by user with SCRIPT KILL"));
}

#[test]
fn a_script_that_wrote_is_unkillable_and_the_time_limit_ends_it_keeping_its_writes() {
    let (mut e, a, b) = engine("10");
    run(&mut e, b, &["CONFIG", "SET", "playground-script-time-limit", "50"]);
    run(&mut e, a, &["EVAL", "redis.call('SET', KEYS[1], 'y') while true do end", "1", "x"]);
    assert!(e.busy_script().unwrap().timed_out);
    assert_eq!(run(&mut e, b, &["SCRIPT", "KILL"]), Reply::err(UNKILLABLE));
    assert_eq!(run(&mut e, b, &["GET", "x"]), Reply::err(BUSY));
    finish(&mut e, 1_000_000, 1000);
    let text = error_text(&e.take_outbox(a)[0]);
    assert!(text.starts_with("ERR Script killed by the playground after 50 ms"), "{text}");
    assert_eq!(run(&mut e, b, &["GET", "x"]), Reply::bulk("y"));
}

#[test]
fn pcall_cannot_catch_a_kill() {
    let (mut e, a, b) = engine("10");
    let script = "local f = function() while 1 do redis.call('ping') end end while 1 do pcall(f) end";
    run(&mut e, a, &["EVAL", script, "0"]);
    until_timed_out(&mut e);
    assert_eq!(run(&mut e, b, &["SCRIPT", "KILL"]), Reply::ok());
    finish(&mut e, 1_000_000, 10);
    assert!(error_text(&e.take_outbox(a)[0]).contains("Script killed by user with SCRIPT KILL"));
}

#[test]
fn a_transaction_that_meets_busy_is_aborted() {
    let (mut e, a, b) = engine("10");
    run(&mut e, a, &["EVAL", "while true do end", "0"]);
    assert!(e.busy_script().unwrap().timed_out);
    // MULTI may run while busy; what it queues meets BUSY, which dooms the transaction.
    assert_eq!(run(&mut e, b, &["MULTI"]), Reply::ok());
    assert_eq!(run(&mut e, b, &["SET", "k", "v"]), Reply::err(BUSY));
    assert_eq!(run(&mut e, b, &["EXEC"]), Reply::err(format!("EXECABORT Transaction discarded because of: {BUSY}")));
    assert_eq!(run(&mut e, b, &["SCRIPT", "KILL"]), Reply::ok());
    finish(&mut e, 1_000_000, 10);
    assert_eq!(run(&mut e, b, &["GET", "k"]), Reply::Nil);
}

#[test]
fn a_script_inside_exec_runs_to_its_end() {
    let (mut e, a, _b) = engine("1");
    run(&mut e, a, &["MULTI"]);
    run(&mut e, a, &["EVAL", "local n = 0 for i = 1, 1e7 do n = n + 1 end return n", "0"]);
    assert_eq!(run(&mut e, a, &["EXEC"]), Reply::Array(vec![Reply::Integer(10_000_000)]));
    assert!(e.busy_script().is_none());
}

#[test]
fn no_timer_runs_while_a_script_does() {
    let (mut e, a, b) = engine("10");
    run(&mut e, b, &["SET", "t", "1", "PX", "100"]);
    let now = e.now_ms();
    run(&mut e, a, &["EVAL", "while true do end", "0"]);
    let adv = e.advance_to(now + 1000, u64::MAX);
    assert_eq!((adv.ticks, adv.lag_ms, e.now_ms()), (0, 1000, now));
    assert_eq!(run(&mut e, b, &["SCRIPT", "KILL"]), Reply::ok());
    finish(&mut e, 1_000_000, 10);
    e.advance_to(now + 1000, u64::MAX);
    assert_eq!(run(&mut e, b, &["EXISTS", "t"]), Reply::Integer(0));
}

#[test]
fn a_heap_that_keeps_doubling_is_stopped() {
    let mut e = Engine::new(EngineOptions::default());
    let c = e.connect();
    let r = run(&mut e, c, &["EVAL", "local s = 'x' while true do s = s .. s end", "0"]);
    assert!(error_text(&r).starts_with("ERR Script killed by the playground: its Lua heap"), "{r:?}");
    let r = run(&mut e, c, &["EVAL", "return #string.rep('x', 2^40)", "0"]);
    assert!(r.is_error(), "{r:?}");
    assert_eq!(run(&mut e, c, &["EVAL", "return #string.rep('x', 1000)", "0"]), Reply::Integer(1000));
}

#[test]
fn the_caller_db_and_globals_survive_a_killed_script() {
    let (mut e, a, b) = engine("10");
    run(&mut e, a, &["EVAL", "redis.call('SELECT', 5) while true do end", "0"]);
    assert_eq!(run(&mut e, b, &["SCRIPT", "KILL"]), Reply::ok());
    finish(&mut e, 1_000_000, 10);
    assert_eq!(e.client_db(a), Some(0));
    assert_eq!(run(&mut e, a, &["EVAL", "return type(redis.call)", "0"]), Reply::bulk("function"));
}

#[test]
fn a_script_looping_inside_its_own_coroutine_is_ended_by_the_time_limit() {
    // A script's own coroutines are not sliced: the slice runs on until the playground's
    // limit (kept small here).
    let (mut e, a, _b) = engine("10");
    run(&mut e, a, &["CONFIG", "SET", "playground-script-time-limit", "20"]);
    let r = run(&mut e, a, &["EVAL", "coroutine.wrap(function() while true do end end)()", "0"]);
    assert!(error_text(&r).starts_with("ERR Script killed by the playground after 20 ms"), "{r:?}");
    assert!(e.busy_script().is_none());
}

#[test]
fn a_suspended_script_counts_its_error_once_in_errorstats() {
    // Each script outlives its first slice (6·10^6 instructions), so its reply is delivered
    // later; an error redis.call/pcall got was counted when the command failed, and is not
    // counted again as the script's reply. Expected counts: redis-server 7.0.15, same scripts.
    let (mut e, a, b) = engine("5000");
    run(&mut e, b, &["SET", "s", "abc"]);
    run(&mut e, b, &["CONFIG", "RESETSTAT"]);
    let spin = "local n = 0 for i = 1, 3e6 do n = n + 1 end ";
    for (body, want) in [
        ("return redis.call('INCR', KEYS[1])", "ERR value is not an integer or out of range script: "),
        ("return redis.pcall('INCR', KEYS[1])", "ERR value is not an integer or out of range"),
        ("return redis.call('nosuch')", "ERR Unknown Redis command called from script script: "),
        ("return redis.error_reply('MY boom')", "MY boom"),
    ] {
        let script = format!("{spin}{body}");
        assert_eq!(run(&mut e, a, &["EVAL", &script, "1", "s"]), Reply::Array(vec![]), "{body}: suspended");
        finish(&mut e, 1_000_000, 100);
        let reply = e.take_outbox(a);
        assert_eq!(reply.len(), 1, "{body}");
        assert!(error_text(&reply[0]).starts_with(want), "{body}: {:?}", reply[0]);
    }
    let info = |e: &mut Engine, section: &str| match run(e, b, &["INFO", section]) {
        Reply::Bulk(t) | Reply::Verbatim(t) => String::from_utf8_lossy(&t).into_owned(),
        other => panic!("INFO answered {other:?}"),
    };
    let errorstats = info(&mut e, "errorstats");
    assert!(errorstats.contains("errorstat_ERR:count=3\r\nerrorstat_MY:count=1\r\n"), "{errorstats}");
    assert!(info(&mut e, "stats").contains("total_error_replies:4\r\n"));
    let commandstats = info(&mut e, "commandstats");
    assert!(
        commandstats.contains("cmdstat_eval:calls=4,") && commandstats.contains("failed_calls=4\r\n"),
        "{commandstats}"
    );
    let incr = commandstats.lines().find(|l| l.starts_with("cmdstat_incr:")).expect("incr stats");
    assert!(incr.contains("calls=2,") && incr.ends_with("rejected_calls=0,failed_calls=2"), "{incr}");
}

const BUSY_FUNCTION: &str = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";

#[test]
fn a_busy_function_shows_in_function_stats_and_function_kill_ends_it() {
    let (mut e, a, b) = engine("10");
    let lib = "#!lua name=busy\nredis.register_function('spin', function(keys, args) local i = 0 while true do i = i + 1 end end)\nredis.register_function('spinw', function(keys) redis.call('set', keys[1], 'w') while true do end end)";
    assert_eq!(run(&mut e, a, &["FUNCTION", "LOAD", lib]), Reply::bulk("busy"));
    assert_eq!(run(&mut e, a, &["FCALL", "spin", "1", "key", "arg"]), Reply::Array(vec![]));
    let busy = e.busy_script().expect("running");
    assert!(!busy.eval && busy.timed_out, "{busy:?}");
    assert_eq!(run(&mut e, b, &["PING"]), Reply::err(BUSY_FUNCTION));
    assert_eq!(run(&mut e, b, &["SCRIPT", "KILL"]), Reply::err(BUSY_FUNCTION));
    for _ in 0..4 {
        e.run_script_slice(1_000_000);
    }
    // FUNCTION STATS: the function, its caller's command and its (virtual) run time so far.
    let Reply::Map(stats) = run(&mut e, b, &["FUNCTION", "STATS"]) else { panic!("a map") };
    let Reply::Map(running) = &stats[0].1 else { panic!("running_script is a map: {stats:?}") };
    assert_eq!(running[0], (Reply::bulk("name"), Reply::bulk("spin")));
    assert_eq!(running[1], (Reply::bulk("command"), Reply::bulks(["FCALL", "spin", "1", "key", "arg"])));
    let Reply::Integer(ms) = running[2].1 else { panic!("duration_ms") };
    let elapsed = e.busy_script().expect("running").elapsed_ms;
    assert_eq!(ms, elapsed as i64, "duration_ms is the virtual run time");
    assert!(ms >= 100, "4 slices of 10^6 instructions at 25 ns: {ms}");
    assert_eq!(run(&mut e, b, &["FUNCTION", "KILL"]), Reply::ok());
    assert!(e.run_script_slice(1_000_000).done);
    let text = error_text(&e.take_outbox(a)[0]);
    // Redis words it the same for both kills (script_lua.c luaMaskCountHook()).
    assert_eq!(text, "ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:2.");
    assert_eq!(run(&mut e, b, &["FUNCTION", "KILL"]), Reply::err("NOTBUSY No scripts in execution right now."));
    let Reply::Map(stats) = run(&mut e, b, &["FUNCTION", "STATS"]) else { panic!("a map") };
    assert_eq!(stats[0].1, Reply::Nil);
    // A function that wrote can't be killed; the time limit ends it and its write stays.
    assert_eq!(run(&mut e, a, &["CONFIG", "SET", "playground-script-time-limit", "200"]), Reply::ok());
    assert_eq!(run(&mut e, a, &["FCALL", "spinw", "1", "w"]), Reply::Array(vec![]));
    assert_eq!(run(&mut e, b, &["FUNCTION", "KILL"]), Reply::err(UNKILLABLE));
    finish(&mut e, 1_000_000, 100);
    assert!(error_text(&e.take_outbox(a)[0]).contains("playground-script-time-limit"));
    assert_eq!(run(&mut e, b, &["GET", "w"]), Reply::bulk("w"));
}

#[test]
fn an_endless_library_load_times_out_and_leaves_the_functions_usable() {
    let (mut e, a, _) = engine("5000");
    let r = run(&mut e, a, &["FUNCTION", "LOAD", "#!lua name=slow\nwhile true do end"]);
    assert_eq!(error_text(&r), "ERR Error registering functions: ERR FUNCTION LOAD timeout");
    let ok = "#!lua name=ok\nredis.register_function('f', function() return string.len('abc') end)";
    assert_eq!(run(&mut e, a, &["FUNCTION", "LOAD", ok]), Reply::bulk("ok"));
    assert_eq!(run(&mut e, a, &["FCALL", "f", "0"]), Reply::Integer(3));
    // SCRIPT FLUSH leaves functions alone.
    assert_eq!(run(&mut e, a, &["SCRIPT", "FLUSH"]), Reply::ok());
    assert_eq!(run(&mut e, a, &["FCALL", "f", "0"]), Reply::Integer(3));
}

/// SHUTDOWN while a script has timed out (server.c shutdownCommand(), as 7.0.15 answers it):
/// ABORT finds nothing in progress, any SHUTDOWN without NOSAVE gets the script's BUSY (and
/// saves nothing), SHUTDOWN NOSAVE ends the server.
#[test]
fn shutdown_during_a_timed_out_script_needs_nosave() {
    for (kind, busy) in [("eval", BUSY), ("function", BUSY_FUNCTION)] {
        let (mut e, a, b) = engine("10");
        run(&mut e, b, &["CONFIG", "SET", "save", "3600 1"]);
        if kind == "eval" {
            run(&mut e, a, &["EVAL", "while true do end", "0"]);
        } else {
            let lib = "#!lua name=spin\nredis.register_function('spin', function() while true do end end)";
            run(&mut e, a, &["FUNCTION", "LOAD", lib]);
            run(&mut e, a, &["FCALL", "spin", "0"]);
        }
        until_timed_out(&mut e);
        for cmd in [&["SHUTDOWN"][..], &["SHUTDOWN", "SAVE"], &["SHUTDOWN", "NOW"], &["SHUTDOWN", "FORCE"]] {
            assert_eq!(run(&mut e, b, cmd), Reply::err(busy), "{kind}: {cmd:?}");
        }
        assert_eq!(run(&mut e, b, &["SHUTDOWN", "ABORT"]), Reply::err("ERR No shutdown in progress."));
        assert!(!e.has_shut_down());
        assert_eq!(e.rdb_file(), Ok(None), "nothing saved");
        run(&mut e, b, &["SHUTDOWN", "NOSAVE"]);
        assert!(e.has_shut_down(), "{kind}");
        assert_eq!(e.rdb_file(), Ok(None), "NOSAVE saves nothing");
    }
}

/// Regression (unpack lost values): `unpack` pushed its results without reserving stack room,
/// and the next stack growth — the count hook grows the stack before every instruction —
/// overwrote all but the first ~75 with nil. Here the script's first slice ends just before the
/// unpacks and the rest runs in slices of a few instructions, so the hook also suspends the
/// script between a call that returned many values and the instruction that takes them.
#[test]
fn unpacked_values_survive_the_count_hook_and_suspension_at_any_instruction() {
    let script = "local n = 0 for i = 1, 499990 do n = n + 1 end
        local b = {} for i = 1, 300 do b[i] = i end
        local t = {unpack(b)}
        local function sum(...) local s = 0 for i = 1, select('#', ...) do s = s + select(i, ...) end return s end
        return {#t, t[300], sum(unpack(b)), select('#', unpack(b)), redis.call('RPUSH', KEYS[1], unpack(b))}";
    let lib = format!(
        "#!lua name=unpacking\nredis.register_function('unpacking', function(KEYS) {} end)",
        script.replace("\n", " ")
    );
    for slice in [1, 2, 3, 5] {
        for fcall in [false, true] {
            let (mut e, a, _) = engine("100000");
            let key = format!("list{slice}");
            let r = if fcall {
                assert_eq!(run(&mut e, a, &["FUNCTION", "LOAD", &lib]), Reply::bulk("unpacking"));
                run(&mut e, a, &["FCALL", "unpacking", "1", &key])
            } else {
                run(&mut e, a, &["EVAL", script, "1", &key])
            };
            assert_eq!(r, Reply::Array(vec![]), "suspended after its first slice");
            let mut slices = 0;
            while !e.run_script_slice(slice).done {
                slices += 1;
                assert!(slices < 1_000_000, "the script never ends");
            }
            assert!(slices * slice > 3_000, "the unpacks ran in small slices: {slices} slices of {slice}");
            let want = Reply::Array(vec![
                Reply::Integer(300),
                Reply::Integer(300),
                Reply::Integer(45150),
                Reply::Integer(300),
                Reply::Integer(300),
            ]);
            assert_eq!(e.take_outbox(a), vec![want], "slices of {slice}, fcall {fcall}");
            assert_eq!(run(&mut e, a, &["LINDEX", &key, "-1"]), Reply::bulk("300"));
        }
    }
}
