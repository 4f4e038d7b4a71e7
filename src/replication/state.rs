//! Replication's state (server.h's `repl_*` fields, `client`'s replication fields): data and
//! the questions other modules ask of it, apart from replication/mod.rs's behaviour so that
//! the engine can hold it without depending on that behaviour.

use std::collections::{BTreeMap, VecDeque};

use crate::reply::Reply;

/// A client id (the engine's `ClientId`).
type ClientId = u64;

pub(crate) const NULL_REPLID: &str = "0000000000000000000000000000000000000000";

/// A replica as its master sees it (`slave->replstate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplicaState {
    /// `SLAVE_STATE_WAIT_BGSAVE_START`: waiting for the fork (the diskless delay).
    WaitBgsave,
    /// `SLAVE_STATE_ONLINE`: the RDB sent, the stream flowing.
    Online,
}

/// What a master knows of a client that sent REPLCONF, SYNC or PSYNC.
#[derive(Debug, Clone, Default)]
pub struct ReplicaPeer {
    /// Attached (SYNC/PSYNC done): `CLIENT_SLAVE`.
    pub state: Option<ReplicaState>,
    /// `repl_ack_off` / `repl_ack_time` (ms).
    pub ack_off: i64,
    pub ack_ms: i64,
    /// REPLCONF listening-port / ip-address.
    pub listening_port: i64,
    pub announced_ip: Option<String>,
    pub capa_eof: bool,
    pub capa_psync2: bool,
    /// Its peer address's ip.
    pub ip: Option<String>,
    /// SYNC, not PSYNC (`CLIENT_PRE_PSYNC`): no `+FULLRESYNC` line, no acks.
    pub pre_psync: bool,
    /// `repl_start_cmd_stream_on_ack`: after an `$EOF:` payload the stream is held until the
    /// replica's first REPLCONF ACK (it finds the payload's end by the mark being the last bytes
    /// it read, so nothing may follow the mark before it has loaded).
    pub held: Option<Vec<u8>>,
    /// When it asked for a full sync (the diskless delay counts from the first such replica).
    pub since_ms: i64,
}

/// The replica's link state (`server.repl_state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkState {
    /// `REPL_STATE_CONNECT`: must connect (the cron asks the host once a second).
    Connect,
    /// `REPL_STATE_CONNECTING`: the host is opening the connection.
    Connecting,
    /// `REPL_STATE_RECEIVE_PING_REPLY`.
    ReceivePong,
    /// `REPL_STATE_RECEIVE_PORT_REPLY` / `_CAPA_REPLY`.
    /// `REPL_STATE_RECEIVE_AUTH_REPLY` (with `masterauth`).
    ReceiveAuthReply,
    ReceivePortReply,
    /// `REPL_STATE_RECEIVE_IP_REPLY` (with `replica-announce-ip`).
    ReceiveIpReply,
    ReceiveCapaReply,
    /// `REPL_STATE_RECEIVE_PSYNC_REPLY`.
    ReceivePsyncReply,
    /// `REPL_STATE_TRANSFER`: reading the RDB.
    Transfer,
    /// `REPL_STATE_CONNECTED`.
    Connected,
}

/// The payload being read (`readSyncBulkPayload()`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Transfer {
    /// `$EOF:<mark>`: the payload ends with these 40 bytes.
    pub(crate) eof_mark: Option<Vec<u8>>,
    /// `$<len>`.
    pub(crate) size: Option<usize>,
    pub(crate) data: Vec<u8>,
    pub(crate) started: bool,
}

/// A replica's master (`server.masterhost` … `server.master`, `server.cached_master`).
#[derive(Debug, Clone)]
pub struct MasterLink {
    pub host: String,
    pub port: u16,
    pub state: LinkState,
    /// A connection attempt may start now (REPLICAOF, then replicationCron once a second).
    pub(crate) due: bool,
    pub(crate) input: Vec<u8>,
    pub(crate) output: Vec<u8>,
    /// `repl_transfer_lastio` / the master client's `lastinteraction` (ms).
    pub(crate) last_io_ms: i64,
    /// `server.repl_down_since` (ms; 0: never connected).
    pub(crate) down_since_ms: i64,
    /// `server.master`: the client that applies the stream.
    pub(crate) client: Option<ClientId>,
    /// Its `reploff` / `read_reploff`.
    pub(crate) reploff: i64,
    pub(crate) read_reploff: i64,
    /// `server.cached_master`: (replid, reploff) of a lost link, for PSYNC.
    pub(crate) cached: Option<(String, i64)>,
    /// `+FULLRESYNC`'s replid and offset (`server.master_replid`, `master_initial_offset`).
    pub(crate) initial: Option<(String, i64)>,
    pub(crate) transfer: Transfer,
}

