//! Connections: models networking.c — CLIENT ID/SETNAME/GETNAME/LIST/INFO/KILL/REPLY/UNBLOCK/
//! PAUSE/UNPAUSE/NO-EVICT (`clientCommand()`, `catClientInfoString()`, `clientSetName()`),
//! HELLO (`helloCommand()`: switches the client to RESP2 or RESP3, with its AUTH and SETNAME
//! options), RESET (`clearClientConnectionState()`, back to RESP2) and QUIT; AUTH (acl.c
//! `authCommand()`, whose users and credentials are ../acl.rs). CLIENT TRACKING and its
//! siblings are in tracking.rs; what PAUSE does is ../pause.rs.
//!
//! CLIENT REPLY OFF|SKIP: the replies the client would get are dropped (the engine marks them,
//! `Engine::reply_dropped`; hosts don't send them), except push messages — Pub/Sub messages and
//! (un)subscribe confirmations, invalidations — which 7.0 always sends. Deviation: a CLIENT REPLY
//! inside MULTI drops EXEC's whole reply (OFF) or none of it (SKIP), where 7.0 drops the queued
//! commands' replies from within the array it announced (a malformed reply).
//!
//! Deviations: the engine sees no sockets, so CLIENT LIST's socket fields are stand-ins: `addr`
//! and `laddr` are the real ones only for a `redisplay serve` connection (a console client shows
//! 127.0.0.1 with port 40000+id), `fd` is 7+id, buffer sizes are those of an idle redis-server
//! connection (`qbuf=26 qbuf-free=20448 rbs=1024 … tot-mem=22298`), `events=r`.

use crate::acl::{Context, LogEntry, Reason};
use crate::command::call::Call;
use crate::command::{is_opt, subcommand_syntax_error, syntax_error};
use crate::engine::{Client, ClientId, Engine, PauseKind};
use crate::reply::Reply;
use crate::util::{string2ll, text};

/// networking.c `catClientInfoString()`. `caller`: the client running CLIENT LIST/INFO, whose
/// query buffer holds the command (the buffer fields are those redis-server 7.0.15 shows for an
/// idle connection and for the caller).
/// networking.c `getClientType()` against a CLIENT LIST/KILL `TYPE`.
fn client_type_is(e: &Engine, cl: &Client, t: &[u8]) -> bool {
    let kind: &[u8] = if e.is_master_client(cl.id) {
        b"master"
    } else if e.is_replica_client(cl.id) && !cl.monitor {
        b"replica"
    } else if cl.in_pubsub() {
        b"pubsub"
    } else {
        b"normal"
    };
    kind == t || (t == b"slave" && kind == b"replica")
}

pub(crate) fn client_info_string(e: &Engine, c: &Client, caller: bool) -> String {
    let now = e.now_ms();
    // catClientInfoString()'s flag letters, in its order.
    let mut flags = String::new();
    for (on, letter) in [
        (e.is_replica_client(c.id) && !c.monitor, 'S'),
        (e.is_master_client(c.id), 'M'),
        (c.monitor, 'O'),
        (c.in_pubsub(), 'P'),
        (c.in_multi, 'x'),
        (c.is_blocked(), 'b'),
        (c.tracking.is_some(), 't'),
        (c.tracking.as_ref().is_some_and(|t| t.broken_redir), 'R'),
        (c.tracking.as_ref().is_some_and(|t| t.bcast), 'B'),
        (c.dirty_cas, 'd'),
        (c.no_evict, 'e'),
    ] {
        if on {
            flags.push(letter);
        }
    }
    if flags.is_empty() {
        flags.push('N');
    }
    let multi = if c.in_multi { c.queued.len() as i64 } else { -1 };
    // An idle connection's query buffer was freed; a blocked one still holds its command.
    let argv_mem = if caller || c.is_blocked() { c.argv_mem } else { 0 };
    let buffers = if caller {
        format!(
            "qbuf=26 qbuf-free=20448 argv-mem={argv_mem} multi-mem=0 rbs=16384 rbp=16384 obl=0 oll=0 omem=0 tot-mem={}",
            37648 + argv_mem
        )
    } else {
        format!(
            "qbuf=0 qbuf-free=20474 argv-mem={argv_mem} multi-mem=0 rbs=1024 rbp=0 obl=0 oll=0 omem=0 tot-mem={}",
            22296 + argv_mem
        )
    };
    format!(
        "id={} addr={} laddr={} fd={} name={} age={} idle={} flags={} db={} sub={} psub={} ssub={} multi={} \
         {} events=r cmd={} user={} redir={} resp={}",
        c.id,
        c.peer_addr(),
        c.local_addr(),
        7 + c.id,
        text(&c.name),
        (now - c.created_ms).max(0) / 1000,
        (now - c.last_interaction_ms).max(0) / 1000,
        flags,
        c.db,
        c.channels.len(),
        c.patterns.len(),
        c.shard_channels.len(),
        multi,
        buffers,
        c.last_cmd,
        // The master's client has no user (CLIENT LIST: `(superuser)`).
        if c.user.is_empty() { "(superuser)".to_string() } else { text(&c.user) },
        c.tracking.as_ref().map_or(-1, |t| t.redirect as i64),
        c.resp,
    )
}

