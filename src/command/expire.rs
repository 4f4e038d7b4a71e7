//! expire.c commands: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT (with NX/XX/GT/LT), TTL, PTTL,
//! EXPIRETIME, PEXPIRETIME, PERSIST. The active expire cycle is src/expire.rs.
//!
//! Models `expireGenericCommand()`, `parseExtendedExpireArgumentsOrReply()`,
//! `ttlGenericCommand()` and `persistCommand()`, in their order of checks. A time already in
//! the past deletes the key (event `del`, not `expired`, and `expired_keys` is unchanged).

use crate::command::call::Call;
use crate::command::{c_str, invalid_expire_time, is_opt, parse_i64};
use crate::engine::{lookup, Engine};
use crate::reply::Reply;

const NX: u32 = 1;
const XX: u32 = 2;
const GT: u32 = 4;
const LT: u32 = 8;

fn parse_flags(c: &Call) -> Result<u32, Reply> {
    let mut flags = 0;
    for opt in &c.argv[3..] {
        flags |= if is_opt(opt, "nx") {
            NX
        } else if is_opt(opt, "xx") {
            XX
        } else if is_opt(opt, "gt") {
            GT
        } else if is_opt(opt, "lt") {
            LT
        } else {
            let mut msg = b"ERR Unsupported option ".to_vec();
            msg.extend_from_slice(c_str(opt));
            return Err(Reply::Error(msg));
        };
    }
    if flags & NX != 0 && flags & (XX | GT | LT) != 0 {
        return Err(Reply::err("ERR NX and XX, GT or LT options at the same time are not compatible"));
    }
    if flags & GT != 0 && flags & LT != 0 {
        return Err(Reply::err("ERR GT and LT options at the same time are not compatible"));
    }
    Ok(flags)
}

/// expire.c `expireGenericCommand()`: `basetime` is now for relative forms, 0 for absolute.
fn expire_generic(e: &mut Engine, c: &Call, basetime: i64, seconds: bool) -> Reply {
    let flags = match parse_flags(c) {
        Ok(f) => f,
        Err(r) => return r,
    };
    let mut when = match parse_i64(c.arg(2)) {
        Ok(n) => n,
        Err(r) => return r,
    };
    if seconds {
        if !(i64::MIN / 1000..=i64::MAX / 1000).contains(&when) {
            return invalid_expire_time(&c.cmd.name);
        }
        when *= 1000;
    }
    if when > i64::MAX - basetime {
        return invalid_expire_time(&c.cmd.name);
    }
    when += basetime;
    let key = c.arg(1);
    if e.lookup_write(c.db, key).is_none() {
        return Reply::Integer(0);
    }
    if flags != 0 {
        let current = e.dbs[c.db].expire_of(key);
        let refused = (flags & NX != 0 && current.is_some())
            || (flags & XX != 0 && current.is_none())
            || (flags & GT != 0 && current.is_none_or(|cur| when <= cur))
            || (flags & LT != 0 && current.is_some_and(|cur| when >= cur));
        if refused {
            return Reply::Integer(0);
        }
    }
    if when <= e.now_ms() {
        e.dbs[c.db].delete(key);
        e.dirty(1);
        e.notify("del", c.db, key);
        // Replicated as an explicit DEL (UNLINK under lazyfree-lazy-expire).
        let del: &[u8] = if e.hot.lazyfree_lazy_expire { b"UNLINK" } else { b"DEL" };
        e.propagate_as(vec![del.to_vec(), key.to_vec()]);
        return Reply::Integer(1);
    }
    e.dbs[c.db].set_expire(key, when);
    e.notify("expire", c.db, key);
    e.dirty(1);
    // Propagated as PEXPIREAT key ms, its NX/XX/GT/LT kept.
    if c.cmd.name != "pexpireat" {
        let mut argv = c.argv.to_vec();
        argv[0] = b"PEXPIREAT".to_vec();
        argv[2] = when.to_string().into_bytes();
        e.propagate_as(argv);
    }
    Reply::Integer(1)
}

pub fn expire(e: &mut Engine, c: &Call) -> Reply {
    let now = e.now_ms();
    expire_generic(e, c, now, true)
}

pub fn pexpire(e: &mut Engine, c: &Call) -> Reply {
    let now = e.now_ms();
    expire_generic(e, c, now, false)
}

pub fn expireat(e: &mut Engine, c: &Call) -> Reply {
    expire_generic(e, c, 0, true)
}

pub fn pexpireat(e: &mut Engine, c: &Call) -> Reply {
    expire_generic(e, c, 0, false)
}

/// expire.c `ttlGenericCommand()`: -2 missing, -1 no TTL, else the remaining (or absolute)
/// time, negative clamped to 0, seconds rounded half up.
fn ttl_generic(e: &mut Engine, c: &Call, ms: bool, absolute: bool) -> Reply {
    let key = c.arg(1);
    if e.lookup(c.db, key, lookup::NOTOUCH).is_none() {
        return Reply::Integer(-2);
    }
    match e.dbs[c.db].expire_of(key) {
        None => Reply::Integer(-1),
        Some(when) => {
            let ttl = if absolute { when } else { when.wrapping_sub(e.now_ms()) }.max(0);
            // `(ttl+500)/1000` overflows a long long near LLONG_MAX; redis-server 7.0.15 (gcc,
            // knowing ttl >= 0) computes it unsigned: EXPIRETIME of PEXPIREAT LLONG_MAX is
            // 9223372036854776, not a wrapped negative number.
            let secs = ((ttl as u64 + 500) / 1000) as i64;
            Reply::Integer(if ms { ttl } else { secs })
        }
    }
}

pub fn ttl(e: &mut Engine, c: &Call) -> Reply {
    ttl_generic(e, c, false, false)
}

pub fn pttl(e: &mut Engine, c: &Call) -> Reply {
    ttl_generic(e, c, true, false)
}

pub fn expiretime(e: &mut Engine, c: &Call) -> Reply {
    ttl_generic(e, c, false, true)
}

pub fn pexpiretime(e: &mut Engine, c: &Call) -> Reply {
    ttl_generic(e, c, true, true)
}

pub fn persist(e: &mut Engine, c: &Call) -> Reply {
    let key = c.arg(1);
    if e.lookup_write(c.db, key).is_none() {
        return Reply::Integer(0);
    }
    if e.dbs[c.db].remove_expire(key) {
        e.notify("persist", c.db, key);
        e.dirty(1);
        Reply::Integer(1)
    } else {
        Reply::Integer(0)
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::EngineOptions;
    use crate::session::Session;

    fn run(s: &mut Session, line: &str) -> String {
        String::from_utf8(s.run_line(line.as_bytes()).text).unwrap()
    }

    #[test]
    fn expiretime_near_llong_max_rounds_unsigned() {
        let mut s = Session::new(EngineOptions::default());
        run(&mut s, "SET k v");
        run(&mut s, "PEXPIREAT k 9223372036854775807");
        assert_eq!(run(&mut s, "EXPIRETIME k"), "(integer) 9223372036854776\n");
        assert_eq!(run(&mut s, "PEXPIRETIME k"), "(integer) 9223372036854775807\n");
        run(&mut s, "PEXPIREAT k 4102444800499");
        assert_eq!(run(&mut s, "EXPIRETIME k"), "(integer) 4102444800\n");
        run(&mut s, "PEXPIREAT k 4102444800500");
        assert_eq!(run(&mut s, "EXPIRETIME k"), "(integer) 4102444801\n");
    }
}
