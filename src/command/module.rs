//! module.c's MODULE command, as a server with no module loaded answers it: LIST is empty,
//! LOAD and LOADEX fail as a failed `dlopen()` does in 7.0.15 ("Error loading the extension.
//! Please check the server logs."), UNLOAD finds no such module. LOAD, LOADEX and UNLOAD are
//! protected by `enable-module-command` (dispatch.rs), as in Redis; HELP is the recorded reply.
//! The playground cannot load shared libraries: there is nothing else it could do.

use crate::command::call::Call;
use crate::engine::Engine;
use crate::reply::Reply;

pub fn module_list(_e: &mut Engine, _c: &Call) -> Reply {
    Reply::Array(vec![])
}

pub fn module_load(_e: &mut Engine, _c: &Call) -> Reply {
    Reply::err("ERR Error loading the extension. Please check the server logs.")
}

pub fn module_unload(_e: &mut Engine, _c: &Call) -> Reply {
    Reply::err("ERR Error unloading module: no such module with that name")
}
