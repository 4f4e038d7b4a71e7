//! Driving the engine as a console user does: through the redis-cli REPL (`Session`).

use redisplay::Session;

/// Types one line into the console and returns what redis-cli would print.
pub fn run(s: &mut Session, line: &str) -> String {
    String::from_utf8(s.run_line(line.as_bytes()).text).unwrap()
}
