//! MONITOR: models replication.c `replicationFeedMonitors()` — every command a client runs, as
//! one status line to each client in MONITOR mode — and the redactions of acl.c/networking.c
//! (`redactClientCommandArgument()` in AUTH and HELLO). The MONITOR command itself is in
//! command/replication.rs; where each command is fed is dispatch.rs's `call()`.
//!
//! A line is `<unix seconds>.<microseconds> [<db> <ip:port>] "arg" "arg"…`, each argument
//! quoted as sdscatrepr() quotes it; a command a script runs shows `[<db> lua]`. Commands are
//! fed after they ran (so SELECT shows its new db, and EXEC's commands come before EXEC); the
//! script commands (EVAL, EVALSHA, their _RO forms, FCALL, FCALL_RO) before they run, so the
//! script's own commands follow them; administrative commands (CONFIG, CLIENT KILL, DEBUG…) and
//! commands refused before running (unknown, wrong arity, NOAUTH, OOM) never.
//!
//! Differences: the time is the virtual clock (Redis reads gettimeofday() for each line), so
//! the microseconds are those of the millisecond the command ran at; a line that would pass
//! `playground-max-alloc` (arguments quoted can take four times their size) is cut there.

use std::borrow::Cow;

use crate::engine::{ClientId, Engine};
use crate::reply::{cat_repr, Reply};

/// What a monitor sees of a command's arguments: AUTH's credentials (when AUTH takes them) and
/// HELLO's `AUTH user pass` read `(redacted)`.
fn redacted(argv: &[Vec<u8>]) -> Cow<'_, [Vec<u8>]> {
    let name = argv.first().map(|n| crate::command::c_str(n).to_ascii_lowercase()).unwrap_or_default();
    let mut hide = Vec::new();
    if name == b"auth" && argv.len() <= 3 {
        hide.extend(1..argv.len());
    } else if name == b"hello" && argv.len() >= 2 {
        // helloCommand(): the version must parse and be 2 or 3 before the options are read.
        if matches!(crate::util::string2ll(&argv[1]), Some(2 | 3)) {
            let mut j = 2;
            while j < argv.len() {
                let more = argv.len() - j - 1;
                if crate::command::is_opt(&argv[j], "auth") && more >= 2 {
                    hide.extend([j + 1, j + 2]);
                    j += 3;
                } else if crate::command::is_opt(&argv[j], "setname") && more >= 1 {
                    j += 2;
                } else {
                    break;
                }
            }
        }
    }
    if hide.is_empty() {
        return Cow::Borrowed(argv);
    }
    let mut out = argv.to_vec();
    for i in hide {
        out[i] = b"(redacted)".to_vec();
    }
    Cow::Owned(out)
}

impl Engine {
    /// replication.c `replicationFeedMonitors()`: `client`'s command, in db `db`, to every
    /// monitor.
    pub(crate) fn feed_monitors(&mut self, client: ClientId, db: usize, argv: &[Vec<u8>]) {
        if self.monitors.is_empty() {
            return;
        }
        let now = self.now_ms;
        let mut line = format!("{}.{:06} ", now.div_euclid(1000), now.rem_euclid(1000) * 1000).into_bytes();
        if self.in_script {
            line.extend(format!("[{db} lua]").bytes());
        } else {
            let addr = self.clients.get(&client).map(|c| c.peer_addr()).unwrap_or_default();
            line.extend(format!("[{db} {addr}]").bytes());
        }
        // A line longer than one allocation may be is cut (args of hundreds of MB through
        // `redisplay serve` would quadruple when quoted).
        let max = self.config.int("playground-max-alloc").max(1024) as usize;
        for arg in redacted(argv).iter() {
            let room = max.saturating_sub(line.len() + 3) / 4;
            line.push(b' ');
            if arg.len() > room {
                cat_repr(&mut line, &arg[..room]);
                line.extend_from_slice(b" ... (cut by the playground: the line passed playground-max-alloc)");
                break;
            }
            cat_repr(&mut line, arg);
        }
        // sdscatrepr() leaves only printable ASCII: the line is a status reply.
        let reply = Reply::Status(String::from_utf8_lossy(&line).into_owned());
        for id in self.monitors.clone() {
            self.add_reply(id, reply.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(a: &[&str]) -> Vec<Vec<u8>> {
        a.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    #[test]
    fn credentials_are_redacted_where_redis_redacts_them() {
        assert_eq!(&*redacted(&argv(&["AUTH", "pw"])), &argv(&["AUTH", "(redacted)"])[..]);
        assert_eq!(&*redacted(&argv(&["auth", "u", "pw"])), &argv(&["auth", "(redacted)", "(redacted)"])[..]);
        // A syntax error comes first: nothing is redacted.
        assert_eq!(&*redacted(&argv(&["AUTH", "a", "b", "c"])), &argv(&["AUTH", "a", "b", "c"])[..]);
        assert_eq!(
            &*redacted(&argv(&["HELLO", "3", "SETNAME", "n", "AUTH", "u", "p"])),
            &argv(&["HELLO", "3", "SETNAME", "n", "AUTH", "(redacted)", "(redacted)"])[..]
        );
        assert_eq!(&*redacted(&argv(&["HELLO", "4", "AUTH", "u", "p"])), &argv(&["HELLO", "4", "AUTH", "u", "p"])[..]);
        assert_eq!(&*redacted(&argv(&["GET", "k"])), &argv(&["GET", "k"])[..]);
    }

    #[test]
    fn huge_arguments_make_a_bounded_line() {
        use crate::engine::EngineOptions;
        let mut e = Engine::new(EngineOptions::default());
        let (m, c) = (e.connect(), e.connect());
        e.execute(m, &argv(&["MONITOR"]));
        e.take_outbox(m);
        e.execute(c, &[b"ECHO".to_vec(), vec![0xff; 20 << 20]]);
        let lines = e.take_outbox(m);
        let Some(Reply::Status(line)) = lines.first() else { panic!("{lines:?}") };
        let max = e.config.int("playground-max-alloc") as usize;
        assert!(line.len() <= max + 100 && line.len() > max / 2, "{}", line.len());
        assert!(line.ends_with("playground-max-alloc)"));
        e.execute(c, &argv(&["ECHO", "small"]));
        let Some(Reply::Status(line)) = e.take_outbox(m).pop() else { panic!() };
        assert!(line.ends_with("\"ECHO\" \"small\""), "{line}");
    }
}
