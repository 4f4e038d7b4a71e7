//! ACL: models acl.c's commands — `aclCommand()` (ACL SETUSER, DELUSER, GETUSER, LIST, USERS,
//! WHOAMI, CAT, GENPASS, LOG, DRYRUN, LOAD, SAVE, HELP) — and the permission check every command
//! passes: `ACLCheckAllPerm()` as server.c `processCommand()`, multi.c `execCommand()` and
//! script.c `scriptVerifyACL()` call it, with `addACLLogEntry()` for each denial and
//! `ACLAuthenticateUser()` for AUTH and HELLO. The users, their rules and the log are
//! ../acl.rs; this file connects them to clients, keys and replies.
//!
//! Deviations: the playground has no ACL file, so ACL LOAD and ACL SAVE answer as a server
//! started without `aclfile`; ACL GENPASS draws from the engine's seeded RNG (Redis: its
//! SHA256-based CSPRNG seeded from /dev/urandom); ACL DRYRUN knows only the commands the
//! playground runs (others are "not found"); an ACL LOG entry's `client-info` is the client's
//! CLIENT INFO line as the playground models it (socket and buffer fields are stand-ins).

use crate::acl::{
    c_str, category_index, has_spaces, pubsub_revoked, subscription_revoked, Acl, ChannelArgs, CheckedCommand, Context,
    Denied, Reason, User, CATEGORIES, KEY_READ, KEY_WRITE,
};
use crate::command::call::{Call, Command};
use crate::command::server::command_keys;
use crate::command::{is_opt, parse_i64};
use crate::engine::{ClientId, Engine};
use crate::reply::Reply;

// -------------------------------------------------------------------------------------------
// The check every command passes
// -------------------------------------------------------------------------------------------

/// The keys a command names and what it does to each (`CMD_KEY_ACCESS` → read;
/// `INSERT`/`DELETE`/`UPDATE` → write), from its key specs.
fn key_permissions(cmd: &Command, argv: &[Vec<u8>]) -> Vec<(usize, u8)> {
    command_keys(cmd, argv)
        .into_iter()
        .map(|(pos, flags)| {
            let mut perm = 0;
            for f in flags {
                match f.to_ascii_lowercase().as_str() {
                    "access" => perm |= KEY_READ,
                    "insert" | "delete" | "update" => perm |= KEY_WRITE,
                    _ => {}
                }
            }
            (pos, perm)
        })
        .collect()
}

/// acl.c `ACLCheckAllUserCommandPerm()` for a command of the table.
pub(crate) fn user_check(user: &User, cmd: &Command, argv: &[Vec<u8>]) -> Result<(), Denied> {
    if user.unrestricted() {
        return Ok(());
    }
    let checked = checked_command(cmd);
    user.check(&checked, argv, &mut || key_permissions(cmd, argv))
}

/// What the check needs to know of a command.
fn checked_command(cmd: &Command) -> CheckedCommand {
    let channels = match cmd.name.as_str() {
        "publish" | "spublish" => ChannelArgs::Publish,
        "subscribe" | "ssubscribe" => ChannelArgs::Subscribe,
        "psubscribe" => ChannelArgs::PatternSubscribe,
        _ => ChannelArgs::None,
    };
    CheckedCommand { id: cmd.id, is_subcommand: cmd.name.contains('|'), no_auth: cmd.has_flag("no_auth"), channels }
}

/// acl.c `ACLUserCheckCmdWithUnrestrictedKeyAccess(…, CMD_KEY_ACCESS)`: the command allowed
/// with access to read any key (sort.c asks it before honouring BY and GET patterns).
pub(crate) fn user_check_all_keys_readable(user: &User, cmd: &Command, argv: &[Vec<u8>]) -> bool {
    if user.unrestricted() {
        return true;
    }
    let checked = checked_command(cmd);
    user.check_with_all_keys_readable(&checked, argv, &mut || key_permissions(cmd, argv))
}

