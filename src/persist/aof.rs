//! The AOF format: commands as RESP arrays. Models aof.c's rewrite without an RDB preamble
//! (`rewriteAppendOnlyFileRio()` with `aof-use-rdb-preamble no`): the function libraries
//! (`rewriteFunctions()`: `FUNCTION LOAD`), then per non-empty db `SELECT` and, per key, the
//! commands that rebuild it — `SET`; `RPUSH`, `SADD`, `ZADD`, `HMSET` of at most
//! `AOF_REWRITE_ITEMS_PER_CMD` (64) items each (`rewriteListObject()` …); a stream's `XADD`s
//! (or `XADD … MAXLEN 0 0-1 x y` for an empty one), `XSETID … ENTRIESADDED … MAXDELETEDID`,
//! `XGROUP CREATE … ENTRIESREAD`, an `XCLAIM … JUSTID FORCE` per pending entry and
//! `XGROUP CREATECONSUMER` for a consumer without any (`rewriteStreamObject()`) — then
//! `PEXPIREAT` for a key with a TTL. Also `catAppendOnlyGenericCommand()`: one command as
//! the AOF (and a replica link) writes it.
//!
//! Difference: keys, and the members of a hashtable set, hash or skiplist sorted set, come in
//! the engine's order (Redis: its dicts' hash order, random per process), so a file matches
//! redis-server's key by key, not byte for byte, once a db holds more than one key.

use crate::db::Db;
use crate::ds::stream::{Stream, StreamId};
use crate::object::{Hash, Set, Value, Zset};

/// aof.c `AOF_REWRITE_ITEMS_PER_CMD`.
pub const ITEMS_PER_CMD: usize = 64;

/// `catAppendOnlyGenericCommand()`: `*<argc>`, then each argument as a bulk string.
pub fn cat_command(out: &mut Vec<u8>, argv: &[Vec<u8>]) {
    count(out, argv.len());
    for a in argv {
        bulk(out, a);
    }
}

/// `rioWriteBulkCount(r, '*', n)`.
fn count(out: &mut Vec<u8>, n: usize) {
    out.push(b'*');
    out.extend_from_slice(n.to_string().as_bytes());
    out.extend_from_slice(b"\r\n");
}

/// `rioWriteBulkString()`.
fn bulk(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'$');
    out.extend_from_slice(s.len().to_string().as_bytes());
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(s);
    out.extend_from_slice(b"\r\n");
}

/// `rioWriteBulkDouble()`: `%.17g`.
fn bulk_double(out: &mut Vec<u8>, d: f64) {
    bulk(out, crate::util::fmt_g(d, 17).as_bytes());
}

/// The variadic commands of `rewriteListObject()` & co: `name key` and up to 64 items each,
/// each item `width` arguments long (2 for ZADD's and HMSET's pairs).
struct Batches<'a> {
    out: &'a mut Vec<u8>,
    name: &'static [u8],
    key: &'a [u8],
    width: usize,
    left: usize,
    in_cmd: usize,
}

impl<'a> Batches<'a> {
    fn new(out: &'a mut Vec<u8>, name: &'static [u8], key: &'a [u8], width: usize, items: usize) -> Self {
        Batches { out, name, key, width, left: items, in_cmd: 0 }
    }

    /// Starts a command before the item when one is due; then the item's arguments follow.
    fn item(&mut self) -> &mut Vec<u8> {
        if self.in_cmd == 0 {
            let n = self.left.min(ITEMS_PER_CMD);
            count(self.out, 2 + n * self.width);
            bulk(self.out, self.name);
            bulk(self.out, self.key);
        }
        self.in_cmd += 1;
        if self.in_cmd == ITEMS_PER_CMD {
            self.in_cmd = 0;
        }
        self.left = self.left.saturating_sub(1);
        self.out
    }
}

/// `rewriteAppendOnlyFileRio()`: the libraries' code, then every db's keys.
pub fn rewrite<'a>(libraries: impl Iterator<Item = &'a [u8]>, dbs: &[Db]) -> Vec<u8> {
    let mut out = Vec::new();
    for code in libraries {
        cat_command(&mut out, &[b"FUNCTION".to_vec(), b"LOAD".to_vec(), code.to_vec()]);
    }
    for (i, db) in dbs.iter().enumerate() {
        if db.is_empty() {
            continue;
        }
        cat_command(&mut out, &[b"SELECT".to_vec(), i.to_string().into_bytes()]);
        for (key, obj) in db.dict.iter() {
            rewrite_object(&mut out, key, &obj.value);
            if let Some(when) = db.expire_of(key) {
                cat_command(&mut out, &[b"PEXPIREAT".to_vec(), key.clone(), when.to_string().into_bytes()]);
            }
        }
    }
    out
}

