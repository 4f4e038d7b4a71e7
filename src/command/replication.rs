//! ROLE — replication.c `roleCommand()`. The playground is always a master with no replicas
//! (replication is not modelled), so ROLE answers as a standalone redis-server does.

use crate::engine::Engine;
use crate::reply::Reply;

use super::call::Call;

/// `ROLE`: `master`, the replication offset (0: nothing was ever replicated), no replicas.
pub fn role(_e: &mut Engine, _c: &Call) -> Reply {
    Reply::Array(vec![Reply::bulk("master"), Reply::Integer(0), Reply::Array(vec![])])
}
