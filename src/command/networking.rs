//! Connections: models networking.c — CLIENT ID/SETNAME/GETNAME/LIST/INFO/KILL
//! (`clientCommand()`, `catClientInfoString()`, `clientSetName()`), HELLO (`helloCommand()`:
//! switches the client to RESP2 or RESP3, with its AUTH and SETNAME options), RESET
//! (`clearClientConnectionState()`, back to RESP2) and QUIT; AUTH (acl.c `authCommand()`).
//!
//! Deviations: the engine sees no sockets, so CLIENT LIST's socket fields are stand-ins: `addr`
//! and `laddr` are the real ones only for a `redisplay serve` connection (a console client shows
//! 127.0.0.1 with port 40000+id), `fd` is 7+id, buffer sizes are those of an idle redis-server
//! connection (`qbuf=26 qbuf-free=20448 rbs=1024 … tot-mem=22298`), `events=r`. There is no
//! ACL: the one user is `default`, whose password is `requirepass` (any password while that is
//! empty), for AUTH and HELLO's AUTH alike.

use crate::command::call::Call;
use crate::command::{is_opt, syntax_error};
use crate::engine::{Client, ClientId, Engine};
use crate::reply::Reply;
use crate::util::{string2ll, text};

/// networking.c `catClientInfoString()`. `caller`: the client running CLIENT LIST/INFO, whose
/// query buffer holds the command (the buffer fields are those redis-server 7.0.15 shows for an
/// idle connection and for the caller).
fn client_info_string(e: &Engine, c: &Client, caller: bool) -> String {
    let now = e.now_ms();
    let mut flags = String::new();
    if c.in_multi {
        flags.push('x');
    }
    if c.blocked.is_some() {
        flags.push('b');
    }
    if c.dirty_cas {
        flags.push('d');
    }
    if c.dirty_exec {
        flags.push('e');
    }
    if c.in_pubsub() {
        flags.push('P');
    }
    if flags.is_empty() {
        flags.push('N');
    }
    let multi = if c.in_multi { c.queued.len() as i64 } else { -1 };
    // An idle connection's query buffer was freed; a blocked one still holds its command.
    let argv_mem = if caller || c.blocked.is_some() { c.argv_mem } else { 0 };
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
        "id={} addr={} laddr={} fd={} name={} age={} idle={} flags={} db={} sub={} psub={} ssub=0 multi={} \
         {} events=r cmd={} user=default redir=-1 resp={}",
        c.id,
        addr_of(c),
        laddr_of(c),
        7 + c.id,
        text(&c.name),
        (now - c.created_ms).max(0) / 1000,
        (now - c.last_interaction_ms).max(0) / 1000,
        flags,
        c.db,
        c.channels.len(),
        c.patterns.len(),
        multi,
        buffers,
        c.last_cmd,
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

/// The client's `ip:port`: the real peer for a network client, a stand-in for a console.
fn addr_of(c: &Client) -> String {
    match &c.addr {
        Some((addr, _)) => addr.clone(),
        None => format!("127.0.0.1:{}", 40000 + c.id),
    }
}

fn laddr_of(c: &Client) -> String {
    match &c.addr {
        Some((_, laddr)) => laddr.clone(),
        None => "127.0.0.1:6379".into(),
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
            let matches = match k.as_slice() {
                b"normal" => !cl.in_pubsub(),
                b"pubsub" => cl.in_pubsub(),
                _ => false,
            };
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
        let victim = e.clients.values().find(|cl| addr_of(cl).as_bytes() == target).map(|cl| cl.id);
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
            if val != b"default" {
                return Reply::err(format!("ERR No such user '{}'", text(val)));
            }
            user_f = Some(());
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
    let _ = user_f;
    let victims: Vec<ClientId> = e
        .clients
        .values()
        .filter(|cl| id_f.is_none_or(|id| cl.id == id))
        .filter(|cl| addr_f.as_ref().is_none_or(|a| addr_of(cl).as_bytes() == a.as_slice()))
        .filter(|cl| laddr_f.as_ref().is_none_or(|a| laddr_of(cl).as_bytes() == a.as_slice()))
        .filter(|cl| {
            type_f.as_ref().is_none_or(|t| match t.as_slice() {
                b"normal" => !cl.in_pubsub(),
                b"pubsub" => cl.in_pubsub(),
                _ => false,
            })
        })
        .filter(|cl| !(skipme && cl.id == c.client))
        .map(|cl| cl.id)
        .collect();
    for &id in &victims {
        e.disconnect(id);
    }
    Reply::Integer(victims.len() as i64)
}

/// networking.c `clearClientConnectionState()` (RESET): out of MULTI, no watches, no
/// subscriptions, no blocking, db 0, no name.
pub fn reset(e: &mut Engine, c: &Call) -> Reply {
    e.discard_transaction(c.client);
    crate::pubsub::unsubscribe_all(e, c.client);
    e.unblock(c.client);
    if let Some(cl) = e.clients.get_mut(&c.client) {
        cl.db = 0;
        cl.name.clear();
        cl.outbox.clear();
        cl.resp = 2;
    }
    // clientSetDefaultAuth(): back to the default user, authenticated only if it has no password.
    let nopass = e.config.str("requirepass").is_empty();
    if let Some(cl) = e.clients.get_mut(&c.client) {
        cl.authenticated = nopass;
    }
    Reply::Status("RESET".into())
}

/// acl.c `ACLCheckUserCredentials()` for the one user the playground has, `default`: a
/// password-less default user takes any password; otherwise it must equal requirepass.
fn check_credentials(e: &Engine, user: &[u8], pass: &[u8]) -> bool {
    let required = e.config.str("requirepass");
    user == b"default" && (required.is_empty() || required.as_bytes() == pass)
}

/// acl.c `authCommand()`: `AUTH password` or `AUTH username password`.
pub fn auth(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() > 3 {
        return syntax_error();
    }
    let (user, pass): (&[u8], &[u8]) = if c.argc() == 2 {
        // The legacy form on a server without a password is a configuration mistake.
        if e.config.str("requirepass").is_empty() {
            return Reply::err(
                "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?",
            );
        }
        (b"default", c.arg(1))
    } else {
        (c.arg(1), c.arg(2))
    };
    if !check_credentials(e, user, pass) {
        return Reply::err("WRONGPASS invalid username-password pair or user is disabled.");
    }
    if let Some(cl) = e.clients.get_mut(&c.client) {
        cl.authenticated = true;
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
    let mut setname: Option<Vec<u8>> = None;
    let mut credentials: Option<(Vec<u8>, Vec<u8>)> = None;
    while j < c.argc() {
        let more = c.argc() - j - 1;
        if is_opt(c.arg(j), "auth") && more >= 2 {
            credentials = Some((c.arg(j + 1).to_vec(), c.arg(j + 2).to_vec()));
            j += 3;
        } else if is_opt(c.arg(j), "setname") && more >= 1 {
            setname = Some(c.arg(j + 1).to_vec());
            j += 2;
        } else {
            return Reply::err(format!("ERR Syntax error in HELLO option '{}'", text(c.arg(j))));
        }
    }
    if let Some((user, pass)) = credentials {
        if !check_credentials(e, &user, &pass) {
            return Reply::err("WRONGPASS invalid username-password pair or user is disabled.");
        }
        if let Some(cl) = e.clients.get_mut(&c.client) {
            cl.authenticated = true;
        }
    }
    if e.clients.get(&c.client).is_some_and(|cl| !cl.authenticated) {
        return Reply::err(
            "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time",
        );
    }
    if let Some(name) = setname {
        if let Err(r) = set_name(e, c.client, &name) {
            return r;
        }
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
