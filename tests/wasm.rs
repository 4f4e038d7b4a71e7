//! The engine through its wasm bindings, in headless Chromium (`cargo test --target
//! wasm32-unknown-unknown --test wasm`, run by wasm-bindgen-test-runner): every golden transcript (recorded from redis-server 7.0.15) through
//! `Playground::execute` (those under tests/scripts/raw/ with the console in raw mode,
//! `Playground::set_raw`); hostile lines — every line gets an answer, nothing traps, the engine
//! still answers afterwards; and the clock/events API.
#![cfg(target_arch = "wasm32")]

#[path = "support/malformed.rs"]
mod malformed;

mod common;

include!(concat!(env!("OUT_DIR"), "/transcripts.rs"));

/// The `redis-cli --raw` transcripts, by hand (build.rs's output can be another checkout's);
/// tests/golden.rs checks this list against the directory.
const RAW_TRANSCRIPTS: &[(&str, &[u8], &[u8])] = &[
    ("resp3", include_bytes!("scripts/raw/resp3.redis"), include_bytes!("scripts/raw/resp3.out")),
    ("strings", include_bytes!("scripts/raw/strings.redis"), include_bytes!("scripts/raw/strings.out")),
    ("types", include_bytes!("scripts/raw/types.redis"), include_bytes!("scripts/raw/types.out")),
];