pub fn client_id(_e: &mut Engine, c: &Call) -> Reply {
    Reply::Integer(c.client as i64)
}

pub fn client_getname(e: &mut Engine, c: &Call) -> Reply {
    match e.clients.get(&c.client) {
        Some(cl) if !cl.name.is_empty() => Reply::bulk(&cl.name),
        _ => Reply::Nil,
    }
}

/// networking.c `validateClientName()` + `clientSetName()`.
fn set_name(e: &mut Engine, client: ClientId, name: &[u8]) -> Result<(), Reply> {
    if name.iter().any(|&b| !(b'!'..=b'~').contains(&b)) {
        return Err(Reply::err("ERR Client names cannot contain spaces, newlines or special characters."));
    }
    if let Some(cl) = e.clients.get_mut(&client) {
        cl.name = name.to_vec();
    }
    Ok(())
}

pub fn client_setname(e: &mut Engine, c: &Call) -> Reply {
    match set_name(e, c.client, c.arg(2)) {
        Ok(()) => Reply::ok(),
        Err(r) => r,
    }
}

pub fn client_info(e: &mut Engine, c: &Call) -> Reply {
    match e.clients.get(&c.client) {
        Some(cl) => Reply::Verbatim(format!("{}\n", client_info_string(e, cl, true)).into_bytes()),
        None => Reply::err("ERR no such client"),
    }
}

/// `CLIENT LIST [TYPE normal|master|replica|pubsub] [ID id …]`.
pub fn client_list(e: &mut Engine, c: &Call) -> Reply {
    let mut kind: Option<Vec<u8>> = None;
    let mut ids: Option<Vec<ClientId>> = None;
    if c.argc() == 4 && is_opt(c.arg(2), "type") {
        let t = c.arg(3).to_ascii_lowercase();
        if !matches!(t.as_slice(), b"normal" | b"master" | b"replica" | b"slave" | b"pubsub") {
            return Reply::err(format!("ERR Unknown client type '{}'", text(c.arg(3))));
        }
        kind = Some(t);
    } else if c.argc() > 3 && is_opt(c.arg(2), "id") {
        let mut list = Vec::new();
        for a in &c.argv[3..] {
            match string2ll(a) {
                Some(n) if n > 0 => list.push(n as ClientId),
                _ => return Reply::err("ERR Invalid client ID"),
            }
        }
        ids = Some(list);
    } else if c.argc() != 2 {
        return syntax_error();
    }
    let mut out = String::new();
    for cl in e.clients.values() {
        if let Some(k) = &kind {
            let matches = client_type_is(e, cl, k);
            if !matches {
                continue;
            }
        }
        if let Some(ids) = &ids {
            if !ids.contains(&cl.id) {
                continue;
            }
        }
        out.push_str(&client_info_string(e, cl, cl.id == c.client));
        out.push('\n');
    }
    // addReplyVerbatim(…, "txt"): a bulk over RESP2.
    Reply::Verbatim(out.into_bytes())
}

