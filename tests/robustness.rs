//! Tens of thousands of hostile lines through the engine natively: every line gets an answer
//! (some text, unless redis-cli itself would print nothing), nothing panics, nothing hangs,
//! and the engine still answers PING afterwards.

#[path = "support/malformed.rs"]
mod malformed;

use redisplay::{EngineOptions, Session};

const LINES: usize = 40_000;

#[test]
fn hostile_lines_always_get_a_reply() {
    let mut rng = malformed::Rng::new(20261129);
    let mut session = Session::new(EngineOptions { seed: 7, start_ms: 1_735_689_600_000 });
    for i in 0..LINES {
        let line = malformed::line(&mut rng);
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| session.run_line(&line)))
            .unwrap_or_else(|_| panic!("line {i} panicked: {:?}", String::from_utf8_lossy(&line)));
        if out.text.is_empty() && !out.quit {
            assert!(malformed::prints_nothing(&line), "line {i} printed nothing: {:?}", String::from_utf8_lossy(&line));
        }
        if i % 1000 == 0 {
            assert_eq!(session.run_line(b"PING").text, b"PONG\n", "engine stopped answering after line {i}");
            // Keep memory bounded: the generator writes long values.
            session.run_line(b"FLUSHALL");
            session.run_line(b"SELECT 0");
        }
    }
    assert_eq!(session.run_line(b"PING").text, b"PONG\n");
}

#[test]
fn huge_numbers_and_clock_abuse_are_errors_not_hangs() {
    let mut s = Session::new(EngineOptions { seed: 1, start_ms: 1_735_689_600_000 });
    let cases: &[(&str, &str)] = &[
        ("CLOCK ADVANCE 9223372036854775807", "(error) ERR ms must be between"),
        ("CLOCK ADVANCE -1", "(error) ERR ms must be between"),
        ("CLOCK SET -5", "(error) ERR time must be between"),
        ("CLOCK ADVANCE 31536000000000", "(error) ERR CLOCK ADVANCE would run"),
        ("SETRANGE k 536870912 x", "(error) ERR string exceeds maximum allowed size (proto-max-bulk-len)"),
        ("SETRANGE k 536870911 x", "(error) ERR playground limit"),
        ("99999999 PING", "(redisplay) a repeat count above"),
        ("EXPIRE k 9223372036854775807", "(error) ERR invalid expire time in 'expire' command"),
        ("PEXPIREAT k 9223372036854775807", "(integer) 0"),
        ("SADD s a", "(integer) 1"),
        ("SRANDMEMBER s -9223372036854775807", "(error) ERR playground limit"),
    ];
    for (line, want) in cases {
        let text = String::from_utf8(s.run_line(line.as_bytes()).text).unwrap();
        assert!(text.starts_with(want), "{line} → {text}");
    }
    // The clock survives a far jump that is allowed, and keys expire across it.
    s.run_line(b"SET k v EX 10");
    assert_eq!(
        s.run_line(b"CLOCK ADVANCE 86400000").text,
        format!("(integer) {}\n", 1_735_689_600_000i64 + 86_400_000).into_bytes()
    );
    assert_eq!(s.run_line(b"GET k").text, b"(nil)\n");
}
