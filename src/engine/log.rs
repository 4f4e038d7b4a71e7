//! The server log: server.c `serverLog()` as lines the host drains (`Engine::take_log`, in
//! engine/mod.rs) —
//! `redisplay serve` prints them on stderr in redis-server's format; the page may show them.
//! Only what the playground models logs here (saving, loading, shutting down); the log is
//! bounded, its oldest lines dropped first.

use std::collections::VecDeque;

/// Lines kept until the host takes them.
const CAPACITY: usize = 1000;

/// server.h's `LL_*` levels, with the character redis-server prints for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Debug,
    Verbose,
    Notice,
    Warning,
}

impl LogLevel {
    /// The mark before the message (`.`, `-`, `*`, `#`).
    pub fn mark(self) -> char {
        match self {
            LogLevel::Debug => '.',
            LogLevel::Verbose => '-',
            LogLevel::Notice => '*',
            LogLevel::Warning => '#',
        }
    }
}

/// One line: when (the virtual clock, Unix ms), how loud, what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    pub at_ms: i64,
    pub level: LogLevel,
    pub message: String,
}

#[derive(Debug, Clone, Default)]
pub struct ServerLog {
    lines: VecDeque<LogLine>,
}

impl ServerLog {
    /// `serverLog()`: one more line (the oldest goes when the log is full).
    pub fn push(&mut self, line: LogLine) {
        if self.lines.len() >= CAPACITY {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }

    /// Every line, oldest first; the log is left empty.
    pub fn take(&mut self) -> Vec<LogLine> {
        self.lines.drain(..).collect()
    }
}