/// The commands that rebuild one value.
pub fn rewrite_object(out: &mut Vec<u8>, key: &[u8], v: &Value) {
    match v {
        Value::Str(s) => cat_command(out, &[b"SET".to_vec(), key.to_vec(), s.to_bytes()]),
        Value::List(l) => {
            let mut b = Batches::new(out, b"RPUSH", key, 1, l.len());
            for item in l {
                bulk(b.item(), item);
            }
        }
        Value::Set(Set::Intset(is)) => {
            let mut b = Batches::new(out, b"SADD", key, 1, is.len());
            for v in is.iter() {
                bulk(b.item(), v.to_string().as_bytes());
            }
        }
        Value::Set(Set::Table(t)) => {
            let mut b = Batches::new(out, b"SADD", key, 1, t.len());
            for m in t {
                bulk(b.item(), m);
            }
        }
        Value::Zset(z) => {
            let items: Vec<(&[u8], f64)> = match z {
                Zset::Listpack(v) => v.iter().map(|(m, s)| (m.as_slice(), *s)).collect(),
                Zset::Skiplist { dict, .. } => dict.iter().map(|(m, s)| (m.as_slice(), *s)).collect(),
            };
            let mut b = Batches::new(out, b"ZADD", key, 2, items.len());
            for (m, s) in items {
                let out = b.item();
                bulk_double(out, s);
                bulk(out, m);
            }
        }
        Value::Hash(h) => {
            let pairs: Vec<(&[u8], &[u8])> = match h {
                Hash::Listpack(v) => v.iter().map(|(f, v)| (f.as_slice(), v.as_slice())).collect(),
                Hash::Table(m) => m.iter().map(|(f, v)| (f.as_slice(), v.as_slice())).collect(),
            };
            let mut b = Batches::new(out, b"HMSET", key, 2, pairs.len());
            for (f, v) in pairs {
                let out = b.item();
                bulk(out, f);
                bulk(out, v);
            }
        }
        Value::Stream(s) => rewrite_stream(out, key, s),
    }
}

fn id(i: StreamId) -> Vec<u8> {
    i.to_string().into_bytes()
}

/// `rewriteStreamObject()`.
fn rewrite_stream(out: &mut Vec<u8>, key: &[u8], s: &Stream) {
    if s.length > 0 {
        s.range(StreamId::MIN, StreamId::MAX, false, true, |e| {
            let mut argv = vec![b"XADD".to_vec(), key.to_vec(), id(e.id)];
            for (f, v) in e.fields() {
                argv.push(f.to_bytes());
                argv.push(v.to_bytes());
            }
            cat_command(out, &argv);
            true
        });
    } else {
        // The XADD MAXLEN 0 trick: an empty stream.
        let argv: Vec<Vec<u8>> =
            [&b"XADD"[..], key, b"MAXLEN", b"0", b"0-1", b"x", b"y"].iter().map(|a| a.to_vec()).collect();
        cat_command(out, &argv);
    }
    cat_command(
        out,
        &[
            b"XSETID".to_vec(),
            key.to_vec(),
            id(s.last_id),
            b"ENTRIESADDED".to_vec(),
            s.entries_added.to_string().into_bytes(),
            b"MAXDELETEDID".to_vec(),
            id(s.max_deleted_entry_id),
        ],
    );
    for (name, g) in s.groups() {
        cat_command(
            out,
            &[
                b"XGROUP".to_vec(),
                b"CREATE".to_vec(),
                key.to_vec(),
                name.clone(),
                id(g.last_id),
                b"ENTRIESREAD".to_vec(),
                g.entries_read.to_string().into_bytes(),
            ],
        );
        for (cname, c) in &g.consumers {
            if c.pel.is_empty() {
                cat_command(
                    out,
                    &[b"XGROUP".to_vec(), b"CREATECONSUMER".to_vec(), key.to_vec(), name.clone(), cname.clone()],
                );
                continue;
            }
            for pid in &c.pel {
                let Some(n) = g.pel.get(pid) else { continue };
                cat_command(
                    out,
                    &[
                        b"XCLAIM".to_vec(),
                        key.to_vec(),
                        name.clone(),
                        cname.clone(),
                        b"0".to_vec(),
                        id(*pid),
                        b"TIME".to_vec(),
                        n.delivery_time.to_string().into_bytes(),
                        b"RETRYCOUNT".to_vec(),
                        n.delivery_count.to_string().into_bytes(),
                        b"JUSTID".to_vec(),
                        b"FORCE".to_vec(),
                    ],
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_of_64() {
        let mut out = Vec::new();
        let list: crate::object::List = (0..130).map(|i| i.to_string().into_bytes()).collect();
        rewrite_object(&mut out, b"l", &Value::List(list));
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.matches("RPUSH").count(), 3);
        assert!(text.starts_with("*66\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n$1\r\n0\r\n"));
        assert!(text.contains("*4\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n$3\r\n128\r\n$3\r\n129\r\n"));
    }
}