/// `CLIENT KILL addr:port` (old form: OK or "No such client") or the filter form
/// `CLIENT KILL [ID id] [ADDR addr] [LADDR addr] [TYPE t] [USER u] [SKIPME yes|no] …` (a count).
pub fn client_kill(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() == 3 {
        let target = c.arg(2);
        let victim = e.clients.values().find(|cl| cl.peer_addr().as_bytes() == target).map(|cl| cl.id);
        return match victim {
            Some(id) => {
                e.disconnect(id);
                Reply::ok()
            }
            None => Reply::err("ERR No such client"),
        };
    }
    if !c.argc().is_multiple_of(2) {
        return syntax_error();
    }
    let (mut id_f, mut addr_f, mut laddr_f, mut type_f, mut user_f) = (None, None, None, None, None);
    let mut skipme = true;
    let mut i = 2;
    while i + 1 < c.argc() {
        let (opt, val) = (c.arg(i), c.arg(i + 1));
        if is_opt(opt, "id") {
            match string2ll(val) {
                Some(n) if n > 0 => id_f = Some(n as ClientId),
                _ => return Reply::err("ERR client-id should be greater than 0"),
            }
        } else if is_opt(opt, "type") {
            let t = val.to_ascii_lowercase();
            if !matches!(t.as_slice(), b"normal" | b"master" | b"replica" | b"slave" | b"pubsub") {
                return Reply::err(format!("ERR Unknown client type '{}'", text(val)));
            }
            type_f = Some(t);
        } else if is_opt(opt, "addr") {
            addr_f = Some(val.to_vec());
        } else if is_opt(opt, "laddr") {
            laddr_f = Some(val.to_vec());
        } else if is_opt(opt, "user") {
            if e.acl.user(val).is_none() {
                let mut msg = b"ERR No such user '".to_vec();
                msg.extend(crate::acl::c_str(val));
                msg.push(b'\'');
                return Reply::Error(msg);
            }
            user_f = Some(val.to_vec());
        } else if is_opt(opt, "skipme") {
            if is_opt(val, "yes") {
                skipme = true;
            } else if is_opt(val, "no") {
                skipme = false;
            } else {
                return syntax_error();
            }
        } else {
            return syntax_error();
        }
        i += 2;
    }
    let victims: Vec<ClientId> = e
        .clients
        .values()
        .filter(|cl| id_f.is_none_or(|id| cl.id == id))
        .filter(|cl| addr_f.as_ref().is_none_or(|a| cl.peer_addr().as_bytes() == a.as_slice()))
        .filter(|cl| laddr_f.as_ref().is_none_or(|a| cl.local_addr().as_bytes() == a.as_slice()))
        .filter(|cl| type_f.as_ref().is_none_or(|t| client_type_is(e, cl, t)))
        .filter(|cl| user_f.as_ref().is_none_or(|u| cl.user == *u))
        .filter(|cl| !(skipme && cl.id == c.client))
        .map(|cl| cl.id)
        .collect();
    for &id in &victims {
        e.disconnect(id);
    }
    Reply::Integer(victims.len() as i64)
}

/// networking.c `clearClientConnectionState()` (RESET): out of MONITOR, tracking off, out of
/// MULTI, no watches, no subscriptions, no blocking, db 0, no name, RESP2, CLIENT REPLY ON
/// (NO-EVICT stays on in 7.0.15).
pub fn reset(e: &mut Engine, c: &Call) -> Reply {
    e.monitors.retain(|&id| id != c.client);
    e.disable_tracking(c.client);
    e.discard_transaction(c.client);
    crate::pubsub::unsubscribe_all(e, c.client);
    e.unblock(c.client);
    if let Some(cl) = e.clients.get_mut(&c.client) {
        cl.db = 0;
        cl.name.clear();
        cl.outbox.clear();
        cl.resp = 2;
        cl.monitor = false;
        cl.reply_off = false;
        cl.reply_skip_next = false;
    }
    // clientSetDefaultAuth(): back to the default user, authenticated only if it is open.
    let open = e.default_user_open();
    if let Some(cl) = e.clients.get_mut(&c.client) {
        cl.user = b"default".to_vec();
        cl.authenticated = open;
    }
    Reply::Status("RESET".into())
}

/// acl.c `authCommand()`: `AUTH password` or `AUTH username password`.
pub fn auth(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() > 3 {
        return syntax_error();
    }
    let (user, pass): (&[u8], &[u8]) = if c.argc() == 2 {
        // The legacy form on a server without a password is a configuration mistake.
        if e.acl.default_user().nopass() {
            return Reply::err(
                "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?",
            );
        }
        (b"default", c.arg(1))
    } else {
        (c.arg(1), c.arg(2))
    };
    if !e.authenticate_user(c.client, user, pass, c.arg(0)) {
        return Reply::err("WRONGPASS invalid username-password pair or user is disabled.");
    }
    Reply::ok()
}

