//! replication.c's commands — ROLE (`roleCommand()`), REPLICAOF/SLAVEOF (`replicaofCommand()`),
//! SYNC/PSYNC (`syncCommand()`), REPLCONF (`replconfCommand()`), WAIT (`waitCommand()`) — over
//! the state machine of ../replication.rs; and MONITOR (server.c `monitorCommand()`, here
//! beside them because to Redis a monitor is a replica, `CLIENT_SLAVE`, fed by replication.c's
//! `replicationFeedMonitors()`: ../monitor.rs).

use crate::engine::{ClientId, Engine, LogLevel};
use crate::reply::Reply;

use super::call::Call;

/// `ROLE`: a master's offset and online replicas, or a replica's master, link state and offset.
pub fn role(e: &mut Engine, _c: &Call) -> Reply {
    e.role_reply()
}

/// CLIENT INFO's line of the client, for the log.
fn who(e: &Engine, client: ClientId) -> String {
    e.clients.get(&client).map(|cl| super::networking::client_info_string(e, cl, true)).unwrap_or_default()
}

/// The command's own reply is not sent (the handler wrote raw bytes, or nothing at all).
fn no_reply(e: &mut Engine, client: ClientId) -> Reply {
    if let Some(cl) = e.clients.get_mut(&client) {
        cl.reply_dropped = true;
    }
    Reply::ok()
}

/// `REPLICAOF host port` / `REPLICAOF NO ONE` (and SLAVEOF).
pub fn replicaof(e: &mut Engine, c: &Call) -> Reply {
    if super::is_opt(c.arg(1), "no") && super::is_opt(c.arg(2), "one") {
        if e.is_replica() {
            e.replication_unset_master();
            let who = who(e, c.client);
            e.server_log(LogLevel::Notice, format!("MASTER MODE enabled (user request from '{who}')"));
        }
        return Reply::ok();
    }
    if e.is_replica_client(c.client) {
        return Reply::err("ERR Command is not valid when client is a replica.");
    }
    let port = match crate::util::string2ll(c.arg(2)) {
        Some(p) if (0..=65535).contains(&p) => p as u16,
        _ => return Reply::err("ERR Invalid master port"),
    };
    let host = String::from_utf8_lossy(c.arg(1)).into_owned();
    if let Some(m) = &e.repl.master {
        if m.host.eq_ignore_ascii_case(&host) && m.port == port {
            e.server_log(LogLevel::Notice, "REPLICAOF would result into synchronization with the master we are already connected with. No operation performed.");
            return Reply::Status("OK Already connected to specified master".into());
        }
    }
    e.replication_set_master(&host, port);
    let who = who(e, c.client);
    e.server_log(LogLevel::Notice, format!("REPLICAOF {host}:{port} enabled (user request from '{who}')"));
    Reply::ok()
}

/// `SYNC`: a full sync without the PSYNC line.
pub fn sync(e: &mut Engine, c: &Call) -> Reply {
    match e.sync_command(c.client, None) {
        Ok(()) => no_reply(e, c.client),
        Err(r) => r,
    }
}

/// `PSYNC <replid> <offset>`: `+CONTINUE` and the backlog, or `+FULLRESYNC` and the RDB.
pub fn psync(e: &mut Engine, c: &Call) -> Reply {
    match e.sync_command(c.client, Some((c.arg(1), c.arg(2)))) {
        Ok(()) => no_reply(e, c.client),
        Err(r) => r,
    }
}

/// `REPLCONF <option> <value> …`: `+OK`, or nothing for ACK and GETACK.
pub fn replconf(e: &mut Engine, c: &Call) -> Reply {
    if c.argc().is_multiple_of(2) {
        return super::syntax_error();
    }
    match e.replconf(c.client, &c.argv[1..]) {
        Ok(Some(r)) => r,
        Ok(None) => no_reply(e, c.client),
        Err(r) => r,
    }
}

/// `WAIT numreplicas timeout`: how many replicas acknowledged the client's writes, once that
/// many did or the timeout (ms, 0: forever) passed.
pub fn wait(e: &mut Engine, c: &Call) -> Reply {
    if e.is_replica() {
        return Reply::err("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.");
    }
    let Some(numreplicas) = crate::util::string2ll(c.arg(1)) else {
        return Reply::err("ERR value is not an integer or out of range");
    };
    let timeout = match crate::blocked::parse_timeout_ms(e, c.arg(2)) {
        Ok(t) => t,
        Err(r) => return r,
    };
    let offset = e.clients.get(&c.client).map_or(0, |cl| cl.woff);
    let acks = e.repl.count_acks(offset);
    if acks >= numreplicas || e.deny_blocking(c.client) {
        return Reply::Integer(acks);
    }
    let placeholder = e.block_for_keys(c.client, c.db, &[], timeout, c.argv, |_, _, _, _, _| None);
    e.wait_for_replicas(c.client, numreplicas, offset);
    placeholder
}

/// `MONITOR`: from now on the client receives a line for every command run (../monitor.rs).
/// Refused inside a transaction (`CLIENT_DENY_BLOCKING`); a client already monitoring gets no
/// reply at all.
pub fn monitor(e: &mut Engine, c: &Call) -> Reply {
    let Some(cl) = e.clients.get_mut(&c.client) else { return Reply::err("ERR no such client") };
    if cl.in_multi {
        return Reply::err("ERR MONITOR isn't allowed for DENY BLOCKING client");
    }
    if cl.monitor {
        cl.reply_dropped = true;
        return Reply::ok();
    }
    cl.monitor = true;
    e.monitors.push(c.client);
    Reply::ok()
}
