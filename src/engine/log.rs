//! The server log: server.c `serverLog()` as lines the host drains (`Engine::take_log`) —
//! `redisplay serve` prints them on stderr in redis-server's format; the page may show them.
//! Only what the playground models logs here (saving, loading, shutting down); the log is
//! bounded, its oldest lines dropped first.

use std::collections::VecDeque;

use super::Engine;

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

impl Engine {
    /// `serverLog()`.
    pub(crate) fn server_log(&mut self, level: LogLevel, message: impl Into<String>) {
        if self.log.lines.len() >= CAPACITY {
            self.log.lines.pop_front();
        }
        self.log.lines.push_back(LogLine { at_ms: self.now_ms, level, message: message.into() });
    }

    /// The log lines written since the last call, oldest first.
    pub fn take_log(&mut self) -> Vec<LogLine> {
        self.log.lines.drain(..).collect()
    }
}
