//! Propagation: the stream of write commands an AOF and replicas receive — server.c
//! `alsoPropagate()`, `propagateNow()`, `propagatePendingCommands()` and `call()`'s rule
//! (a command that changed the dataset propagates its argv, as the command left it), db.c
//! `propagateDeletion()` (a key reclaimed by expiry or eviction goes out as `DEL`, or `UNLINK`
//! under lazyfree), and the rewrites commands make so that a replay gives the same data:
//! relative expiries become absolute (`SET … PXAT`, `PEXPIREAT`), `INCRBYFLOAT` becomes
//! `SET … KEEPTTL`, `SPOP` becomes `SREM`, a served blocking pop its non-blocking form, a
//! script its effects. Ops of one command (EXEC, a script) that are more than one are wrapped
//! in `MULTI` … `EXEC`.
//!
//! The engine records the stream only while something listens: the AOF (its buffer, fed
//! here as `feedAppendOnlyFile()` does) or a host that takes the ops (`Engine::set_propagation`,
//! `take_propagated`). A consumer inserts `SELECT` where the db changes (`Feed`), as
//! `feedAppendOnlyFile()` and `replicationFeedSlaves()` do.

use std::collections::VecDeque;

/// Where an op goes (server.h `PROPAGATE_AOF` / `PROPAGATE_REPL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Targets {
    pub aof: bool,
    pub repl: bool,
}

impl Targets {
    pub const BOTH: Targets = Targets { aof: true, repl: true };
    /// PUBLISH and SPUBLISH: to replicas only (pubsub.c `forceCommandPropagation(c,
    /// PROPAGATE_REPL)`).
    pub const REPL: Targets = Targets { aof: false, repl: true };
}

/// One propagated command: its db (`None` for `EXEC`, which never switches it) and argv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op {
    pub db: Option<usize>,
    pub argv: Vec<Vec<u8>>,
    pub targets: Targets,
}

/// What a running command asked of propagation (the client flags and argv rewrites of
/// server.c's `call()`).
#[derive(Debug, Default)]
pub(crate) struct CallState {
    /// `rewriteClientCommandVector()`: propagate this instead of the command's argv.
    pub(crate) rewrite: Option<Vec<Vec<u8>>>,
    /// `preventCommandPropagation()`: the command's own argv is not propagated (its effects
    /// were, with `also_propagate`).
    pub(crate) prevent: bool,
    /// `forceCommandPropagation()`: propagated even though nothing changed.
    pub(crate) force: Option<Targets>,
}

/// The AOF's end of the stream: `server.aof_buf` and `server.aof_selected_db`.
#[derive(Debug, Default)]
pub(crate) struct AofSink {
    pub(crate) feed: Feed,
    pub(crate) buf: Vec<u8>,
}

/// The engine's propagation state.
#[derive(Debug, Default)]
pub struct Propagation {
    /// Something listens (the host, the AOF, the trace or replicas): ops are recorded.
    pub(crate) listening: bool,
    /// A host takes the ops (`out`).
    pub(crate) external: bool,
    /// The AOF is fed (`aof_state` on, or waiting for its rewrite).
    pub(crate) aof: Option<AofSink>,
    /// The host's event log shows the stream (`Engine::set_propagation_trace`): ops are copied
    /// to `traced` for the engine to turn into `Event::Propagated`.
    pub(crate) trace: bool,
    pub(crate) traced: Vec<Op>,
    /// A replication backlog exists on a master (replication.rs): `Targets.repl` ops also go
    /// to `repl_out`, which replication.rs turns into the replicas' stream.
    pub(crate) repl: bool,
    pub(crate) repl_out: VecDeque<Op>,
    /// `server.also_propagate`: the ops of the command running now.
    pub(crate) pending: Vec<Op>,
    /// Ops ready for the consumers.
    pub(crate) out: VecDeque<Op>,
    pub(crate) call: CallState,
}

impl Propagation {
    /// Recomputes `listening` after a consumer came or went.
    pub(crate) fn refresh(&mut self) {
        self.listening = self.external || self.aof.is_some() || self.trace || self.repl;
        if !self.trace {
            self.traced.clear();
        }
        if !self.repl {
            self.repl_out.clear();
        }
        if !self.listening {
            self.pending.clear();
        }
        if !self.external {
            self.out.clear();
        }
    }

    /// The host's and the replicas' ends on or off (the AOF's and the trace's have their own).
    pub(crate) fn set_consumers(&mut self, external: bool, repl: bool) {
        self.external = external;
        self.repl = repl;
        self.refresh();
    }

    /// `propagateNow()`: to every consumer (a reclaimed key's DEL goes out before the command
    /// that found it expired).
    pub(crate) fn now(&mut self, db: Option<usize>, argv: Vec<Vec<u8>>, targets: Targets) {
        if self.listening {
            self.emit(Op { db, argv, targets });
        }
    }