/// The NOPERM error server.c `processCommand()` answers.
pub(crate) fn noperm(cmd: &Command, denied: Denied) -> Reply {
    match denied.reason {
        Reason::Command => Reply::err(format!("NOPERM this user has no permissions to run the '{}' command", cmd.name)),
        Reason::Key => Reply::err("NOPERM this user has no permissions to access one of the keys used as arguments"),
        Reason::Channel => {
            Reply::err("NOPERM this user has no permissions to access one of the channels used as arguments")
        }
        Reason::Auth => Reply::err("no permission"),
    }
}

/// The error multi.c `execCommand()` answers for a queued command the rules no longer allow.
pub(crate) fn noperm_at_exec(denied: Denied) -> Reply {
    let reason = match denied.reason {
        Reason::Command => "no permission to execute the command or subcommand",
        Reason::Key => "no permission to touch the specified keys",
        Reason::Channel => "no permission to access one of the channels used as arguments",
        Reason::Auth => "no permission",
    };
    Reply::err(format!(
        "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: {reason}"
    ))
}

/// The message a script's redis.call gets (script.c `scriptVerifyACL()`).
pub(crate) fn noperm_in_script(denied: Denied) -> &'static str {
    match denied.reason {
        Reason::Command => "ERR The user executing the script can't run this command or subcommand",
        Reason::Key => {
            "ERR The user executing the script can't access at least one of the keys mentioned in the command arguments"
        }
        Reason::Channel => "ERR The user executing the script can't publish to the channel mentioned in the command",
        Reason::Auth => "ERR The user executing the script is lacking the permissions for the command",
    }
}

impl Engine {
    /// acl.c `ACLCheckAllPerm()`: may the client's user run this command with these arguments?
    pub(crate) fn acl_check(&self, client: ClientId, cmd: &Command, argv: &[Vec<u8>]) -> Result<(), Denied> {
        let Some(user) = self.clients.get(&client).and_then(|c| self.acl.user(&c.user)) else {
            return Ok(());
        };
        user_check(user, cmd, argv)
    }

    /// [`user_check_all_keys_readable`] for a client's user (a client without one may read all).
    pub(crate) fn acl_all_keys_readable(&self, client: ClientId, cmd: &Command, argv: &[Vec<u8>]) -> bool {
        match self.clients.get(&client).and_then(|c| self.acl.user(&c.user)) {
            Some(user) => user_check_all_keys_readable(user, cmd, argv),
            None => true,
        }
    }

    /// The context a denial is logged in: MULTI/EXEC or the top level (scripts say so).
    pub(crate) fn acl_context(&self, client: ClientId) -> Context {
        if self.clients.get(&client).is_some_and(|c| c.in_multi) {
            Context::Multi
        } else {
            Context::Toplevel
        }
    }

    /// acl.c `addACLLogEntry()` for a denied command, key or channel.
    pub(crate) fn acl_log_denied(
        &mut self,
        client: ClientId,
        cmd: &Command,
        argv: &[Vec<u8>],
        denied: Denied,
        context: Context,
    ) {
        let object = match denied.reason {
            Reason::Command => cmd.name.as_bytes().to_vec(),
            _ => argv.get(denied.pos).cloned().unwrap_or_default(),
        };
        let username = self.clients.get(&client).map(|c| c.user.clone()).unwrap_or_default();
        self.acl_log(client, denied.reason, context, object, username);
    }

    /// acl.c `ACLFreeUserAndKillClients()`: the user's clients go back to the default user,
    /// unauthenticated, and are closed — the one running this command after its reply.
    fn kill_clients_of(&mut self, name: &[u8], current: ClientId) {
        let victims: Vec<ClientId> = self.clients.values().filter(|c| c.user == name).map(|c| c.id).collect();
        for id in victims {
            self.close_client(id, current);
        }
    }

    fn close_client(&mut self, id: ClientId, current: ClientId) {
        if let Some(c) = self.clients.get_mut(&id) {
            c.user = b"default".to_vec();
            c.authenticated = false;
            if id == current {
                c.close_after_command = true;
                return;
            }
        }
        self.disconnect(id);
    }
}

// -------------------------------------------------------------------------------------------
// ACL <subcommand>
// -------------------------------------------------------------------------------------------