pub fn quit(_e: &mut Engine, _c: &Call) -> Reply {
    Reply::ok()
}

/// networking.c `helloCommand()`: `HELLO [2|3 [AUTH user pass] [SETNAME name]]` switches the
/// client's protocol (what `encode` and redis-cli's formatting then use) and answers a map.
pub fn hello(e: &mut Engine, c: &Call) -> Reply {
    let mut j = 1;
    let mut proto = None;
    if c.argc() >= 2 {
        let Some(ver) = string2ll(c.arg(1)) else {
            return Reply::err("ERR Protocol version is not an integer or out of range");
        };
        j = 2;
        if !(2..=3).contains(&ver) {
            return Reply::err("NOPROTO unsupported protocol version");
        }
        proto = Some(ver as u8);
    }
    // Options take effect in order: an AUTH or SETNAME before a bad option stays done.
    while j < c.argc() {
        let more = c.argc() - j - 1;
        if is_opt(c.arg(j), "auth") && more >= 2 {
            if !e.authenticate_user(c.client, c.arg(j + 1), c.arg(j + 2), c.arg(0)) {
                return Reply::err("WRONGPASS invalid username-password pair or user is disabled.");
            }
            j += 3;
        } else if is_opt(c.arg(j), "setname") && more >= 1 {
            if let Err(r) = set_name(e, c.client, c.arg(j + 1)) {
                return r;
            }
            j += 2;
        } else {
            return Reply::err(format!("ERR Syntax error in HELLO option '{}'", text(c.arg(j))));
        }
    }
    if e.clients.get(&c.client).is_some_and(|cl| !cl.authenticated) {
        return Reply::err(
            "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time",
        );
    }
    let resp = match (proto, e.clients.get_mut(&c.client)) {
        (Some(p), Some(client)) => {
            client.resp = p;
            p
        }
        (None, Some(client)) => client.resp,
        _ => 2,
    };
    Reply::Map(vec![
        (Reply::bulk("server"), Reply::bulk("redis")),
        (Reply::bulk("version"), Reply::bulk("7.0.15")),
        (Reply::bulk("proto"), Reply::Integer(resp as i64)),
        (Reply::bulk("id"), Reply::Integer(c.client as i64)),
        (Reply::bulk("mode"), Reply::bulk("standalone")),
        (Reply::bulk("role"), Reply::bulk("master")),
        (Reply::bulk("modules"), Reply::Array(vec![])),
    ])
}

/// `CLIENT REPLY ON|OFF|SKIP`: OFF and SKIP have no reply of their own.
pub fn client_reply(e: &mut Engine, c: &Call) -> Reply {
    let Some(cl) = e.clients.get_mut(&c.client) else { return Reply::err("ERR no such client") };
    if is_opt(c.arg(2), "on") {
        cl.reply_off = false;
        cl.reply_skip = false;
        cl.reply_skip_next = false;
        return Reply::ok();
    }
    if is_opt(c.arg(2), "off") {
        cl.reply_off = true;
    } else if is_opt(c.arg(2), "skip") {
        if !cl.reply_off {
            cl.reply_skip_next = true;
        }
    } else {
        return syntax_error();
    }
    // No reply — but inside EXEC the array already counts one (see the header).
    if !cl.in_multi {
        cl.reply_dropped = true;
    }
    Reply::ok()
}