use js_sys::Reflect;
use redisplay::wasm::Playground;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn field(v: &JsValue, name: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

fn text(v: &JsValue) -> String {
    field(v, "text").as_string().unwrap_or_default()
}

/// The exact output bytes of an `execute` result (`bytes` when it isn't valid UTF-8).
fn output_bytes(v: &JsValue) -> Vec<u8> {
    let bytes = field(v, "bytes");
    if bytes.is_undefined() {
        text(v).into_bytes()
    } else {
        js_sys::Uint8Array::new(&bytes).to_vec()
    }
}

#[wasm_bindgen_test]
fn every_transcript_matches_redis_through_the_bindings() {
    assert!(!TRANSCRIPTS.is_empty());
    let mut failures = Vec::new();
    for (name, script, expected) in TRANSCRIPTS {
        let lines = common::parse_script(script);
        let mut pg = Playground::new(Some(0x5eed as f64), Some(1_735_689_600_000.0));
        // The bindings take JS strings, as the page sends them; scripts with bytes that are not
        // UTF-8 go through `\xNN` escapes, which redis-cli's splitting decodes.
        let outputs: Vec<Vec<u8>> =
            lines.iter().map(|l| output_bytes(&pg.execute(&String::from_utf8_lossy(&l.line)))).collect();
        if let Err(m) = common::compare(&lines, &outputs, expected) {
            failures.push(format!("{name}: {m}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[wasm_bindgen_test]
fn every_raw_transcript_matches_redis_cli_raw_through_the_bindings() {
    assert!(!RAW_TRANSCRIPTS.is_empty());
    let mut failures = Vec::new();
    for (name, script, expected) in RAW_TRANSCRIPTS {
        let lines = common::parse_script(script);
        let mut pg = Playground::new(Some(0x5eed as f64), Some(1_735_689_600_000.0));
        pg.set_raw(0, true);
        assert!(pg.raw_of(0));
        let outputs: Vec<Vec<u8>> =
            lines.iter().map(|l| output_bytes(&pg.execute(&String::from_utf8_lossy(&l.line)))).collect();
        if let Err(m) = common::compare(&lines, &outputs, expected) {
            failures.push(format!("raw/{name}: {m}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[wasm_bindgen_test]
fn hints_through_the_bindings() {
    let mut pg = Playground::new(Some(1.0), Some(1_735_689_600_000.0));
    assert_eq!(pg.hint(0, "SET k").as_deref(), Some(" value [NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"));
    assert_eq!(pg.hint(0, "nosuch"), None);
    pg.execute(":set nohints");
    assert_eq!(pg.hint(0, "SET k"), None);
}

#[wasm_bindgen_test]
fn hostile_lines_through_the_bindings_always_get_a_reply() {
    let mut pg = Playground::new(Some(7.0), Some(1_735_689_600_000.0));
    let mut rng = malformed::Rng::new(4242);
    for i in 0..20_000 {
        let line = malformed::line(&mut rng);
        // The bindings take a JS string: the page's console can only send valid UTF-8.
        let line_str = String::from_utf8_lossy(&line).into_owned();
        let out = pg.execute(&line_str);
        let quit = field(&out, "quit").as_bool().unwrap_or(false);
        if text(&out).is_empty() && !quit {
            assert!(malformed::prints_nothing(line_str.as_bytes()), "line {i} printed nothing: {line_str:?}");
        }
        if i % 1000 == 0 {
            assert_eq!(text(&pg.execute("PING")), "PONG\n");
            pg.execute("FLUSHALL");
            pg.execute("SELECT 0");
        }
    }
    assert_eq!(text(&pg.execute("PING")), "PONG\n");
}

#[wasm_bindgen_test]
fn virtual_time_expires_keys_and_reports_events() {
    let mut pg = Playground::new(Some(1.0), Some(1_735_689_600_000.0));
    assert_eq!(text(&pg.execute("SET order:1 pending PX 1500")), "OK\n");
    pg.drain_events();
    let adv = pg.advance_to(pg.now() + 2000.0, None);
    assert_eq!(field(&adv, "ticks").as_f64(), Some(20.0));
    assert_eq!(field(&adv, "lagMs").as_f64(), Some(0.0));
    assert_eq!(text(&pg.execute("GET order:1")), "(nil)\n");
    let drained = pg.drain_events();
    let events = js_sys::Array::from(&field(&drained, "events"));
    let kinds: Vec<String> = events.iter().filter_map(|e| field(&e, "kind").as_string()).collect();
    assert!(kinds.contains(&"cron".to_string()), "{kinds:?}");
    assert!(kinds.contains(&"expired".to_string()), "{kinds:?}");
    let prompt_before = pg.prompt();
    pg.execute("SELECT 3");
    assert_eq!(pg.prompt(), "127.0.0.1:6379[3]> ");
    pg.reset();
    assert_eq!(pg.prompt(), prompt_before);
    assert_eq!(text(&pg.execute("DBSIZE")), "(integer) 0\n");
}

#[wasm_bindgen_test]
fn a_frame_budget_reports_lag_instead_of_dropping_ticks() {
    let mut pg = Playground::new(Some(1.0), Some(0.0));
    let adv = pg.advance_to(60_000.0, Some(100.0));
    assert_eq!(field(&adv, "ticks").as_f64(), Some(100.0));
    assert_eq!(field(&adv, "lagMs").as_f64(), Some(50_000.0));
    assert_eq!(pg.now(), 10_000.0);
}

#[wasm_bindgen_test]
fn an_endless_script_runs_in_slices_the_other_console_gets_busy_and_kills_it() {
    let mut pg = Playground::new(Some(1.0), Some(1_735_689_600_000.0));
    assert_eq!(text(&pg.execute("SET k v")), "OK\n");
    assert_eq!(text(&pg.execute("CONFIG SET busy-reply-threshold 10")), "OK\n");
    let out = pg.execute("EVAL \"while true do end\" 0");
    assert_eq!(text(&out), "");
    assert_eq!(field(&out, "blocked").as_bool(), Some(true));
    let other = pg.open_console();
    assert_eq!(
        text(&pg.execute_on(other, "GET k")),
        "(error) BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\n"
    );
    // Frames keep coming: each runs slices of the script; no timer runs meanwhile.
    assert!(pg.script_busy());
    assert!(pg.run_script_slice(250_000.0));
    let adv = pg.advance_to(pg.now() + 1000.0, None);
    assert_eq!(field(&adv, "ticks").as_f64(), Some(0.0));
    assert_eq!(field(&pg.poll(0), "blocked").as_bool(), Some(true));
    assert_eq!(text(&pg.execute_on(other, "SCRIPT KILL")), "OK\n");
    assert!(!pg.run_script_slice(250_000.0));
    assert!(!pg.script_busy());
    let done = pg.poll(0);
    assert!(text(&done).starts_with("(error) ERR Script killed by user with SCRIPT KILL..."), "{}", text(&done));
    assert_eq!(field(&done, "blocked").as_bool(), Some(false));
    assert_eq!(text(&pg.execute("EVAL \"return redis.call('GET', KEYS[1])\" 1 k")), "\"v\"\n");
}

#[wasm_bindgen_test]
fn the_delay_queue_lab_runs_in_slices_and_refuses_bad_configs_with_an_error() {
    use redisplay::wasm::DelayQueueLab;
    let cfg =
        js_sys::JSON::parse(r#"{"strategy": 2, "consumers": 2, "delayMs": 60000, "durationMs": 600000, "seed": 7}"#)
            .unwrap();
    let mut lab = DelayQueueLab::new(cfg).unwrap_or_else(|_| panic!("valid config"));
    let mut events = 0u32;
    let mut t = 0.0;
    while !lab.done() {
        t += 30_000.0;
        lab.run_until(t, Some(500.0));
        let drained = lab.drain();
        events += js_sys::Array::from(&field(&drained, "events")).length();
    }
    assert!(events > 500, "{events}");
    let m = lab.metrics();
    assert!(field(&m, "tasks").as_f64().unwrap() > 400.0);
    assert!(field(&m, "duplicates").as_f64().unwrap() > 0.0, "naive polling with two consumers");
    assert_eq!(lab.next_event_ms(), -1.0);
    for bad in [
        r#"{"strategy": 9}"#,
        r#"{"consumers": 0.5}"#,
        r#"{"ratePerS": "x"}"#,
        r#"{"crashes": [{"consumer": 4}]}"#,
        r#"{"seed": -1}"#,
        r#"{"durationMs": 1e300}"#,
    ] {
        let err =
            DelayQueueLab::new(js_sys::JSON::parse(bad).unwrap()).err().unwrap_or_else(|| panic!("accepted {bad}"));
        let msg = field(&err, "message").as_string().unwrap();
        assert!(msg.starts_with("delay-queue: "), "{msg}");
    }
    assert!(DelayQueueLab::strategy_code(3.0).contains("redis.eval(POP_DUE"));
    assert_eq!(DelayQueueLab::strategy_name(7.0), "");
}

/// The page's second server made a replica of the first, through the bindings (a 32-bit
/// `usize` once turned every RDB payload "too large" here, and nowhere natively).
#[wasm_bindgen_test]
fn a_second_server_becomes_a_replica_through_the_bindings() {
    let mut pg = Playground::new(Some(1.0), Some(1_735_732_800_000.0));
    assert_eq!(text(&pg.execute("SET session:42 alice EX 1800")), "OK\n");
    let r = pg.open_console_on(1);
    assert_eq!(pg.console_server(r), 1);
    assert_eq!(pg.prompt_of(r), "127.0.0.1:6380> ");
    assert_eq!(text(&pg.execute_on(r, "REPLICAOF 127.0.0.1 6379")), "OK\n");
    // The diskless sync waits repl-diskless-sync-delay (5 s); one clock moves both servers.
    assert_eq!(text(&pg.execute("CLOCK ADVANCE 6000")), "(integer) 1735732806000\n");
    assert_eq!(text(&pg.execute_on(r, "GET session:42")), "\"alice\"\n");
    pg.set_link_latency(1000.0);
    assert_eq!(text(&pg.execute("SET k v")), "OK\n");
    assert_eq!(text(&pg.execute_on(r, "EXISTS k")), "(integer) 0\n", "on the wire for a second");
    pg.advance_to(pg.now() + 1000.0, None);
    assert_eq!(text(&pg.execute_on(r, "EXISTS k")), "(integer) 1\n");
    let snap = pg.replication();
    let servers = js_sys::Array::from(&field(&snap, "servers"));
    assert_eq!(servers.length(), 2);
    assert_eq!(field(&servers.get(1), "role").as_string().as_deref(), Some("slave"));
    assert_eq!(field(&servers.get(1), "link").as_string().as_deref(), Some("connected"));
}