/// networking.c `addReplySubcommandSyntaxError()`.
fn subcommand_syntax_error(c: &Call) -> Reply {
    let mut msg = b"ERR unknown subcommand or wrong number of arguments for '".to_vec();
    let sub = c_str(c.arg(1));
    msg.extend(&sub[..sub.len().min(128)]);
    msg.extend(b"'. Try ");
    msg.extend(c_str(c.arg(0)).to_ascii_uppercase());
    msg.extend(b" HELP.");
    Reply::Error(msg)
}

/// `ERR <prefix><arg><suffix>`, with the argument as C's `%s` prints it.
fn err_with(prefix: &str, arg: &[u8], suffix: &str) -> Reply {
    let mut msg = format!("ERR {prefix}").into_bytes();
    msg.extend(c_str(arg));
    msg.extend(suffix.as_bytes());
    Reply::Error(msg)
}

/// `ACL SETUSER <username> [rule …]`: every rule is tried on a copy; the user changes only when
/// all are valid. Subscribers of the user who lose a channel are disconnected.
pub fn acl_setuser(e: &mut Engine, c: &Call) -> Reply {
    let name = c.arg(2).to_vec();
    if has_spaces(&name) {
        return Reply::err("ERR Usernames can't contain spaces or null characters");
    }
    let rules = match Acl::merge_selector_args(&c.argv[3..]) {
        Ok(rules) => rules,
        Err(j) => return err_with("Unmatched parenthesis in acl selector starting at '", c.arg(3 + j), "'."),
    };
    let pubsub_allchannels = e.config.str("acl-pubsub-default") == "allchannels";
    match e.acl.set_user(&name, &rules, &c.table.acl, pubsub_allchannels) {
        Err((rule, err)) => {
            let mut msg = b"ERR Error in ACL SETUSER modifier '".to_vec();
            msg.extend(c_str(&rule));
            msg.extend(b"': ");
            msg.extend(err.message().as_bytes());
            Reply::Error(msg)
        }
        Ok(old) => {
            let upcoming = match (old, e.acl.user(&name)) {
                (Some(old), Some(new)) => pubsub_revoked(new, &old),
                _ => None,
            };
            if let Some(upcoming) = upcoming {
                // acl.c ACLKillPubsubClientsIfNeeded().
                let victims: Vec<ClientId> = e
                    .clients
                    .values()
                    .filter(|cl| cl.user == name && cl.in_pubsub())
                    .filter(|cl| subscription_revoked(&upcoming, &cl.channels, &cl.patterns))
                    .map(|cl| cl.id)
                    .collect();
                for id in victims {
                    e.close_client(id, c.client);
                }
            }
            Reply::ok()
        }
    }
}

/// `ACL DELUSER <username> …`: how many existed; their clients are disconnected.
pub fn acl_deluser(e: &mut Engine, c: &Call) -> Reply {
    if c.argv[2..].iter().any(|n| c_str(n) == b"default") {
        return Reply::err("ERR The 'default' user cannot be removed");
    }
    let mut deleted = 0;
    for name in &c.argv[2..] {
        if e.acl.del_user(name) {
            e.kill_clients_of(name, c.client);
            deleted += 1;
        }
    }
    Reply::Integer(deleted)
}

/// A selector's `commands`, `keys` and `channels` fields (acl.c
/// `aclAddReplySelectorDescription()`).
fn selector_fields(s: &crate::acl::Selector, c: &Call) -> Vec<(Reply, Reply)> {
    vec![
        (Reply::bulk("commands"), Reply::bulk(s.describe_commands(&c.table.acl))),
        (Reply::bulk("keys"), Reply::Bulk(s.describe_keys())),
        (Reply::bulk("channels"), Reply::Bulk(s.describe_channels())),
    ]
}

