//! The slow log: models slowlog.c — `slowlogCreateEntry()` and `slowlogPushEntryIfNeeded()` —
//! and server.c `slowlogPushCurrentCommand()`. A command whose duration (µs, from the cost
//! model's virtual CPU clock) reaches `slowlog-log-slower-than` is remembered with its
//! arguments — at most 32 (the last one then says how many more there were), each string cut at
//! 128 bytes with a note of how many more it had — the client's address and name, and the
//! virtual time in seconds; the log keeps the newest `slowlog-max-len` entries.
//!
//! Arguments Redis redacts before they can reach the log (`redactClientCommandArgument()`: the
//! password of AUTH and HELLO … AUTH, the value of CONFIG SET for a sensitive parameter) are
//! logged as `(redacted)`. Commands flagged `skip_slowlog` (EXEC…) are never logged.

use crate::engine::stats::SlowlogEntry;
use crate::engine::{ClientId, Engine};

/// slowlog.h SLOWLOG_ENTRY_MAX_ARGC / SLOWLOG_ENTRY_MAX_STRING.
pub const MAX_ARGC: usize = 32;
pub const MAX_STRING: usize = 128;

/// The arguments as the slow log keeps them.
pub fn entry_argv(argv: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let argc = argv.len();
    let slargc = argc.min(MAX_ARGC);
    let mut out = Vec::with_capacity(slargc);
    for (j, a) in argv.iter().take(slargc).enumerate() {
        if slargc != argc && j == slargc - 1 {
            out.push(format!("... ({} more arguments)", argc - slargc + 1).into_bytes());
        } else if a.len() > MAX_STRING && !is_int_encoded(a) {
            let mut s = a[..MAX_STRING].to_vec();
            s.extend_from_slice(format!("... ({} more bytes)", a.len() - MAX_STRING).as_bytes());
            out.push(s);
        } else {
            out.push(a.clone());
        }
    }
    out
}

/// An argument Redis holds int-encoded is never trimmed (it has at most 20 characters anyway).
fn is_int_encoded(a: &[u8]) -> bool {
    a.len() <= 20 && crate::util::string2ll(a).is_some()
}

/// `redactClientCommandArgument()`: the arguments Redis replaces with `(redacted)` before the
/// command runs, for the command `name` (lowercase full name).
pub fn redact(name: &str, argv: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out = argv.to_vec();
    let redacted = || b"(redacted)".to_vec();
    match name {
        // AUTH [username] password: every argument after the command.
        "auth" => {
            for a in out.iter_mut().skip(1) {
                *a = redacted();
            }
        }
        // HELLO … AUTH username password: the two after AUTH.
        "hello" => {
            let mut j = 2;
            while j < out.len() {
                if crate::command::is_opt(&out[j], "auth") && j + 2 < out.len() {
                    out[j + 1] = redacted();
                    out[j + 2] = redacted();
                    j += 3;
                } else if crate::command::is_opt(&out[j], "setname") && j + 1 < out.len() {
                    j += 2;
                } else {
                    j += 1;
                }
            }
        }
        // CONFIG SET: the values of sensitive parameters (requirepass, masterauth, masteruser).
        "config|set" => {
            let mut j = 2;
            while j + 1 < out.len() {
                if crate::config::is_sensitive(&out[j]) {
                    out[j + 1] = redacted();
                }
                j += 2;
            }
        }
        _ => {}
    }
    out
}

impl Engine {
    /// slowlog.c `slowlogPushEntryIfNeeded()` for `client`'s command.
    pub(crate) fn slowlog_push_if_needed(&mut self, client: ClientId, name: &str, argv: &[Vec<u8>], duration: u64) {
        let slower_than = self.hot.slowlog_log_slower_than;
        if slower_than < 0 {
            return;
        }
        if duration >= slower_than as u64 {
            let (peer, cname) = match self.clients.get(&client) {
                Some(c) => (c.peer_addr(), c.name.clone()),
                None => (String::new(), Vec::new()),
            };
            let entry = SlowlogEntry {
                id: self.slowlog.next_id,
                time: self.now_ms.div_euclid(1000),
                duration,
                argv: entry_argv(&redact(name, argv)),
                peer,
                name: cname,
            };
            self.slowlog.next_id += 1;
            self.slowlog.entries.push_front(entry);
        }
        let max = self.hot.slowlog_max_len.max(0) as usize;
        while self.slowlog.entries.len() > max {
            self.slowlog.entries.pop_back();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_arguments_are_cut_like_slowlog_c() {
        let argv: Vec<Vec<u8>> = (0..40).map(|i| format!("a{i}").into_bytes()).collect();
        let e = entry_argv(&argv);
        assert_eq!(e.len(), 32);
        assert_eq!(e[31], b"... (9 more arguments)");
        assert_eq!(e[30], b"a30");
        let long = vec![b'x'; 200];
        let e = entry_argv(&[b"set".to_vec(), b"k".to_vec(), long]);
        assert_eq!(e[2].len(), 128 + "... (72 more bytes)".len());
        assert!(e[2].ends_with(b"... (72 more bytes)"));
    }

    #[test]
    fn passwords_are_redacted() {
        let v = |s: &[&str]| s.iter().map(|a| a.as_bytes().to_vec()).collect::<Vec<_>>();
        assert_eq!(redact("auth", &v(&["auth", "u", "p"])), v(&["auth", "(redacted)", "(redacted)"]));
        assert_eq!(
            redact("hello", &v(&["hello", "3", "AUTH", "u", "p"])),
            v(&["hello", "3", "AUTH", "(redacted)", "(redacted)"])
        );
        assert_eq!(
            redact("config|set", &v(&["config", "set", "requirepass", "x", "hz", "5"])),
            v(&["config", "set", "requirepass", "(redacted)", "hz", "5"])
        );
    }
}