    /// One op to each consumer that wants it.
    fn emit(&mut self, op: Op) {
        if self.trace {
            self.traced.push(op.clone());
        }
        if let (Some(sink), true) = (self.aof.as_mut(), op.targets.aof) {
            sink.feed.cat(&mut sink.buf, &op);
        }
        if self.repl && op.targets.repl {
            if self.external {
                self.repl_out.push_back(op.clone());
            } else {
                self.repl_out.push_back(op);
                return;
            }
        }
        if self.external {
            self.out.push_back(op);
        }
    }

    /// `alsoPropagate()`.
    pub(crate) fn also(&mut self, db: usize, argv: Vec<Vec<u8>>, targets: Targets) {
        if self.listening {
            self.pending.push(Op { db: Some(db), argv, targets });
        }
    }

    /// `propagatePendingCommands()`: the top-level command ended; its ops go out, wrapped in
    /// MULTI/EXEC when there are more than one (MULTI takes the first op's db, so that the
    /// SELECT comes before it).
    pub(crate) fn flush_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let ops = std::mem::take(&mut self.pending);
        if ops.len() > 1 {
            let targets = Targets { aof: ops.iter().any(|o| o.targets.aof), repl: ops.iter().any(|o| o.targets.repl) };
            self.emit(Op { db: ops[0].db, argv: vec![b"MULTI".to_vec()], targets });
            for op in ops {
                self.emit(op);
            }
            self.emit(Op { db: None, argv: vec![b"EXEC".to_vec()], targets });
        } else {
            for op in ops {
                self.emit(op);
            }
        }
    }
}

/// A consumer of the stream (an AOF, a replica link): inserts `SELECT` where the db changes.
#[derive(Debug, Clone, Default)]
pub struct Feed {
    /// `server.aof_selected_db` / `server.slaveseldb`: none at first, so the first op selects.
    pub selected: Option<usize>,
}

impl Feed {
    /// The commands `ops` become for this consumer.
    pub fn commands(&mut self, ops: &[Op]) -> Vec<Vec<Vec<u8>>> {
        let mut out = Vec::with_capacity(ops.len());
        for op in ops {
            if let Some(db) = op.db {
                if self.selected != Some(db) {
                    out.push(vec![b"SELECT".to_vec(), db.to_string().into_bytes()]);
                    self.selected = Some(db);
                }
            }
            out.push(op.argv.clone());
        }
        out
    }

    /// The op as this consumer writes it (`feedAppendOnlyFile()`): a `SELECT` first if its db
    /// is not the selected one, then the command, in the AOF format.
    pub fn cat(&mut self, out: &mut Vec<u8>, op: &Op) {
        if let Some(db) = op.db {
            if self.selected != Some(db) {
                crate::persist::aof::cat_command(out, &[b"SELECT".to_vec(), db.to_string().into_bytes()]);
                self.selected = Some(db);
            }
        }
        crate::persist::aof::cat_command(out, &op.argv);
    }
}

/// `client 3: SET k v EX 60`: a propagated op's cause, as the client typed it (long arguments
/// and long commands cut).
pub fn cause_text(client: Option<u64>, argv: &[Vec<u8>]) -> String {
    let mut out = match client {
        Some(id) => format!("client {id}:"),
        None => String::new(),
    };
    for a in argv.iter().take(8) {
        let t = crate::util::text(&a[..a.len().min(40)]);
        out.push(' ');
        out.push_str(&t);
        if a.len() > 40 {
            out.push('…');
        }
    }
    if argv.len() > 8 {
        out.push_str(" …");
    }
    out.trim_start().to_string()
}

/// An argv from text words.
pub fn argv<const N: usize>(words: [&[u8]; N]) -> Vec<Vec<u8>> {
    words.iter().map(|w| w.to_vec()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_than_one_op_is_a_transaction_and_the_feed_selects() {
        let mut p = Propagation { external: true, ..Default::default() };
        p.refresh();
        p.also(3, argv([b"SET", b"a", b"1"]), Targets::BOTH);
        p.flush_pending();
        p.also(0, argv([b"SET", b"b", b"1"]), Targets::BOTH);
        p.also(0, argv([b"INCR", b"b"]), Targets::BOTH);
        p.flush_pending();
        let ops: Vec<Op> = p.out.drain(..).collect();
        let mut feed = Feed::default();
        let words: Vec<String> =
            feed.commands(&ops).iter().map(|a| String::from_utf8_lossy(&a.join(&b' ')).into_owned()).collect();
        assert_eq!(words, ["SELECT 3", "SET a 1", "SELECT 0", "MULTI", "SET b 1", "INCR b", "EXEC"]);
    }

    #[test]
    fn nothing_is_recorded_unless_something_listens() {
        let mut p = Propagation::default();
        p.also(0, argv([b"SET", b"a", b"1"]), Targets::BOTH);
        p.now(Some(0), argv([b"DEL", b"a"]), Targets::BOTH);
        p.flush_pending();
        assert!(p.out.is_empty());
    }
}
