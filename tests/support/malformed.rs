//! A deterministic generator of hostile console lines, shared by the native robustness test
//! and the wasm one: random bytes, unbalanced quotes, real command names with garbage,
//! boundary numbers, conflicting options, very long arguments, repeat prefixes.

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }
    pub fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const COMMANDS: &[&str] = &[
    "setbit",
    "getbit",
    "bitcount",
    "bitpos",
    "bitop",
    "bitfield",
    "bitfield_ro",
    "pfadd",
    "pfcount",
    "pfmerge",
    "pfdebug",
    "sort",
    "sort_ro",
    "ping",
    "echo",
    "select",
    "swapdb",
    "dbsize",
    "flushdb",
    "flushall",
    "time",
    "info",
    "config",
    "command",
    "del",
    "unlink",
    "exists",
    "type",
    "keys",
    "scan",
    "randomkey",
    "rename",
    "renamenx",
    "copy",
    "move",
    "touch",
    "object",
    "dump",
    "restore",
    "set",
    "get",
    "getex",
    "getdel",
    "getset",
    "setnx",
    "setex",
    "psetex",
    "mset",
    "msetnx",
    "mget",
    "incr",
    "incrby",
    "decr",
    "decrby",
    "incrbyfloat",
    "append",
    "strlen",
    "getrange",
    "substr",
    "setrange",
    "lcs",
    "expire",
    "pexpire",
    "expireat",
    "pexpireat",
    "ttl",
    "pttl",
    "expiretime",
    "pexpiretime",
    "persist",
    "clock",
    "help",
    "nosuch",
    "CONFIG",
    "Set",
    "",
    "sadd",
    "srem",
    "smove",
    "sismember",
    "smismember",
    "scard",
    "spop",
    "srandmember",
    "smembers",
    "sinter",
    "sintercard",
    "sinterstore",
    "sunion",
    "sunionstore",
    "sdiff",
    "sdiffstore",
    "sscan",
    "zadd",
    "zincrby",
    "zscore",
    "zmscore",
    "zcard",
    "zcount",
    "zlexcount",
    "zrange",
    "zrangebyscore",
    "zrevrangebyscore",
    "zrangebylex",
    "zrevrangebylex",
    "zrevrange",
    "zrank",
    "zrevrank",
    "zrem",
    "zremrangebyscore",
    "zremrangebyrank",
    "zremrangebylex",
    "zpopmin",
    "zpopmax",
    "zmpop",
    "zrandmember",
    "zunion",
    "zinter",
    "zdiff",
    "zunionstore",
    "zinterstore",
    "zdiffstore",
    "zintercard",
    "zrangestore",
    "zscan",
    "lpush",
    "rpush",
    "lpop",
    "rpop",
    "lrange",
    "lpos",
    "lmove",
    "lmpop",
    "linsert",
    "lset",
    "ltrim",
    "lrem",
    "hset",
    "hget",
    "hgetall",
    "hincrby",
    "hincrbyfloat",
    "hrandfield",
    "hscan",
    "hdel",
    "geoadd",
    "geopos",
    "geodist",
    "geohash",
    "geosearch",
    "geosearchstore",
    "georadius",
    "georadiusbymember",
];

const WORDS: &[&str] = &[
    "k",
    "key",
    "a",
    "b",
    "0",
    "1",
    "-1",
    "2",
    "15",
    "16",
    "nx",
    "xx",
    "gt",
    "lt",
    "ex",
    "px",
    "exat",
    "pxat",
    "keepttl",
    "get",
    "persist",
    "count",
    "match",
    "type",
    "idx",
    "len",
    "minmatchlen",
    "withmatchlen",
    "db",
    "replace",
    "async",
    "sync",
    "get",
    "set",
    "resetstat",
    "rewrite",
    "help",
    "encoding",
    "refcount",
    "idletime",
    "freq",
    "info",
    "docs",
    "list",
    "getkeys",
    "advance",
    "hz",
    "maxmemory",
    "maxmemory-policy",
    "notify-keyspace-events",
    "allkeys-lfu",
    "*",
    "?",
    "[a-",
    "\\",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "18446744073709551616",
    "4294967296",
    "2147483648",
    "1e400",
    "-1e-400",
    "inf",
    "-inf",
    "nan",
    "+1",
    "-0",
    "010",
    "0x10",
    "1.5",
    "  1",
    "536870912",
    "33554432",
    "99999999999",
    "0.1",
    "1e17",
    "server",
    "all",
    "filterby",
    "pattern",
    "aclcat",
    "byscore",
    "bylex",
    "rev",
    "limit",
    "withscores",
    "(1",
    "[a",
    "-",
    "+",
    "weights",
    "aggregate",
    "min",
    "max",
    "ch",
    "incr",
    "withvalues",
    "left",
    "right",
    "before",
    "after",
    "rank",
    "maxlen",
    "m",
    "km",
    "mi",
    "frommember",
    "fromlonlat",
    "byradius",
    "bybox",
    "asc",
    "desc",
    "any",
    "withcoord",
    "withdist",
    "withhash",
    "store",
    "storedist",
    "overflow",
    "wrap",
    "sat",
    "fail",
    "u8",
    "i64",
    "u63",
    "#3",
    "bit",
    "byte",
    "and",
    "not",
    "alpha",
    "by",
    "nosort",
    "w_*",
    "h_*->f",
    "#",
    "getreg",
    "decode",
    "todense",
];