/// `ACL GETUSER <username>`: a map of flags, password hashes, the root selector's commands,
/// keys and channels, and the other selectors; nil for an unknown user.
pub fn acl_getuser(e: &mut Engine, c: &Call) -> Reply {
    let Some(u) = e.acl.user(c.arg(2)) else { return Reply::Nil };
    let mut fields = vec![
        (Reply::bulk("flags"), Reply::Set(u.flags().into_iter().map(Reply::bulk).collect())),
        (Reply::bulk("passwords"), Reply::Array(u.passwords().iter().map(Reply::bulk).collect())),
    ];
    let selectors = u.selectors();
    fields.extend(selector_fields(&selectors[0], c));
    let others = selectors[1..].iter().map(|s| Reply::Map(selector_fields(s, c))).collect();
    fields.push((Reply::bulk("selectors"), Reply::Array(others)));
    Reply::Map(fields)
}

/// `ACL LIST`: each user as the rules that rebuild it, `user <name> <rules>`.
pub fn acl_list(e: &mut Engine, c: &Call) -> Reply {
    Reply::Array(
        e.acl
            .users()
            .map(|u| {
                let mut line = b"user ".to_vec();
                line.extend(&u.name);
                line.push(b' ');
                line.extend(u.describe(&c.table.acl));
                Reply::Bulk(line)
            })
            .collect(),
    )
}

pub fn acl_users(e: &mut Engine, _c: &Call) -> Reply {
    Reply::Array(e.acl.users().map(|u| Reply::Bulk(u.name.clone())).collect())
}

pub fn acl_whoami(e: &mut Engine, c: &Call) -> Reply {
    match e.clients.get(&c.client) {
        Some(cl) => Reply::Bulk(cl.user.clone()),
        None => Reply::Nil,
    }
}

/// `ACL CAT [category]`: the categories, or the commands and subcommands in one.
pub fn acl_cat(_e: &mut Engine, c: &Call) -> Reply {
    match c.argc() {
        2 => Reply::Array(CATEGORIES.iter().map(|n| Reply::bulk(*n)).collect()),
        3 => match category_index(c.arg(2)) {
            Some(cat) => Reply::Array(c.table.acl.in_category(cat).into_iter().map(Reply::bulk).collect()),
            None => {
                let name = c_str(c.arg(2));
                err_with("Unknown category '", &name[..name.len().min(128)], "'")
            }
        },
        _ => subcommand_syntax_error(c),
    }
}

/// `ACL GENPASS [bits]`: (bits+3)/4 random hex digits, 256 bits by default.
pub fn acl_genpass(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() > 3 {
        return subcommand_syntax_error(c);
    }
    let bits = if c.argc() == 3 {
        match parse_i64(c.arg(2)) {
            Ok(b) => b,
            Err(r) => return r,
        }
    } else {
        256
    };
    if !(1..=4096).contains(&bits) {
        return Reply::err(
            "ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096",
        );
    }
    let chars = (bits + 3) / 4;
    let pass: Vec<u8> = (0..chars).map(|_| b"0123456789abcdef"[e.random_index(16)]).collect();
    Reply::Bulk(pass)
}

/// `ACL LOG [count | RESET]`: the newest entries first (10 by default).
pub fn acl_log(e: &mut Engine, c: &Call) -> Reply {
    if c.argc() > 3 {
        return subcommand_syntax_error(c);
    }
    let mut count = 10i64;
    if c.argc() == 3 {
        if is_opt(c.arg(2), "reset") {
            e.acl.log_reset();
            return Reply::ok();
        }
        count = match parse_i64(c.arg(2)) {
            Ok(n) => n.max(0),
            Err(r) => return r,
        };
    }
    let now = e.now_ms;
    let entries = e
        .acl
        .log()
        .take(count as usize)
        .map(|l| {
            Reply::Map(vec![
                (Reply::bulk("count"), Reply::Integer(l.count as i64)),
                (Reply::bulk("reason"), Reply::bulk(l.reason.name())),
                (Reply::bulk("context"), Reply::bulk(l.context.name())),
                (Reply::bulk("object"), Reply::Bulk(l.object.clone())),
                (Reply::bulk("username"), Reply::Bulk(l.username.clone())),
                (Reply::bulk("age-seconds"), Reply::Double((now - l.ctime_ms) as f64 / 1000.0)),
                (Reply::bulk("client-info"), Reply::bulk(l.client_info.as_str())),
            ])
        })
        .collect();
    Reply::Array(entries)
}

