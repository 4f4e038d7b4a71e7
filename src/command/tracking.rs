//! The CLIENT subcommands of client-side caching: networking.c `clientCommand()`'s TRACKING,
//! CACHING, GETREDIR and TRACKINGINFO branches, with Redis 7.0's checks and errors in its order.
//! The table and the invalidations are ../tracking.rs.

use crate::command::call::Call;
use crate::command::{is_opt, syntax_error, NOT_INTEGER};
use crate::engine::{ClientId, Engine};
use crate::reply::Reply;
use crate::tracking::{check_prefix_collisions, TrackingOptions};
use crate::util::string2ll;

/// `CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p …] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]`.
pub fn client_tracking(e: &mut Engine, c: &Call) -> Reply {
    let mut redirect: i64 = 0;
    let mut opts = TrackingOptions::default();
    let mut prefixes: Vec<Vec<u8>> = Vec::new();
    let mut j = 3;
    while j < c.argc() {
        let more = c.argc() - 1 - j;
        let opt = c.arg(j);
        if is_opt(opt, "redirect") && more > 0 {
            j += 1;
            if redirect != 0 {
                return Reply::err("ERR A client can only redirect to a single other client");
            }
            let Some(id) = string2ll(c.arg(j)) else { return Reply::err(NOT_INTEGER) };
            // The target must exist now (it may go away later: the redirection then breaks).
            if id <= 0 || !e.clients.contains_key(&(id as ClientId)) {
                return Reply::err("ERR The client ID you want redirect to does not exist");
            }
            redirect = id;
        } else if is_opt(opt, "bcast") {
            opts.bcast = true;
        } else if is_opt(opt, "optin") {
            opts.optin = true;
        } else if is_opt(opt, "optout") {
            opts.optout = true;
        } else if is_opt(opt, "noloop") {
            opts.noloop = true;
        } else if is_opt(opt, "prefix") && more > 0 {
            j += 1;
            prefixes.push(c.arg(j).to_vec());
        } else {
            return syntax_error();
        }
        j += 1;
    }
    if is_opt(c.arg(2), "off") {
        e.disable_tracking(c.client);
        return Reply::ok();
    }
    if !is_opt(c.arg(2), "on") {
        return syntax_error();
    }
    let current = e.clients.get(&c.client).and_then(|cl| cl.tracking.clone());
    if !opts.bcast && !prefixes.is_empty() {
        return Reply::err("ERR PREFIX option requires BCAST mode to be enabled");
    }
    if let Some(t) = &current {
        if t.bcast != opts.bcast {
            return Reply::err(
                "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.",
            );
        }
    }
    if opts.bcast && (opts.optin || opts.optout) {
        return Reply::err("ERR OPTIN and OPTOUT are not compatible with BCAST");
    }
    if opts.optin && opts.optout {
        return Reply::err("ERR You can't specify both OPTIN mode and OPTOUT mode");
    }
    if let Some(t) = &current {
        if (opts.optin && t.optout) || (opts.optout && t.optin) {
            return Reply::err(
                "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.",
            );
        }
    }
    let mut error = None;
    if opts.bcast {
        let existing = current.map(|t| t.prefixes).unwrap_or_default();
        let (err, go) = check_prefix_collisions(&existing, &prefixes);
        if !go {
            return err.unwrap_or_else(syntax_error);
        }
        error = err;
    }
    e.enable_tracking(c.client, redirect as ClientId, opts, &prefixes);
    match error {
        // Redis 7.0 answers the collision error and then enables tracking, answering OK too.
        Some(err) => {
            if let Some(cl) = e.clients.get_mut(&c.client) {
                cl.outbox.push_back(Reply::ok());
            }
            err
        }
        None => Reply::ok(),
    }
}

/// `CLIENT CACHING YES|NO`: track (OPTIN) or don't track (OPTOUT) the next command's keys.
pub fn client_caching(e: &mut Engine, c: &Call) -> Reply {
    let Some(t) = e.clients.get_mut(&c.client).and_then(|cl| cl.tracking.as_mut()) else {
        return Reply::err(
            "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled",
        );
    };
    if is_opt(c.arg(2), "yes") {
        if !t.optin {
            return Reply::err("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
        }
    } else if is_opt(c.arg(2), "no") {
        if !t.optout {
            return Reply::err("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
        }
    } else {
        return syntax_error();
    }
    t.caching = true;
    Reply::ok()
}

/// `CLIENT GETREDIR`: the redirection (0: none), or -1 when tracking is off.
pub fn client_getredir(e: &mut Engine, c: &Call) -> Reply {
    match e.clients.get(&c.client).and_then(|cl| cl.tracking.as_ref()) {
        Some(t) => Reply::Integer(t.redirect as i64),
        None => Reply::Integer(-1),
    }
}

/// `CLIENT TRACKINGINFO`: a map of `flags` (a set), `redirect` and `prefixes`.
pub fn client_trackinginfo(e: &mut Engine, c: &Call) -> Reply {
    let t = e.clients.get(&c.client).and_then(|cl| cl.tracking.as_ref());
    let mut flags = vec![if t.is_some() { "on" } else { "off" }];
    if let Some(t) = t {
        if t.bcast {
            flags.push("bcast");
        }
        if t.optin {
            flags.push("optin");
            if t.caching {
                flags.push("caching-yes");
            }
        }
        if t.optout {
            flags.push("optout");
            if t.caching {
                flags.push("caching-no");
            }
        }
        if t.noloop {
            flags.push("noloop");
        }
        if t.broken_redir {
            flags.push("broken_redirect");
        }
    }
    let redirect = t.map_or(-1, |t| t.redirect as i64);
    let prefixes = t.map(|t| t.prefixes.iter().map(Reply::bulk).collect()).unwrap_or_default();
    Reply::Map(vec![
        (Reply::bulk("flags"), Reply::Set(flags.into_iter().map(Reply::bulk).collect())),
        (Reply::bulk("redirect"), Reply::Integer(redirect)),
        (Reply::bulk("prefixes"), Reply::Array(prefixes)),
    ])
}
