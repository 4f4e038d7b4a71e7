//! ROLE — replication.c `roleCommand()` — and MONITOR (server.c `monitorCommand()`, here beside
//! ROLE because to Redis a monitor is a replica, `CLIENT_SLAVE`, fed by replication.c's
//! `replicationFeedMonitors()`: ../monitor.rs). The playground is always a master with no
//! replicas (replication is not modelled), so ROLE answers as a standalone redis-server does.

use crate::engine::Engine;
use crate::reply::Reply;

use super::call::Call;

/// `ROLE`: `master`, the replication offset (0: nothing was ever replicated), no replicas.
pub fn role(_e: &mut Engine, _c: &Call) -> Reply {
    Reply::Array(vec![Reply::bulk("master"), Reply::Integer(0), Reply::Array(vec![])])
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