/// `ACL DRYRUN <username> <command> [arg …]`: OK, or why the user could not run it (a bulk
/// string, not an error).
pub fn acl_dryrun(e: &mut Engine, c: &Call) -> Reply {
    let Some(user) = e.acl.user(c.arg(2)) else {
        return err_with("User '", c.arg(2), "' not found");
    };
    let args = &c.argv[3..];
    // server.c lookupCommand(): a container without a known subcommand is not found.
    let base = c.table.get(&args[0]);
    let cmd = match base {
        Some(b) if b.is_container() && args.len() > 1 => b.subcommand(&args[1]),
        other => other,
    };
    let Some(cmd) = cmd else {
        return err_with("Command '", &args[0], "' not found");
    };
    let argc = args.len() as i64;
    if (cmd.arity > 0 && cmd.arity != argc) || argc < -cmd.arity {
        return Reply::err(format!("ERR wrong number of arguments for '{}' command", cmd.name));
    }
    match user_check(user, cmd, args) {
        Ok(()) => Reply::ok(),
        Err(d) => {
            let mut msg = match d.reason {
                Reason::Command => {
                    format!("This user has no permissions to run the '{}' command", cmd.name).into_bytes()
                }
                Reason::Key | Reason::Auth => b"This user has no permissions to access the '".to_vec(),
                Reason::Channel => b"This user has no permissions to access the '".to_vec(),
            };
            if d.reason != Reason::Command {
                msg.extend(c_str(&args[d.pos]));
                msg.extend(if d.reason == Reason::Channel { &b"' channel"[..] } else { &b"' key"[..] });
            }
            Reply::Bulk(msg)
        }
    }
}

/// ACL LOAD and ACL SAVE on a server without an ACL file.
pub fn acl_load(_e: &mut Engine, _c: &Call) -> Reply {
    Reply::err(NO_ACL_FILE)
}

pub fn acl_save(_e: &mut Engine, _c: &Call) -> Reply {
    Reply::err(NO_ACL_FILE)
}

const NO_ACL_FILE: &str = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.";

#[cfg(test)]
mod tests {
    use crate::reply::Reply;
    use crate::{Engine, EngineOptions};

    fn run(e: &mut Engine, c: crate::ClientId, args: &[&[u8]]) -> Reply {
        e.execute(c, &args.iter().map(|a| a.to_vec()).collect::<Vec<_>>())
    }

    fn len(r: &Reply) -> usize {
        match r {
            Reply::Array(v) => v.len(),
            other => panic!("not an array: {other:?}"),
        }
    }

    #[test]
    fn thousands_of_users_and_selectors() {
        let mut e = Engine::new(EngineOptions::default());
        let c = e.connect();
        for i in 0..3000 {
            let name = format!("user{i}");
            let pattern = format!("~k{i}*");
            let r =
                run(&mut e, c, &[b"ACL", b"SETUSER", name.as_bytes(), b"on", b"+@read", b"-get", pattern.as_bytes()]);
            assert_eq!(r, Reply::ok());
        }
        assert_eq!(len(&run(&mut e, c, &[b"ACL", b"LIST"])), 3001);
        assert_eq!(len(&run(&mut e, c, &[b"ACL", b"USERS"])), 3001);
        // One user with a thousand selectors, each a different mix of rules.
        let mut args: Vec<Vec<u8>> = vec![b"ACL".to_vec(), b"SETUSER".to_vec(), b"many".to_vec(), b"on".to_vec()];
        for i in 0..1000 {
            let cat = crate::acl::CATEGORIES[i % crate::acl::CATEGORIES.len()];
            args.push(format!("(+@{cat} -get ~s{i} &c{i})").into_bytes());
        }
        assert_eq!(e.execute(c, &args), Reply::ok());
        let Reply::Array(list) = run(&mut e, c, &[b"ACL", b"LIST"]) else { panic!() };
        assert!(list.iter().any(
            |l| matches!(l, Reply::Bulk(b) if b.starts_with(b"user many on") && b.ends_with(b"&c999 -@all +@pubsub)"))
        ));
        let dry = run(&mut e, c, &[b"ACL", b"DRYRUN", b"many", b"set", b"s999", b"v"]);
        assert_eq!(dry, Reply::bulk("This user has no permissions to access the 's999' key"));
        assert_eq!(run(&mut e, c, &[b"ACL", b"DRYRUN", b"many", b"set", b"s2", b"v"]), Reply::ok());
        assert_eq!(run(&mut e, c, &[b"ACL", b"DELUSER", b"many", b"user0", b"user2999"]), Reply::Integer(3));
    }