fn number(r: &mut Rng) -> String {
    match r.below(6) {
        0 => (r.next() as i64).to_string(),
        1 => ((r.next() % 2000) as i64 - 1000).to_string(),
        2 => format!("{}.{}", r.below(1000), r.below(1000)),
        3 => format!("{}e{}", r.below(10), r.below(700) as i64 - 350),
        4 => (r.next() % 100_000).to_string(),
        _ => r.pick(WORDS).to_string(),
    }
}

fn random_bytes(r: &mut Rng, max: usize) -> Vec<u8> {
    let n = r.below(max + 1);
    (0..n)
        .map(|_| match r.below(8) {
            0 => b'"',
            1 => b'\'',
            2 => b'\\',
            3 => b' ',
            4 => r.below(256) as u8,
            _ => b"abcxyz019 *?[]-^\x00\x7f\xff\xc3\xa9"[r.below(21)],
        })
        .collect()
}

/// One hostile line.
pub fn line(r: &mut Rng) -> Vec<u8> {
    match r.below(10) {
        0 => random_bytes(r, 120),
        1 => {
            // unbalanced or glued quotes around a real command
            let cmd = r.pick(COMMANDS);
            format!("{cmd} \"{}{}", r.pick(WORDS), if r.below(2) == 0 { "" } else { "\"x" }).into_bytes()
        }
        2 => {
            // a very long argument
            let n = if r.below(20) == 0 { 100_000 } else { r.below(3000) };
            let mut l = format!(
                "{} k ",
                r.pick(&["set", "append", "echo", "get", "lcs", "setrange", "keys", "exists", "incrbyfloat"])
            )
            .into_bytes();
            l.extend(std::iter::repeat_n(b"xyz"[r.below(3)], n));
            l
        }
        3 => {
            // a repeat prefix
            format!("{} {} {}", r.below(5) as i64 - 1, r.pick(COMMANDS), r.pick(WORDS)).into_bytes()
        }
        _ => {
            let mut parts = vec![r.pick(COMMANDS).to_string()];
            for _ in 0..r.below(7) {
                parts.push(match r.below(4) {
                    0 => number(r),
                    1 => String::from_utf8_lossy(&random_bytes(r, 10)).into_owned().replace(['"', '\'', '\\'], "q"),
                    _ => r.pick(WORDS).to_string(),
                });
            }
            parts
                .iter()
                .map(|p| if p.contains(' ') || p.is_empty() { format!("\"{p}\"") } else { p.clone() })
                .collect::<Vec<_>>()
                .join(" ")
                .into_bytes()
        }
    }
}

/// Whether redis-cli may legitimately print nothing for a line: blank, a `:set hints`
/// preference, or INFO for sections that don't exist (an empty bulk, printed verbatim).
pub fn prints_nothing(line: &[u8]) -> bool {
    let Some(mut args) = redisplay::tokenize::split_args(line) else { return false };
    if args.len() > 1 && args[0].iter().all(|c| c.is_ascii_digit()) {
        args.remove(0);
    }
    match args.first() {
        None => true,
        Some(cmd) if cmd.eq_ignore_ascii_case(b":set") => {
            args.len() >= 2 && (args[1].eq_ignore_ascii_case(b"hints") || args[1].eq_ignore_ascii_case(b"nohints"))
        }
        Some(cmd) => cmd.eq_ignore_ascii_case(b"info"),
    }
}