/// `CLIENT UNBLOCK id [TIMEOUT|ERROR]`: a client blocked on keys gets its timeout reply or an
/// UNBLOCKED error. One postponed by CLIENT PAUSE gets the error as 7.0.15 gives it — and its
/// command still runs (postponed again while the pause lasts); TIMEOUT there makes 7.0.15 panic
/// (`replyToBlockedClientTimedOut()` knows no BLOCKED_POSTPONE): here it answers 0.
pub fn client_unblock(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() > 4 {
        return subcommand_syntax_error("CLIENT", c.arg(1));
    }
    let mut error = false;
    if c.argc() == 4 {
        if is_opt(c.arg(3), "error") {
            error = true;
        } else if !is_opt(c.arg(3), "timeout") {
            return Reply::err("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
        }
    }
    let Some(id) = string2ll(c.arg(2)) else { return Reply::err(crate::command::NOT_INTEGER) };
    let target = id as ClientId;
    if error && e.clients.get(&target).is_some_and(|t| t.postponed.is_some()) {
        e.add_reply(target, Reply::err("UNBLOCKED client unblocked via CLIENT UNBLOCK"));
        e.release_postponed(target);
        return Reply::Integer(1);
    }
    if e.clients.get(&target).is_none_or(|t| t.blocked.is_none()) {
        return Reply::Integer(0);
    }
    let reply = if error {
        Reply::err("UNBLOCKED client unblocked via CLIENT UNBLOCK")
    } else {
        // blocked.c replyToBlockedClientTimedOut(): a blocking pop's timeout is a null array.
        Reply::NilArray
    };
    e.unblock(target);
    e.add_reply(target, reply);
    if let Some(t) = e.clients.get_mut(&target) {
        t.reset_after_command(false);
    }
    Reply::Integer(1)
}

/// `CLIENT PAUSE timeout [WRITE|ALL]`: the mode is checked first, then the timeout (ms), which
/// is added to the clock as 7.0 adds it — without an overflow check.
pub fn client_pause(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() > 4 {
        return subcommand_syntax_error("CLIENT", c.arg(1));
    }
    let mut kind = PauseKind::All;
    if c.argc() == 4 {
        if is_opt(c.arg(3), "write") {
            kind = PauseKind::Write;
        } else if !is_opt(c.arg(3), "all") {
            return Reply::err("ERR CLIENT PAUSE mode must be WRITE or ALL");
        }
    }
    let Some(ms) = string2ll(c.arg(2)) else {
        return Reply::err("ERR timeout is not an integer or out of range");
    };
    if ms < 0 {
        return Reply::err("ERR timeout is negative");
    }
    let end = if ms > 0 { ms.wrapping_add(e.now_ms()) } else { 0 };
    e.pause_clients(end, kind);
    Reply::ok()
}

/// `CLIENT UNPAUSE`: the postponed commands run before the server sleeps again.
pub fn client_unpause(e: &mut Engine, _c: &Call) -> Reply {
    e.unpause_clients();
    Reply::ok()
}

/// `CLIENT NO-EVICT ON|OFF` (the `e` flag; the playground has no client eviction to exempt from).
pub fn client_no_evict(e: &mut Engine, c: &Call) -> Reply {
    let on = if is_opt(c.arg(2), "on") {
        true
    } else if is_opt(c.arg(2), "off") {
        false
    } else {
        return syntax_error();
    };
    if let Some(cl) = e.clients.get_mut(&c.client) {
        cl.no_evict = on;
    }
    Reply::ok()
}

// ---------------------------------------------------------------------------------------------
// Authentication and the ACL log's client-info (acl.c, beside catClientInfoString())
// ---------------------------------------------------------------------------------------------

impl Engine {
    /// acl.c `addACLLogEntry()`: an entry with the client's CLIENT INFO line as it is now.
    pub(crate) fn acl_log(
        &mut self,
        client: ClientId,
        reason: Reason,
        context: Context,
        object: Vec<u8>,
        user: Vec<u8>,
    ) {
        let Some(c) = self.clients.get(&client) else { return };
        let entry = LogEntry {
            count: 1,
            reason,
            context,
            object,
            username: user,
            ctime_ms: self.now_ms(),
            client_info: client_info_string(self, c, true),
        };
        let max_len = usize::try_from(self.config.int("acllog-max-len")).unwrap_or(usize::MAX);
        self.acl.log_add(entry, max_len);
    }

    /// acl.c `ACLAuthenticateUser()` (AUTH, HELLO AUTH): on success the client runs as `user`;
    /// a failure is logged (`object`: the command's name as typed).
    pub(crate) fn authenticate_user(&mut self, client: ClientId, user: &[u8], pass: &[u8], object: &[u8]) -> bool {
        if self.acl.check_credentials(user, pass) {
            if let Some(c) = self.clients.get_mut(&client) {
                c.authenticated = true;
                c.user = user.to_vec();
            }
            return true;
        }
        let context =
            if self.clients.get(&client).is_some_and(|c| c.in_multi) { Context::Multi } else { Context::Toplevel };
        self.acl_log(client, Reason::Auth, context, object.to_vec(), user.to_vec());
        false
    }
}