/// `server.repl_backlog`: the last `repl-backlog-size` bytes of the stream.
#[derive(Debug, Clone, Default)]
pub struct Backlog {
    pub(crate) buf: VecDeque<u8>,
    pub(crate) size: usize,
}

/// The engine's replication state.
#[derive(Debug, Clone)]
pub struct ReplState {
    /// `server.replid2` and `server.second_replid_offset`.
    pub replid2: String,
    pub second_replid_offset: i64,
    /// `server.master_repl_offset`.
    pub master_repl_offset: i64,
    pub backlog: Option<Backlog>,
    /// REPLCONF/SYNC/PSYNC clients by id; `order` lists attached replicas in attach order.
    pub peers: BTreeMap<ClientId, ReplicaPeer>,
    pub order: Vec<ClientId>,
    /// `server.slaveseldb` (None: the next op selects).
    pub(crate) slaveseldb: Option<usize>,
    /// `server.repl_good_slaves_count`.
    pub good_replicas: usize,
    /// replicationCron's last run (ms) and `replication_cron_loops`.
    pub(crate) cron_last_ms: i64,
    pub(crate) cron_loops: u64,
    /// `server.get_ack_from_slaves`.
    pub(crate) get_ack: bool,
    /// Clients in WAIT: (replicas wanted, offset).
    pub waiting: BTreeMap<ClientId, (i64, i64)>,
    /// `stat_sync_full`, `stat_sync_partial_ok`, `stat_sync_partial_err`.
    pub sync_full: u64,
    pub sync_partial_ok: u64,
    pub sync_partial_err: u64,
    /// Bytes of the stream read from a master / written to replicas (INFO stats).
    pub net_input_bytes: u64,
    pub net_output_bytes: u64,
    /// The replica role.
    pub master: Option<MasterLink>,
}

impl Default for ReplState {
    fn default() -> Self {
        ReplState {
            replid2: NULL_REPLID.into(),
            second_replid_offset: -1,
            master_repl_offset: 0,
            backlog: None,
            peers: BTreeMap::new(),
            order: Vec::new(),
            slaveseldb: None,
            good_replicas: 0,
            cron_last_ms: 0,
            cron_loops: 0,
            get_ack: false,
            waiting: BTreeMap::new(),
            sync_full: 0,
            sync_partial_ok: 0,
            sync_partial_err: 0,
            net_input_bytes: 0,
            net_output_bytes: 0,
            master: None,
        }
    }
}

impl ReplState {
    /// `repl_backlog_first_byte_offset`.
    pub fn backlog_first_byte(&self) -> i64 {
        match &self.backlog {
            Some(b) => self.master_repl_offset - b.buf.len() as i64 + 1,
            None => 0,
        }
    }

    pub fn backlog_histlen(&self) -> i64 {
        self.backlog.as_ref().map_or(0, |b| b.buf.len() as i64)
    }

    /// The replica role: `server.masterhost != NULL`.
    pub fn is_replica(&self) -> bool {
        self.master.is_some()
    }

    /// The master client's id.
    pub fn master_client(&self) -> Option<ClientId> {
        self.master.as_ref().and_then(|m| m.client)
    }

    /// replication.c `replicationCountAcksByOffset()`.
    pub fn count_acks(&self, offset: i64) -> i64 {
        self.peers.values().filter(|p| p.state == Some(ReplicaState::Online) && p.ack_off >= offset).count() as i64
    }

    /// WAIT's reply when its timeout passes (blocked.rs): the replicas that acked by then.
    pub fn wait_timed_out(&mut self, client: ClientId) -> Option<Reply> {
        let (_, offset) = self.waiting.remove(&client)?;
        Some(Reply::Integer(self.count_acks(offset)))
    }

    /// db.c `expireIfNeeded()` on a replica (keyspace.rs asks): the master's client sees an
    /// expired key as alive (`Some(false)`); anyone else sees it gone (`Some(true)`) — only a
    /// write (`force`) deletes it (`None`: as on a master).
    pub fn replica_expiry(&self, current: Option<ClientId>, force: bool) -> Option<bool> {
        if !self.is_replica() {
            return None;
        }
        if current.is_some() && current == self.master_client() {
            return Some(false);
        }
        if force {
            None
        } else {
            Some(true)
        }
    }
}