    #[test]
    fn huge_patterns_and_hostile_rules_are_errors_not_panics() {
        let mut e = Engine::new(EngineOptions::default());
        let c = e.connect();
        // A megabyte pattern of stars: matching stays linear-ish (util::glob_match backtracks once).
        let mut pattern = b"~".to_vec();
        pattern.extend(std::iter::repeat_n(b"*a", 500_000).flatten());
        assert_eq!(run(&mut e, c, &[b"ACL", b"SETUSER", b"big", b"on", b"+@all", &pattern]), Reply::ok());
        let key = vec![b'a'; 100_000];
        let dry = run(&mut e, c, &[b"ACL", b"DRYRUN", b"big", b"get", &key]);
        assert!(matches!(dry, Reply::Bulk(_)), "{dry:?}");
        for bad in [
            &b"((((((((+get))))))))"[..],
            b"(",
            b")",
            b"(+get",
            b"(\"",
            b"(~a \"b c)",
            b"%",
            b"%RWRW~x",
            b"+get|\x00",
            b"\x00",
            b"#\xff",
        ] {
            let r = run(&mut e, c, &[b"ACL", b"SETUSER", b"bad", bad]);
            assert!(r.is_error() || r == Reply::ok(), "{bad:?}: {r:?}");
        }
        // Selectors nested and unbalanced across arguments.
        let r = run(&mut e, c, &[b"ACL", b"SETUSER", b"bad", b"(+get", b"(+set", b"~x)", b"(~y"]);
        assert_eq!(r, Reply::err("ERR Unmatched parenthesis in acl selector starting at '(~y'."));
        // A failed SETUSER created nothing when the user was new.
        assert_eq!(run(&mut e, c, &[b"ACL", b"GETUSER", b"bad2"]), Reply::Nil);
        assert!(run(&mut e, c, &[b"ACL", b"SETUSER", b"bad2", b"on", b"+nosuch"]).is_error());
        assert_eq!(run(&mut e, c, &[b"ACL", b"GETUSER", b"bad2"]), Reply::Nil);
        // The log is bounded by acllog-max-len.
        run(&mut e, c, &[b"ACL", b"SETUSER", b"lim", b"on", b"nopass", b"-@all", b"+auth", b"+get"]);
        let d = e.connect();
        run(&mut e, d, &[b"AUTH", b"lim", b"x"]);
        for i in 0..500 {
            let key = format!("k{i}");
            assert!(run(&mut e, d, &[b"GET", key.as_bytes()]).is_error());
        }
        assert_eq!(len(&run(&mut e, c, &[b"ACL", b"LOG", b"1000"])), 128);
        assert_eq!(len(&run(&mut e, c, &[b"ACL", b"LOG"])), 10);
        let huge = run(&mut e, c, &[b"ACL", b"LOG", b"9223372036854775807"]);
        assert_eq!(len(&huge), 128);
        assert!(matches!(run(&mut e, c, &[b"ACL", b"GENPASS", b"4096"]), Reply::Bulk(b) if b.len() == 1024));
    }

    #[test]
    fn genpass_follows_the_seed() {
        let pass = |seed| {
            let mut e = Engine::new(EngineOptions { seed, ..Default::default() });
            let c = e.connect();
            run(&mut e, c, &[b"ACL", b"GENPASS"])
        };
        assert_eq!(pass(1), pass(1));
        assert_ne!(pass(1), pass(2));
        let Reply::Bulk(p) = pass(1) else { panic!() };
        assert_eq!(p.len(), 64);
        assert!(p.iter().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    }
}
