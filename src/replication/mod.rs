//! Replication, both roles, as pure code driven by bytes and virtual time — replication.c.
//! The state lives in `state.rs` (the engine holds it); the behaviour is here; `link.rs` is the
//! network that joins two engines in one process (the page's master and replica).
//!
//! Master side: `syncCommand()` / `masterTryPartialResynchronization()` (a client that sends
//! SYNC or PSYNC becomes a replica: `+FULLRESYNC <replid> <offset>`, the RDB, then the command
//! stream; or `+CONTINUE [<replid>]` and the backlog from its offset), `replconfCommand()`
//! (listening-port, ip-address, capa, ack, getack), `replicationFeedSlaves()` (the propagated
//! ops of propagate.rs as RESP commands, `SELECT` where the db changes, into the backlog and
//! every replica's outbox), the backlog (`createReplicationBacklog()`, made when the first
//! replica attaches, with a new replid, as 7.0 does), `replicationCron()` (a `PING` into the
//! stream every `repl-ping-replica-period`, a newline to replicas waiting for their RDB, the
//! replicas that stopped acking for `repl-timeout` dropped, `refreshGoodSlavesCount()` for
//! min-replicas-to-write), WAIT (`waitCommand()`, `processClientsWaitingReplicas()`, the
//! `REPLCONF GETACK *` beforeSleep sends).
//!
//! Replica side: `replicationSetMaster()` / `replicationUnsetMaster()` (REPLICAOF, SLAVEOF,
//! `shiftReplicationId()`), `syncWithMaster()`'s handshake (PING, REPLCONF listening-port,
//! REPLCONF capa eof capa psync2, PSYNC with the cached master's replid and offset or `? -1`),
//! `readSyncBulkPayload()` (`$<len>` or `$EOF:<mark>` payloads; the old data flushed, the RDB
//! loaded keeping expired keys, the backlog made), the master client applying the stream
//! (its commands see logically expired keys as alive, nothing is answered, `REPLCONF GETACK`
//! answered with `REPLCONF ACK <offset>`; `reploff`/`read_reploff` counted as Redis counts
//! them; the applied bytes fed to the replica's own backlog), a lost link cached for a partial
//! resync (`replicationCacheMaster()`), `replicationCron()`'s reconnect once a second, the
//! handshake/transfer/link timeouts and the `REPLCONF ACK` every second.
//!
//! The link is the host's: the engine asks for a connection (`repl_link_wanted`), the host
//! opens it and reports it (`repl_link_connected`, `repl_link_closed`), passes the bytes it
//! reads (`repl_link_input`) and sends what the engine wrote (`repl_link_take_output`); when
//! `repl_link_active()` turns false the engine dropped the link and the host closes it. The
//! page wires two engines this way; `redisplay serve` a TCP socket.
//!
//! Differences: the fork of a full sync is a snapshot taken at once and the transfer takes no
//! virtual time (with `repl-diskless-sync yes`, after `repl-diskless-sync-delay` as in Redis,
//! `$EOF:` framing to a replica with capa eof; otherwise `$<len>`), and the RDB sent carries
//! no `repl-*` AUX fields; no replica chaining (a replica's own replicas are not fed the
//! master's stream); no FAILOVER, `repl-backlog-ttl`, `repl-diskless-load`, CONFIG SET
//! `repl-backlog-size` resizing a live backlog, or `replica-serve-stale-data no`; a replica that
//! gets an error to PSYNC retries instead of falling back to SYNC; a failed load leaves the
//! old data (Redis has flushed it). Replication ids come from the seed and a counter (as
//! DEBUG CHANGE-REPL-ID's do), so two engines on the same seed share their first ids: give a
//! master and its replica different seeds.

use std::collections::VecDeque;

use crate::engine::{ClientId, Engine, LogLevel};
pub use state::*;

pub mod link;
pub mod state;
use crate::propagate::Op;
use crate::reply::Reply;

/// `PROTO_INLINE_MAX_SIZE`-like bounds on what a master may send in one frame header.
const MAX_LINE: usize = 64 * 1024;
const MAX_MULTIBULK: i64 = 1024 * 1024;

/// A command as RESP: `*<n>` then `$<len>` bulks.
pub fn encode_command(argv: &[Vec<u8>], out: &mut Vec<u8>) {
    out.extend_from_slice(format!("*{}\r\n", argv.len()).as_bytes());
    for a in argv {
        out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
}

fn words(ws: &[&str]) -> Vec<Vec<u8>> {
    ws.iter().map(|w| w.as_bytes().to_vec()).collect()
}

/// One frame of the master's stream.
pub(crate) enum Frame {
    Command(Vec<Vec<u8>>, usize),
    Incomplete,
    Bad(String),
}

/// Parses one RESP multibulk (or inline) command from `buf`.
pub(crate) fn parse_frame(buf: &[u8], max_bulk: i64) -> Frame {
    let Some(nl) = buf.iter().position(|&b| b == b'\n') else {
        return if buf.len() > MAX_LINE { Frame::Bad("too big header".into()) } else { Frame::Incomplete };
    };
    if buf[0] != b'*' {
        // Inline (a newline keepalive is an empty one).
        let line = &buf[..nl];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let argv: Vec<Vec<u8>> = line.split(|&b| b == b' ').filter(|w| !w.is_empty()).map(|w| w.to_vec()).collect();
        return Frame::Command(argv, nl + 1);
    }
    let Some(n) = std::str::from_utf8(&buf[1..nl]).ok().and_then(|t| t.trim_end_matches('\r').parse::<i64>().ok())
    else {
        return Frame::Bad("invalid multibulk length".into());
    };
    if n > MAX_MULTIBULK {
        return Frame::Bad("invalid multibulk length".into());
    }
    let mut pos = nl + 1;
    let mut argv = Vec::with_capacity(n.max(0) as usize);
    for _ in 0..n.max(0) {
        let Some(rel) = buf[pos..].iter().position(|&b| b == b'\n') else {
            return if buf.len() - pos > MAX_LINE {
                Frame::Bad("too big bulk header".into())
            } else {
                Frame::Incomplete
            };
        };
        let line = &buf[pos..pos + rel];
        if line.first() != Some(&b'$') {
            return Frame::Bad(format!("expected '$', got '{}'", line.first().map_or(' ', |&b| b as char)));
        }
        let Some(len) = std::str::from_utf8(&line[1..]).ok().and_then(|t| t.trim_end_matches('\r').parse::<i64>().ok())
        else {
            return Frame::Bad("invalid bulk length".into());
        };
        if len < 0 || len > max_bulk {
            return Frame::Bad("invalid bulk length".into());
        }
        let start = pos + rel + 1;
        let end = start + len as usize;
        if buf.len() < end + 2 {
            return Frame::Incomplete;
        }
        argv.push(buf[start..end].to_vec());
        pos = end + 2;
    }
    Frame::Command(argv, pos)
}

impl Engine {
    // =========================================================================================
    // Shared
    // =========================================================================================

    /// Whether this engine is a replica (`server.masterhost`).
    pub fn is_replica(&self) -> bool {
        self.repl.is_replica()
    }

    /// `replicationGetSlaveName()`: a replica as the log names it — its ip and the port it
    /// listens on once REPLCONF listening-port told it, else its connection's address.
    fn replica_name(&self, id: ClientId) -> String {
        let addr = self.clients.get(&id).map(|c| c.peer_addr()).unwrap_or_default();
        let Some(p) = self.repl.peers.get(&id).filter(|p| p.listening_port != 0) else { return addr };
        let ip = p
            .announced_ip
            .clone()
            .or_else(|| p.ip.clone())
            .unwrap_or_else(|| addr.rsplit_once(':').map_or_else(|| addr.clone(), |(ip, _)| ip.to_string()));
        format!("{ip}:{}", p.listening_port)
    }

    /// Whether `client` is this replica's master client (`CLIENT_MASTER`).
    pub fn is_master_client(&self, client: ClientId) -> bool {
        self.repl.master_client() == Some(client)
    }

    /// Whether `client` is an attached replica (`CLIENT_SLAVE`).
    pub fn is_replica_client(&self, client: ClientId) -> bool {
        self.repl.peers.get(&client).is_some_and(|p| p.state.is_some())
    }

    /// `changeReplicationId()`: a fresh id from the seed and a counter.
    fn change_replication_id(&mut self) {
        self.debug.replid_changes += 1;
        self.replid = crate::engine::replication_id(self.seed, self.debug.replid_changes);
    }

    fn clear_replication_id2(&mut self) {
        self.repl.replid2 = NULL_REPLID.into();
        self.repl.second_replid_offset = -1;
    }

    /// `shiftReplicationId()`.
    fn shift_replication_id(&mut self) {
        self.repl.replid2 = self.replid.clone();
        self.repl.second_replid_offset = self.repl.master_repl_offset + 1;
        self.change_replication_id();
    }

    fn create_backlog(&mut self) {
        let size = self.config.int("repl-backlog-size").max(16 * 1024) as usize;
        self.repl.backlog = Some(Backlog { buf: VecDeque::new(), size });
        self.update_repl_listening();
    }

    /// Propagation feeds replicas while a master has a backlog.
    fn update_repl_listening(&mut self) {
        let on = self.repl.backlog.is_some() && !self.repl.is_replica();
        let external = self.prop.external;
        self.prop.set_consumers(external, on);
    }

    /// `feedReplicationBuffer()`: bytes into the backlog, the offset moved.
    fn feed_backlog(&mut self, bytes: &[u8]) {
        let Some(b) = self.repl.backlog.as_mut() else { return };
        self.repl.master_repl_offset += bytes.len() as i64;
        b.buf.extend(bytes.iter().copied());
        let excess = b.buf.len().saturating_sub(b.size);
        if excess > 0 {
            b.buf.drain(..excess);
        }
    }

    /// The stream to the backlog and to every replica past its wait.
    fn feed_replicas_bytes(&mut self, bytes: Vec<u8>) {
        if bytes.is_empty() || self.repl.backlog.is_none() {
            return;
        }
        self.feed_backlog(&bytes);
        let online: Vec<ClientId> = self
            .repl
            .order
            .iter()
            .copied()
            .filter(|id| self.repl.peers.get(id).is_some_and(|p| p.state == Some(ReplicaState::Online)))
            .collect();
        for id in online {
            if let Some(held) = self.repl.peers.get_mut(&id).and_then(|p| p.held.as_mut()) {
                held.extend_from_slice(&bytes);
                continue;
            }
            self.send_raw(id, bytes.clone());
        }
    }

    fn send_raw(&mut self, client: ClientId, bytes: Vec<u8>) {
        self.repl.net_output_bytes += bytes.len() as u64;
        if let Some(c) = self.clients.get_mut(&client) {
            c.outbox.push_back(Reply::Raw(bytes));
        }
    }

    /// `replicationFeedSlaves()`: the ops propagation queued for replicas, as RESP with
    /// `SELECT` where the db changes. Run after every command and timer.
    pub(crate) fn replication_feed(&mut self) {
        self.replication_prune();
        if self.prop.repl_out.is_empty() {
            return;
        }
        let ops: Vec<Op> = self.prop.repl_out.drain(..).collect();
        let mut bytes = Vec::new();
        for op in ops {
            if let Some(db) = op.db {
                if self.repl.slaveseldb != Some(db) {
                    encode_command(&[b"SELECT".to_vec(), db.to_string().into_bytes()], &mut bytes);
                    self.repl.slaveseldb = Some(db);
                }
            }
            encode_command(&op.argv, &mut bytes);
        }
        self.feed_replicas_bytes(bytes);
    }

    /// Clients that are gone (freeClient(), CLIENT KILL): a replica leaves the list; the master
    /// client's link is lost (cached for a partial resync). Checked at every entry point rather
    /// than called from `disconnect`, so that closing a client needs nothing of this module.
    pub(crate) fn replication_prune(&mut self) {
        // After every command: nothing to look at on a server with no replica, no WAIT and no master.
        if self.repl.peers.is_empty() && self.repl.waiting.is_empty() && self.repl.master_client().is_none() {
            return;
        }
        let gone: Vec<ClientId> = self.repl.peers.keys().copied().filter(|id| !self.clients.contains_key(id)).collect();
        for id in gone {
            if let Some(p) = self.repl.peers.remove(&id) {
                if p.state.is_some() {
                    self.repl.order.retain(|&r| r != id);
                    let msg = format!(
                        "Connection with replica {}:{} lost.",
                        p.ip.clone().unwrap_or_default(),
                        p.listening_port
                    );
                    self.server_log(LogLevel::Notice, msg);
                    self.refresh_good_replicas();
                }
            }
        }
        self.repl.waiting.retain(|id, _| self.clients.contains_key(id));
        if let Some(id) = self.repl.master_client() {
            if !self.clients.contains_key(&id) {
                self.master_link_lost(true);
            }
        }
    }

    /// `refreshGoodSlavesCount()`.
    fn refresh_good_replicas(&mut self) {
        let max_lag = self.config.int("min-replicas-max-lag");
        let now = self.now_ms;
        self.repl.good_replicas = self
            .repl
            .peers
            .values()
            .filter(|p| p.state == Some(ReplicaState::Online) && (now - p.ack_ms) / 1000 <= max_lag)
            .count();
    }

    /// server.c `checkGoodReplicasStatus()`: writes are allowed (min-replicas-to-write).
    pub(crate) fn good_replicas_ok(&self) -> bool {
        let (min, lag) = (self.config.int("min-replicas-to-write"), self.config.int("min-replicas-max-lag"));
        self.repl.is_replica() || min == 0 || lag == 0 || self.repl.good_replicas as i64 >= min
    }

    /// `replicationCron()`, once a second from serverCron.
    pub(crate) fn replication_cron_tick(&mut self) {
        self.replication_prune();
        if self.now_ms - self.repl.cron_last_ms < 1000 {
            return;
        }
        self.repl.cron_last_ms = self.now_ms;
        let timeout_ms = self.config.int("repl-timeout") * 1000;
        // The replica side.
        if let Some(m) = self.repl.master.as_mut() {
            let now = self.now_ms;
            match m.state {
                LinkState::Connect => m.due = true,
                LinkState::Connected => {
                    if now - m.last_io_ms > timeout_ms {
                        self.server_log(LogLevel::Warning, "MASTER timeout: no data nor PING received...");
                        self.master_link_lost(true);
                    } else {
                        self.replication_send_ack();
                    }
                }
                LinkState::Transfer => {
                    if now - m.last_io_ms > timeout_ms {
                        self.server_log(LogLevel::Warning, "Timeout receiving bulk data from MASTER... If the problem persists try to set the 'repl-timeout' parameter in redis.conf to a larger value.");
                        self.cancel_handshake();
                    }
                }
                _ => {
                    if now - m.last_io_ms > timeout_ms {
                        self.server_log(LogLevel::Warning, "Timeout connecting to the MASTER...");
                        self.cancel_handshake();
                    }
                }
            }
        }
        // The master side.
        let period = self.config.int("repl-ping-replica-period").max(1) as u64;
        if !self.repl.is_replica() && !self.repl.order.is_empty() && self.repl.cron_loops.is_multiple_of(period) {
            let mut ping = Vec::new();
            encode_command(&[b"PING".to_vec()], &mut ping);
            self.feed_replicas_bytes(ping);
        }
        let now = self.now_ms;
        let mut timed_out = Vec::new();
        for id in self.repl.order.clone() {
            let Some(p) = self.repl.peers.get(&id) else { continue };
            match p.state {
                Some(ReplicaState::WaitBgsave) => self.send_raw(id, b"\n".to_vec()),
                Some(ReplicaState::Online) if !p.pre_psync && now - p.ack_ms > timeout_ms => timed_out.push(id),
                _ => {}
            }
        }
        for id in timed_out {
            let addr = self.replica_name(id);
            self.server_log(LogLevel::Warning, format!("Disconnecting timedout replica (streaming sync): {addr}"));
            self.disconnect(id);
        }
        self.repl.cron_loops += 1;
        self.refresh_good_replicas();
        self.start_pending_full_syncs();
    }

    /// Whether replication wants serverCron to run (the engine fast-forwards idle ticks).
    pub(crate) fn replication_has_work(&self) -> bool {
        self.repl.is_replica() || !self.repl.order.is_empty() || !self.repl.waiting.is_empty()
    }

    // =========================================================================================
    // Master side
    // =========================================================================================

    /// REPLCONF's options from a client (`replconfCommand()`).
    pub(crate) fn replconf(&mut self, client: ClientId, args: &[Vec<u8>]) -> Result<Option<Reply>, Reply> {
        let mut i = 0;
        while i + 1 < args.len() {
            let (opt, val) = (args[i].to_ascii_lowercase(), &args[i + 1]);
            match opt.as_slice() {
                b"listening-port" => {
                    let port = crate::util::string2ll(val)
                        .ok_or_else(|| Reply::err("ERR value is not an integer or out of range"))?;
                    self.repl.peers.entry(client).or_default().listening_port = port;
                }
                b"ip-address" => {
                    self.repl.peers.entry(client).or_default().announced_ip =
                        Some(String::from_utf8_lossy(val).into_owned());
                }
                b"capa" => {
                    let p = self.repl.peers.entry(client).or_default();
                    if val.eq_ignore_ascii_case(b"eof") {
                        p.capa_eof = true;
                    } else if val.eq_ignore_ascii_case(b"psync2") {
                        p.capa_psync2 = true;
                    }
                }
                b"ack" => {
                    // Never answered; ignored from a client that is not a replica.
                    let mut start_stream = None;
                    if let (Some(p), Some(off)) = (self.repl.peers.get_mut(&client), crate::util::string2ll(val)) {
                        if p.state.is_some() {
                            if off > p.ack_off {
                                p.ack_off = off;
                            }
                            p.ack_ms = self.now_ms;
                            // replicaStartCommandStream(): what was held since the payload.
                            start_stream = p.held.take();
                        }
                    }
                    if let Some(held) = start_stream.filter(|h| !h.is_empty()) {
                        self.send_raw(client, held);
                    }
                    return Ok(None);
                }
                b"getack" => {
                    if self.is_master_client(client) {
                        self.replication_send_ack();
                    }
                    return Ok(None);
                }
                b"rdb-only" => {}
                _ => {
                    return Err(Reply::err(format!(
                        "ERR Unrecognized REPLCONF option: {}",
                        String::from_utf8_lossy(&args[i])
                    )))
                }
            }
            i += 2;
        }
        Ok(Some(Reply::ok()))
    }

    /// `syncCommand()`: SYNC (`psync` None) or PSYNC <replid> <offset>. Everything goes to the
    /// client's outbox as raw bytes; the command's own reply is dropped.
    pub(crate) fn sync_command(&mut self, client: ClientId, psync: Option<(&[u8], &[u8])>) -> Result<(), Reply> {
        if self.is_replica_client(client) {
            return Ok(());
        }
        if let Some(m) = &self.repl.master {
            if m.state != LinkState::Connected {
                return Err(Reply::err("NOMASTERLINK Can't SYNC while not connected with my master"));
            }
        }
        let addr = self.replica_name(client);
        self.server_log(LogLevel::Notice, format!("Replica {addr} asks for synchronization"));
        let ip = addr.rsplit_once(':').map_or(addr.clone(), |(ip, _)| ip.to_string());
        self.repl.peers.entry(client).or_default().ip = Some(ip);
        if let Some((replid, offset)) = psync {
            if self.try_partial_resync(client, replid, offset) {
                return Ok(());
            }
        }
        self.repl.sync_full += 1;
        let now = self.now_ms;
        let p = self.repl.peers.entry(client).or_default();
        p.state = Some(ReplicaState::WaitBgsave);
        p.pre_psync = psync.is_none();
        p.since_ms = now;
        p.ack_ms = now;
        self.repl.order.push(client);
        if self.repl.order.len() == 1 && self.repl.backlog.is_none() {
            self.change_replication_id();
            self.clear_replication_id2();
            self.create_backlog();
            let msg = format!(
                "Replication backlog created, my new replication IDs are '{}' and '{}'",
                self.replid, self.repl.replid2
            );
            self.server_log(LogLevel::Notice, msg);
        }
        self.start_pending_full_syncs();
        Ok(())
    }

    /// `masterTryPartialResynchronization()`.
    fn try_partial_resync(&mut self, client: ClientId, replid: &[u8], offset: &[u8]) -> bool {
        let offset = crate::util::string2ll(offset).unwrap_or(-1);
        let replid = String::from_utf8_lossy(replid).into_owned();
        let ours = replid.eq_ignore_ascii_case(&self.replid);
        let previous = replid.eq_ignore_ascii_case(&self.repl.replid2) && offset <= self.repl.second_replid_offset;
        if !ours && !previous {
            if replid != "?" {
                self.repl.sync_partial_err += 1;
                let msg = if replid.eq_ignore_ascii_case(&self.repl.replid2) {
                    format!(
                        "Partial resynchronization not accepted: Requested offset for second ID was {offset}, but I can reply up to {}",
                        self.repl.second_replid_offset
                    )
                } else {
                    format!(
                        "Partial resynchronization not accepted: Replication ID mismatch (Replica asked for '{replid}', my replication IDs are '{}' and '{}')",
                        self.replid, self.repl.replid2
                    )
                };
                self.server_log(LogLevel::Notice, msg);
            } else {
                self.server_log(LogLevel::Notice, "Full resync requested by replica");
            }
            return false;
        }
        let first = self.repl.backlog_first_byte();
        if self.repl.backlog.is_none() || offset < first || offset > first + self.repl.backlog_histlen() {
            self.repl.sync_partial_err += 1;
            self.server_log(
                LogLevel::Notice,
                format!("Unable to partial resync with replica: lack of backlog (Replica request was: {offset})."),
            );
            return false;
        }
        let now = self.now_ms;
        let p = self.repl.peers.entry(client).or_default();
        p.state = Some(ReplicaState::Online);
        p.ack_ms = now;
        p.pre_psync = false;
        let psync2 = p.capa_psync2;
        self.repl.order.push(client);
        let mut out =
            if psync2 { format!("+CONTINUE {}\r\n", self.replid).into_bytes() } else { b"+CONTINUE\r\n".to_vec() };
        let skip = (offset - first) as usize;
        if let Some(b) = &self.repl.backlog {
            out.extend(b.buf.iter().skip(skip).copied());
        }
        let sent = out.len();
        self.send_raw(client, out);
        self.repl.sync_partial_ok += 1;
        self.refresh_good_replicas();
        let addr = self.replica_name(client);
        self.server_log(
            LogLevel::Notice,
            format!(
                "Partial resynchronization request from {addr} accepted. Sending {} bytes of backlog starting from offset {offset}.",
                sent.saturating_sub(if psync2 { 52 } else { 11 })
            ),
        );
        true
    }

    /// `replicationStartPendingFork()`: replicas waiting for a full sync get it once the
    /// diskless delay has passed (at once with disk-based sync): `+FULLRESYNC`, the RDB of the
    /// dataset now, then the stream from this offset on.
    fn start_pending_full_syncs(&mut self) {
        let waiting: Vec<ClientId> = self
            .repl
            .order
            .iter()
            .copied()
            .filter(|id| self.repl.peers.get(id).is_some_and(|p| p.state == Some(ReplicaState::WaitBgsave)))
            .collect();
        if waiting.is_empty() {
            return;
        }
        let diskless = self.config.bool("repl-diskless-sync");
        if diskless {
            let delay_ms = self.config.int("repl-diskless-sync-delay") * 1000;
            let max = self.config.int("repl-diskless-sync-max-replicas");
            let oldest = waiting.iter().filter_map(|id| self.repl.peers.get(id)).map(|p| p.since_ms).min();
            let enough = max > 0 && waiting.len() as i64 >= max;
            if !enough && oldest.is_some_and(|t| self.now_ms - t < delay_ms) {
                return;
            }
        }
        let Some(hooks) = self.repl_hooks else { return };
        let image = (hooks.rdb_image)(self);
        let offset = self.repl.master_repl_offset;
        // Force the next command to SELECT (replicationSetupSlaveForFullResync()).
        self.repl.slaveseldb = None;
        let target = if diskless { "replicas sockets" } else { "disk" };
        self.server_log(LogLevel::Notice, format!("Starting BGSAVE for SYNC with target: {target}"));
        for id in waiting {
            let Some(p) = self.repl.peers.get_mut(&id) else { continue };
            p.state = Some(ReplicaState::Online);
            p.ack_ms = self.now_ms;
            let (pre_psync, eof) = (p.pre_psync, diskless && p.capa_eof);
            let mut out = Vec::with_capacity(image.len() + 128);
            if !pre_psync {
                out.extend_from_slice(format!("+FULLRESYNC {} {offset}\r\n", self.replid).as_bytes());
            }
            if eof {
                p.held = Some(Vec::new());
                let mark: String = crate::util::sha1hex(format!("{} {offset} {id}", self.replid).as_bytes());
                out.extend_from_slice(format!("$EOF:{mark}\r\n").as_bytes());
                out.extend_from_slice(&image);
                out.extend_from_slice(mark.as_bytes());
            } else {
                out.extend_from_slice(format!("${}\r\n", image.len()).as_bytes());
                out.extend_from_slice(&image);
            }
            self.send_raw(id, out);
            let addr = self.replica_name(id);
            self.server_log(LogLevel::Notice, format!("Synchronization with replica {addr} succeeded"));
        }
        self.refresh_good_replicas();
    }

    /// WAIT blocks: remember it and ask the replicas for an ACK before sleeping.
    pub(crate) fn wait_for_replicas(&mut self, client: ClientId, numreplicas: i64, offset: i64) {
        self.repl.waiting.insert(client, (numreplicas, offset));
        self.repl.get_ack = true;
    }

    /// beforeSleep()'s part: `REPLCONF GETACK *` to replicas when a WAIT asked, then
    /// `processClientsWaitingReplicas()`.
    pub(crate) fn replication_before_sleep(&mut self) {
        if std::mem::take(&mut self.repl.get_ack) && !self.repl.order.is_empty() {
            let mut getack = Vec::new();
            encode_command(&words(&["REPLCONF", "GETACK", "*"]), &mut getack);
            self.feed_replicas_bytes(getack);
        }
        self.process_clients_waiting_replicas();
    }

    fn process_clients_waiting_replicas(&mut self) {
        let waiting: Vec<(ClientId, (i64, i64))> = self.repl.waiting.iter().map(|(&k, &v)| (k, v)).collect();
        for (id, (want, offset)) in waiting {
            let acks = self.repl.count_acks(offset);
            if acks >= want {
                self.repl.waiting.remove(&id);
                self.unblock(id);
                self.add_reply(id, Reply::Integer(acks));
                if let Some(c) = self.clients.get_mut(&id) {
                    c.reset_after_command(false);
                }
            }
        }
    }

    // =========================================================================================
    // Replica side
    // =========================================================================================

    /// `replicationSetMaster()`: REPLICAOF host port.
    pub fn replication_set_master(&mut self, host: &str, port: u16) {
        let was_master = !self.repl.is_replica();
        if let Some(id) = self.repl.master_client() {
            // The old master's link is cached, as freeClient() caches it.
            self.master_link_lost(false);
            let _ = id;
        }
        self.disconnect_all_blocked_clients();
        self.cancel_handshake_silently();
        let cached = if was_master {
            // replicationCacheMasterUsingMyself(): PSYNC with our own history.
            Some((self.replid.clone(), self.repl.master_repl_offset))
        } else {
            self.repl.master.as_ref().and_then(|m| m.cached.clone())
        };
        let down_since = self.repl.master.as_ref().map_or(0, |m| m.down_since_ms);
        self.repl.master = Some(MasterLink {
            host: host.to_string(),
            port,
            state: LinkState::Connect,
            due: true,
            input: Vec::new(),
            output: Vec::new(),
            last_io_ms: self.now_ms,
            down_since_ms: down_since,
            client: None,
            reploff: 0,
            read_reploff: 0,
            cached,
            initial: None,
            transfer: Transfer::default(),
        });
        self.update_repl_listening();
        self.server_log(LogLevel::Notice, format!("Connecting to MASTER {host}:{port}"));
        self.server_log(LogLevel::Notice, "MASTER <-> REPLICA sync started");
    }

    /// `replicationUnsetMaster()`: REPLICAOF NO ONE.
    pub fn replication_unset_master(&mut self) {
        if !self.repl.is_replica() {
            return;
        }
        self.server_log(LogLevel::Notice, "Connection with master lost.");
        if let Some(id) = self.repl.master_client() {
            if let Some(m) = self.repl.master.as_mut() {
                m.client = None;
            }
            self.disconnect(id);
        }
        self.repl.master = None;
        self.shift_replication_id();
        self.disconnect_replicas();
        self.repl.slaveseldb = None;
        if self.repl.backlog.is_none() {
            // Nothing to be shifted onto: keep the stream going from here.
        }
        self.update_repl_listening();
        self.server_log(LogLevel::Notice, "MASTER MODE enabled");
    }

    fn disconnect_replicas(&mut self) {
        for id in self.repl.order.clone() {
            self.disconnect(id);
        }
    }

    /// blocked.c `disconnectAllBlockedClients()`.
    fn disconnect_all_blocked_clients(&mut self) {
        let blocked: Vec<ClientId> = self.clients.values().filter(|c| c.blocked.is_some()).map(|c| c.id).collect();
        for id in blocked {
            self.repl.waiting.remove(&id);
            self.unblock(id);
            self.add_reply(
                id,
                Reply::err(
                    "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)",
                ),
            );
            if let Some(c) = self.clients.get_mut(&id) {
                c.reset_after_command(false);
            }
        }
    }

    /// `cancelReplicationHandshake()`: back to CONNECT (the cron retries), link dropped.
    fn cancel_handshake(&mut self) {
        self.cancel_handshake_silently();
        if let Some(m) = self.repl.master.as_mut() {
            m.state = LinkState::Connect;
        }
    }

    fn cancel_handshake_silently(&mut self) {
        if let Some(m) = self.repl.master.as_mut() {
            if m.state != LinkState::Connected {
                m.input.clear();
                m.output.clear();
                m.transfer = Transfer::default();
                m.state = LinkState::Connect;
            }
        }
    }

    /// The master's link is gone (freeClient(server.master) → `replicationCacheMaster()`).
    fn master_link_lost(&mut self, log: bool) {
        let Some(m) = self.repl.master.as_mut() else { return };
        let Some(id) = m.client.take() else { return };
        m.cached = Some((self.replid.clone(), m.reploff));
        m.state = LinkState::Connect;
        m.input.clear();
        m.output.clear();
        m.down_since_ms = self.now_ms;
        if self.clients.contains_key(&id) {
            self.disconnect(id);
        }
        if log {
            self.server_log(LogLevel::Notice, "Connection with master lost.");
            self.server_log(LogLevel::Notice, "Caching the disconnected master state.");
        }
    }

    /// The host should open a connection to this master now (`connectWithMaster()`); the
    /// link is then `Connecting` until `repl_link_connected` or `repl_link_closed`.
    pub fn repl_link_wanted(&mut self) -> Option<(String, u16)> {
        self.replication_prune();
        let now = self.now_ms;
        let m = self.repl.master.as_mut()?;
        if m.state != LinkState::Connect || !m.due {
            return None;
        }
        m.due = false;
        m.state = LinkState::Connecting;
        m.last_io_ms = now;
        Some((m.host.clone(), m.port))
    }

    /// Whether the engine wants the link the host holds (false: close it).
    pub fn repl_link_active(&self) -> bool {
        self.repl.master.as_ref().is_some_and(|m| m.state != LinkState::Connect)
    }

    /// The connection is up: the handshake starts with a PING.
    pub fn repl_link_connected(&mut self) {
        let now = self.now_ms;
        let Some(m) = self.repl.master.as_mut() else { return };
        if m.state != LinkState::Connecting {
            return;
        }
        m.state = LinkState::ReceivePong;
        m.last_io_ms = now;
        encode_command(&[b"PING".to_vec()], &mut m.output);
        self.server_log(LogLevel::Notice, "Non blocking connect for SYNC fired the event.");
    }

    /// The connection failed or closed.
    pub fn repl_link_closed(&mut self) {
        let Some(m) = self.repl.master.as_ref() else { return };
        match m.state {
            LinkState::Connect => {}
            LinkState::Connected => self.master_link_lost(true),
            LinkState::Connecting => {
                let (h, p) = (m.host.clone(), m.port);
                self.server_log(
                    LogLevel::Warning,
                    format!("Error condition on socket for SYNC: Connection refused ({h}:{p})"),
                );
                self.cancel_handshake();
            }
            _ => {
                self.server_log(LogLevel::Warning, "Master closed the connection during the handshake or transfer");
                self.cancel_handshake();
            }
        }
    }

    /// What the engine wrote to the master since the last call.
    pub fn repl_link_take_output(&mut self) -> Vec<u8> {
        self.repl.master.as_mut().map(|m| std::mem::take(&mut m.output)).unwrap_or_default()
    }

    /// Bytes read from the master.
    pub fn repl_link_input(&mut self, bytes: &[u8]) {
        self.replication_prune();
        let now = self.now_ms;
        let Some(m) = self.repl.master.as_mut() else { return };
        if m.state == LinkState::Connect || m.state == LinkState::Connecting {
            return;
        }
        m.input.extend_from_slice(bytes);
        m.last_io_ms = now;
        if m.state == LinkState::Connected {
            m.read_reploff += bytes.len() as i64;
        }
        self.repl.net_input_bytes += bytes.len() as u64;
        self.repl_link_process();
    }

    /// Runs the state machine over the buffered input.
    fn repl_link_process(&mut self) {
        loop {
            let Some(m) = self.repl.master.as_mut() else { return };
            match m.state {
                LinkState::Connect | LinkState::Connecting => return,
                LinkState::Transfer => {
                    if !self.read_sync_payload() {
                        return;
                    }
                }
                LinkState::Connected => {
                    self.apply_master_stream();
                    return;
                }
                _ => {
                    let Some(nl) = m.input.iter().position(|&b| b == b'\n') else {
                        if m.input.len() > MAX_LINE {
                            self.server_log(LogLevel::Warning, "Bad protocol from MASTER: reply line too long");
                            self.cancel_handshake();
                        }
                        return;
                    };
                    let line: Vec<u8> = m.input.drain(..=nl).collect();
                    let line = String::from_utf8_lossy(line.strip_suffix(b"\n").unwrap_or(&line))
                        .trim_end_matches('\r')
                        .to_string();
                    self.handshake_reply(&line);
                }
            }
        }
    }

    /// `syncWithMaster()`'s steps, one reply line at a time.
    fn handshake_reply(&mut self, line: &str) {
        let port = {
            let announce = self.config.int("replica-announce-port");
            if announce != 0 {
                announce
            } else {
                self.tcp_port as i64
            }
        };
        let auth = self.config.str("masterauth").to_string();
        let user = self.config.str("masteruser").to_string();
        let announce_ip = self.config.str("replica-announce-ip").to_string();
        let Some(m) = self.repl.master.as_mut() else { return };
        match m.state {
            LinkState::ReceivePong => {
                if !line.starts_with('+')
                    && !line.starts_with("-NOAUTH")
                    && !line.starts_with("-NOPERM")
                    && !line.starts_with("-ERR operation not permitted")
                {
                    let msg = format!("Error reply to PING from master: '{line}'");
                    self.server_log(LogLevel::Warning, msg);
                    self.cancel_handshake();
                    return;
                }
                // The rest of the handshake goes out at once; the replies are read in order.
                m.state = LinkState::ReceivePortReply;
                if !auth.is_empty() {
                    let mut cmd = vec![b"AUTH".to_vec()];
                    if !user.is_empty() {
                        cmd.push(user.into_bytes());
                    }
                    cmd.push(auth.into_bytes());
                    encode_command(&cmd, &mut m.output);
                    m.state = LinkState::ReceiveAuthReply;
                }
                encode_command(&words(&["REPLCONF", "listening-port", &port.to_string()]), &mut m.output);
                if !announce_ip.is_empty() {
                    encode_command(&words(&["REPLCONF", "ip-address", &announce_ip]), &mut m.output);
                }
                encode_command(&words(&["REPLCONF", "capa", "eof", "capa", "psync2"]), &mut m.output);
                self.server_log(LogLevel::Notice, "Master replied to PING, replication can continue...");
            }
            LinkState::ReceiveAuthReply => {
                if line.starts_with('-') {
                    self.server_log(LogLevel::Warning, format!("Unable to AUTH to MASTER: {line}"));
                    self.cancel_handshake();
                    return;
                }
                m.state = LinkState::ReceivePortReply;
            }
            LinkState::ReceivePortReply => {
                m.state = if announce_ip.is_empty() { LinkState::ReceiveCapaReply } else { LinkState::ReceiveIpReply };
                if line.starts_with('-') {
                    let msg = format!("(Non critical) Master does not understand REPLCONF listening-port: {line}");
                    self.server_log(LogLevel::Notice, msg);
                }
            }
            LinkState::ReceiveIpReply => {
                m.state = LinkState::ReceiveCapaReply;
                if line.starts_with('-') {
                    let msg = format!("(Non critical) Master does not understand REPLCONF ip-address: {line}");
                    self.server_log(LogLevel::Notice, msg);
                }
            }
            LinkState::ReceiveCapaReply => {
                let err = line.starts_with('-');
                let (replid, offset) = match &m.cached {
                    Some((id, off)) => (id.clone(), (off + 1).to_string()),
                    None => ("?".to_string(), "-1".to_string()),
                };
                encode_command(&words(&["PSYNC", &replid, &offset]), &mut m.output);
                m.state = LinkState::ReceivePsyncReply;
                if err {
                    let msg = format!("(Non critical) Master does not understand REPLCONF capa: {line}");
                    self.server_log(LogLevel::Notice, msg);
                }
                let msg = if replid == "?" {
                    "Partial resynchronization not possible (no cached master)".to_string()
                } else {
                    format!("Trying a partial resynchronization (request {replid}:{offset}).")
                };
                self.server_log(LogLevel::Notice, msg);
            }
            LinkState::ReceivePsyncReply => self.psync_reply(line),
            _ => {}
        }
    }

    /// `slaveTryPartialResynchronization()`'s reading half.
    fn psync_reply(&mut self, line: &str) {
        if line.is_empty() {
            return; // a newline keeping the link alive before the reply
        }
        let Some(m) = self.repl.master.as_mut() else { return };
        if let Some(rest) = line.strip_prefix("+FULLRESYNC") {
            let mut it = rest.split_whitespace();
            let (Some(id), Some(off)) = (it.next(), it.next().and_then(|o| o.parse::<i64>().ok())) else {
                self.server_log(LogLevel::Warning, "Master replied with wrong +FULLRESYNC syntax.");
                self.cancel_handshake();
                return;
            };
            m.initial = Some((id.to_string(), off));
            m.state = LinkState::Transfer;
            m.transfer = Transfer::default();
            self.server_log(LogLevel::Notice, format!("Full resync from master: {id}:{off}"));
            return;
        }
        if let Some(rest) = line.strip_prefix("+CONTINUE") {
            let Some((cached_id, cached_off)) = m.cached.take() else {
                self.cancel_handshake();
                return;
            };
            let new_id = rest.trim();
            m.reploff = cached_off;
            m.read_reploff = cached_off;
            m.state = LinkState::Connected;
            let id = self.create_master_client();
            if let Some(m) = self.repl.master.as_mut() {
                m.client = Some(id);
                m.down_since_ms = 0;
            }
            self.server_log(LogLevel::Notice, "Successful partial resynchronization with master.");
            if !new_id.is_empty() && !new_id.eq_ignore_ascii_case(&cached_id) {
                // The master's history goes on under a new id: ours becomes the second one.
                self.repl.replid2 = cached_id;
                self.repl.second_replid_offset = self.repl.master_repl_offset + 1;
                self.replid = new_id.to_string();
                self.disconnect_replicas();
                self.server_log(LogLevel::Warning, format!("Master replication ID changed to {new_id}"));
            }
            if self.repl.backlog.is_none() {
                self.create_backlog();
            }
            self.repl.master_repl_offset = cached_off;
            self.server_log(LogLevel::Notice, "MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
            return;
        }
        if line.starts_with("-NOMASTERLINK") || line.starts_with("-LOADING") {
            let msg = format!("Master is currently unable to PSYNC but should be in the future: {line}");
            self.server_log(LogLevel::Notice, msg);
        } else {
            self.server_log(LogLevel::Warning, format!("Unexpected reply to PSYNC from master: {line}"));
        }
        self.cancel_handshake();
    }

    /// `replicationCreateMasterClient()`: a client with no user (every command allowed).
    fn create_master_client(&mut self) -> ClientId {
        let id = self.next_client_id;
        self.next_client_id += 1;
        let mut c = crate::engine::Client::new(id, self.now_ms);
        c.user = Vec::new();
        if let Some(m) = &self.repl.master {
            c.addr = Some((format!("{}:{}", m.host, m.port), format!("127.0.0.1:{}", self.tcp_port)));
        }
        self.clients.insert(id, c);
        id
    }

    /// `readSyncBulkPayload()`: returns whether it made progress.
    fn read_sync_payload(&mut self) -> bool {
        let Some(m) = self.repl.master.as_mut() else { return false };
        if !m.transfer.started {
            let Some(nl) = m.input.iter().position(|&b| b == b'\n') else {
                if m.input.len() > MAX_LINE {
                    self.cancel_handshake();
                }
                return false;
            };
            let line: Vec<u8> = m.input.drain(..=nl).collect();
            let line = line.strip_suffix(b"\n").unwrap_or(&line);
            let line = line.strip_suffix(b"\r").unwrap_or(line).to_vec();
            if line.is_empty() {
                return true; // a newline while the master prepares the RDB
            }
            if line[0] == b'-' {
                let msg = format!("MASTER aborted replication with an error: {}", String::from_utf8_lossy(&line[1..]));
                self.server_log(LogLevel::Warning, msg);
                self.cancel_handshake();
                return false;
            }
            if line[0] != b'$' {
                let msg = format!(
                    "Bad protocol from MASTER, the first byte is not '$' (we received '{}'), are you sure the host and port are right?",
                    String::from_utf8_lossy(&line)
                );
                self.server_log(LogLevel::Warning, msg);
                self.cancel_handshake();
                return false;
            }
            if let Some(mark) = line.strip_prefix(b"$EOF:") {
                if mark.len() != 40 {
                    self.server_log(LogLevel::Warning, "Bad protocol from MASTER: bad EOF mark");
                    self.cancel_handshake();
                    return false;
                }
                m.transfer.eof_mark = Some(mark.to_vec());
                self.server_log(
                    LogLevel::Notice,
                    "MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to disk",
                );
            } else {
                let size = std::str::from_utf8(&line[1..]).ok().and_then(|t| t.parse::<i64>().ok());
                let max = self
                    .hot
                    .proto_max_bulk_len
                    .max(1 << 20)
                    .saturating_mul(8)
                    .min(i64::try_from(usize::MAX).unwrap_or(i64::MAX));
                let Some(size) = size.filter(|&s| s >= 0 && s <= max) else {
                    self.server_log(LogLevel::Warning, "Bad protocol from MASTER: invalid payload length");
                    self.cancel_handshake();
                    return false;
                };
                m.transfer.size = Some(size as usize);
                self.server_log(
                    LogLevel::Notice,
                    format!("MASTER <-> REPLICA sync: receiving {size} bytes from master to disk"),
                );
            }
            let Some(m) = self.repl.master.as_mut() else { return false };
            m.transfer.started = true;
            return true;
        }
        // The payload (Redis writes it to disk; held in memory here, it is bounded).
        // (4 GiB by default: beyond a 32-bit usize, so clamped rather than cast — a cast made it
        // 0 in the page's wasm, and every payload "too large".)
        let limit = usize::try_from(self.hot.proto_max_bulk_len.max(1 << 20).saturating_mul(8)).unwrap_or(usize::MAX);
        let Some(m) = self.repl.master.as_mut() else { return false };
        let mut too_large = false;
        let done = match (m.transfer.size, &m.transfer.eof_mark) {
            (Some(size), _) => {
                let need = size - m.transfer.data.len();
                let take = need.min(m.input.len());
                let chunk: Vec<u8> = m.input.drain(..take).collect();
                m.transfer.data.extend_from_slice(&chunk);
                m.transfer.data.len() == size
            }
            (None, Some(mark)) => {
                let mark = mark.clone();
                let chunk = std::mem::take(&mut m.input);
                m.transfer.data.extend_from_slice(&chunk);
                if m.transfer.data.len() > limit {
                    too_large = true;
                    false
                } else if m.transfer.data.ends_with(&mark) {
                    let n = m.transfer.data.len() - mark.len();
                    m.transfer.data.truncate(n);
                    true
                } else {
                    false
                }
            }
            _ => false,
        };
        if too_large {
            self.server_log(LogLevel::Warning, "Bad protocol from MASTER: the payload is too large");
            self.cancel_handshake();
            return false;
        }
        if !done {
            return false;
        }
        let Some(m) = self.repl.master.as_mut() else { return false };
        let image = std::mem::take(&mut m.transfer.data);
        let usemark = m.transfer.eof_mark.is_some();
        m.transfer = Transfer::default();
        let Some((master_replid, offset)) = m.initial.take() else {
            self.cancel_handshake();
            return false;
        };
        // replicationAttachToNewMaster(): no cached master, our replicas resync, no backlog.
        if let Some(m) = self.repl.master.as_mut() {
            m.cached = None;
        }
        self.disconnect_replicas();
        self.repl.backlog = None;
        self.server_log(LogLevel::Notice, "MASTER <-> REPLICA sync: Flushing old data");
        self.server_log(LogLevel::Notice, "MASTER <-> REPLICA sync: Loading DB in memory");
        if let Err(e) = self.load_sync_payload(&image) {
            self.server_log(
                LogLevel::Warning,
                format!("Failed trying to load the MASTER synchronization DB from disk, check server logs. ({e})"),
            );
            self.cancel_handshake();
            return false;
        }
        let id = self.create_master_client();
        self.replid = master_replid;
        self.repl.master_repl_offset = offset;
        self.clear_replication_id2();
        self.create_backlog();
        let Some(m) = self.repl.master.as_mut() else { return false };
        m.client = Some(id);
        m.reploff = offset;
        m.read_reploff = offset + m.input.len() as i64;
        m.state = LinkState::Connected;
        m.down_since_ms = 0;
        self.server_log(LogLevel::Notice, "MASTER <-> REPLICA sync: Finished with success");
        if usemark {
            self.replication_send_ack();
        }
        true
    }

    /// `REPLCONF ACK <reploff>` to the master.
    fn replication_send_ack(&mut self) {
        let Some(m) = self.repl.master.as_mut() else { return };
        if m.client.is_none() {
            return;
        }
        let off = m.reploff.to_string();
        encode_command(&words(&["REPLCONF", "ACK", &off]), &mut m.output);
    }

    /// The master client runs what the master sent, answering nothing; each command's bytes
    /// move `reploff` and feed this replica's backlog.
    fn apply_master_stream(&mut self) {
        let max_bulk = self.hot.proto_max_bulk_len;
        loop {
            let Some(m) = self.repl.master.as_mut() else { return };
            let Some(client) = m.client else { return };
            if m.input.is_empty() {
                return;
            }
            match parse_frame(&m.input, max_bulk) {
                Frame::Incomplete => return,
                Frame::Bad(why) => {
                    let msg = format!("Protocol error ({why}) from client: master. Closing the connection.");
                    self.server_log(LogLevel::Warning, msg);
                    self.master_link_lost(true);
                    return;
                }
                Frame::Command(argv, used) => {
                    let bytes: Vec<u8> = m.input.drain(..used).collect();
                    if let (false, Some(hooks)) = (argv.is_empty(), self.repl_hooks) {
                        (hooks.execute)(self, client, &argv);
                        if let Some(c) = self.clients.get_mut(&client) {
                            c.outbox.clear();
                        }
                    }
                    // The master client may be gone (a FLUSHALL … no: a CLIENT KILL it sent).
                    let Some(m) = self.repl.master.as_mut() else { return };
                    if m.client != Some(client) {
                        return;
                    }
                    m.reploff += bytes.len() as i64;
                    if self.repl.backlog.is_some() {
                        self.feed_backlog(&bytes);
                    }
                }
            }
        }
    }

    /// `rdbLoad()` of a master's payload: replaces the dataset, expired keys kept.
    fn load_sync_payload(&mut self, image: &[u8]) -> Result<(), String> {
        match self.repl_hooks {
            Some(hooks) => (hooks.load)(self, image),
            None => Err("no loader".into()),
        }
    }

    /// INFO replication.
    pub(crate) fn info_replication(&self, w: &mut dyn FnMut(&str, String)) {
        let now = self.now_ms;
        if let Some(m) = &self.repl.master {
            w("role", "slave".into());
            w("master_host", m.host.clone());
            w("master_port", m.port.to_string());
            let up = m.state == LinkState::Connected;
            w("master_link_status", if up { "up" } else { "down" }.into());
            let io = if m.client.is_some() { (now - m.last_io_ms).max(0) / 1000 } else { -1 };
            w("master_last_io_seconds_ago", io.to_string());
            let transfer = m.state == LinkState::Transfer;
            w("master_sync_in_progress", (transfer as i64).to_string());
            let (read, applied) = match (&m.client, &m.cached) {
                (Some(_), _) => (m.read_reploff, m.reploff),
                (None, Some((_, off))) => (*off, *off),
                _ => (1, 1),
            };
            w("slave_read_repl_offset", read.to_string());
            w("slave_repl_offset", applied.to_string());
            if transfer {
                let total = m.transfer.size.map_or(-1, |s| s as i64);
                let read = m.transfer.data.len() as i64;
                w("master_sync_total_bytes", total.to_string());
                w("master_sync_read_bytes", read.to_string());
                w("master_sync_left_bytes", if total < 0 { -1 } else { total - read }.to_string());
                let perc = if total > 0 { read as f64 * 100.0 / total as f64 } else { 0.0 };
                w("master_sync_perc", format!("{perc:.2}"));
                w("master_sync_last_io_seconds_ago", ((now - m.last_io_ms).max(0) / 1000).to_string());
            }
            if !up {
                let since = if m.down_since_ms != 0 { (now - m.down_since_ms).max(0) / 1000 } else { -1 };
                w("master_link_down_since_seconds", since.to_string());
            }
            w("slave_priority", self.config.int("replica-priority").to_string());
            w("slave_read_only", (self.config.bool("replica-read-only") as i64).to_string());
            w("replica_announced", (self.config.bool("replica-announced") as i64).to_string());
        } else {
            w("role", "master".into());
        }
        w("connected_slaves", self.repl.order.len().to_string());
        if self.config.int("min-replicas-to-write") != 0 && self.config.int("min-replicas-max-lag") != 0 {
            w("min_slaves_good_slaves", self.repl.good_replicas.to_string());
        }
        for (i, id) in self.repl.order.iter().enumerate() {
            let Some(p) = self.repl.peers.get(id) else { continue };
            let addr = self.clients.get(id).map(|c| c.peer_addr()).unwrap_or_default();
            let ip = p
                .announced_ip
                .clone()
                .unwrap_or_else(|| addr.rsplit_once(':').map_or(addr.clone(), |(ip, _)| ip.to_string()));
            let state = match p.state {
                Some(ReplicaState::Online) => "online",
                _ => "wait_bgsave",
            };
            let lag = (now - p.ack_ms).max(0) / 1000;
            w(
                &format!("slave{i}"),
                format!("ip={ip},port={},state={state},offset={},lag={lag}", p.listening_port, p.ack_off),
            );
        }
        w("master_failover_state", "no-failover".into());
        w("master_replid", self.replid.clone());
        w("master_replid2", self.repl.replid2.clone());
        w("master_repl_offset", self.repl.master_repl_offset.to_string());
        w("second_repl_offset", self.repl.second_replid_offset.to_string());
        w("repl_backlog_active", (self.repl.backlog.is_some() as i64).to_string());
        w("repl_backlog_size", self.config.int("repl-backlog-size").to_string());
        w("repl_backlog_first_byte_offset", self.repl.backlog_first_byte().to_string());
        w("repl_backlog_histlen", self.repl.backlog_histlen().to_string());
    }

    /// ROLE.
    pub(crate) fn role_reply(&self) -> Reply {
        if let Some(m) = &self.repl.master {
            let state = match m.state {
                LinkState::Connect => "connect",
                LinkState::Connecting => "connecting",
                LinkState::Transfer => "sync",
                LinkState::Connected => "connected",
                _ => "handshake",
            };
            let off = if m.client.is_some() { m.reploff } else { -1 };
            return Reply::Array(vec![
                Reply::bulk("slave"),
                Reply::bulk(m.host.clone()),
                Reply::Integer(m.port as i64),
                Reply::bulk(state),
                Reply::Integer(off),
            ]);
        }
        let mut replicas = Vec::new();
        for id in &self.repl.order {
            let Some(p) = self.repl.peers.get(id) else { continue };
            if p.state != Some(ReplicaState::Online) {
                continue;
            }
            let addr = self.clients.get(id).map(|c| c.peer_addr()).unwrap_or_default();
            let ip = p
                .announced_ip
                .clone()
                .unwrap_or_else(|| addr.rsplit_once(':').map_or(addr.clone(), |(ip, _)| ip.to_string()));
            replicas.push(Reply::Array(vec![
                Reply::bulk(ip),
                Reply::bulk(p.listening_port.to_string()),
                Reply::bulk(p.ack_off.to_string()),
            ]));
        }
        Reply::Array(vec![Reply::bulk("master"), Reply::Integer(self.repl.master_repl_offset), Reply::Array(replicas)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_parse_and_garbage_is_refused() {
        let mut buf = Vec::new();
        encode_command(&words(&["SET", "k", "v"]), &mut buf);
        match parse_frame(&buf, 1 << 20) {
            Frame::Command(argv, used) => {
                assert_eq!(argv, words(&["SET", "k", "v"]));
                assert_eq!(used, buf.len());
            }
            _ => panic!("a command"),
        }
        assert!(matches!(parse_frame(&buf[..buf.len() - 1], 1 << 20), Frame::Incomplete));
        assert!(matches!(parse_frame(b"*1\r\n+x\r\n", 1 << 20), Frame::Bad(_)));
        assert!(matches!(parse_frame(b"*x\r\n", 1 << 20), Frame::Bad(_)));
        assert!(matches!(parse_frame(b"*1\r\n$99999999\r\n", 1 << 20), Frame::Bad(_)));
    }
}
