//! The live differential: the engine against a real redis-server 7.0.15, byte for byte.
//!
//! 1. Every transcript in tests/scripts runs through a fresh redis-server (its own loopback
//!    port, `--save '' --appendonly no`) via `redis-cli --no-raw`, and through the engine; the
//!    outputs must be equal (`# unordered` honoured), and the live output must still equal the
//!    recorded `.out` (so a stale recording is caught here, not by a puzzled reader later).
//! 2. A randomized differential: a seeded generator writes a few thousand command lines over the
//!    implemented commands (a small key alphabet, valid and invalid arguments, options in random
//!    order, numbers at their boundaries) and both run them in one session. Commands whose
//!    reply depends on the moment or on hash order are left out or compared loosely (KEYS/SCAN
//!    as a multiset; TTL-like replies within a few seconds, because the engine's clock is pinned
//!    while the server's runs). A second run draws mostly list and hash commands (longer lists,
//!    hashes crossing the listpack limits), a third set commands (sets crossing between intset
//!    and hashtable). DUMP/RESTORE take part: RESTORE of fixed payloads with random options in
//!    every run, DUMP of lists in the second (a hashtable's DUMP is in Redis's hash order).
//!    Another draws random ACL SETUSER rule lists, then ACL DRYRUN/GETUSER/LIST (single-command
//!    rules, which Redis lists in hash order, compared sorted). On a difference it prints the
//!    seed, the line and its context.
//!    `REDISPLAY_DIFF_SEED=N` replays one seed; `REDISPLAY_DIFF_LINES=N` changes the length;
//!    `REDISPLAY_DIFF_DUMP=FILE` writes the generated lines there.
//!
//! redis-server is required: without it this test FAILS (it never passes silently). Run the
//! README's test command, `scripts/test.sh`, which installs it (scripts/setup.sh test).

// Reads the transcripts from disk and runs processes: native only (`cargo test --target wasm32` builds every test
// target).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::native::{scripts, wall_ms};
use common::{compare, parse_script, split_like, Check, ScriptLine};
use redisplay::{EngineOptions, Session};

// ---------------------------------------------------------------------------------------------
// A throwaway redis-server
// ---------------------------------------------------------------------------------------------

#[path = "support/live_server.rs"]
mod live_server;

use live_server::{check_tools, Server};

fn run_engine(lines: &[ScriptLine], seed: u64, start_ms: i64) -> Vec<Vec<u8>> {
    let mut session = Session::new(EngineOptions { seed, start_ms });
    lines.iter().map(|l| session.run_line(&l.line).text).collect()
}

// ---------------------------------------------------------------------------------------------
// 1. The transcripts, live
// ---------------------------------------------------------------------------------------------

#[test]
fn transcripts_match_a_live_server() {
    check_tools();
    let mut failures = Vec::new();
    let mut commands = 0;
    let scripts = scripts();
    for script in &scripts {
        let name = script.file_name().unwrap().to_string_lossy().into_owned();
        let lines = parse_script(&std::fs::read(script).unwrap());
        commands += lines.len();
        let live = {
            let server = Server::start();
            server.cli(&common::cli_input(&lines))
        };
        let engine = run_engine(&lines, 0x5eed, wall_ms());
        let vs_engine = compare(&lines, &engine, &live);
        if let Err(m) = &vs_engine {
            failures.push(format!("{name}: engine ≠ live redis-server\n{m}"));
        }
        // The recording must still be what a live server prints. Where order is unspecified
        // the two streams are compared per command, cut the way the engine's output was.
        let recorded = std::fs::read(script.with_extension("out")).unwrap_or_default();
        let stale = if vs_engine.is_ok() {
            compare(&lines, &split_like(&lines, &engine, &live), &recorded).err()
        } else {
            None
        };
        let differs = match stale {
            Some(m) => Some(m.to_string()),
            None if vs_engine.is_err() && live != recorded && !lines.iter().any(|l| l.check != Check::Exact) => {
                Some("the live output differs from the recording".into())
            }
            None => None,
        };
        if let Some(why) = differs {
            failures.push(format!(
                "{name}: the recording is stale (re-run tools/record-golden.sh {})\n{why}",
                script.display()
            ));
        }
    }
    eprintln!("differential: {} transcripts, {commands} command lines against a live server", scripts.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ---------------------------------------------------------------------------------------------
// 2. The randomized differential
// ---------------------------------------------------------------------------------------------

/// splitmix64: a tiny seeded generator (no dependency, same on every platform).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
    /// An option word from `items`, in a random letter case.
    fn opt(&mut self, items: &[&str]) -> String {
        let w = self.pick(items);
        cased(self, w)
    }
}

/// Keys: few, so commands collide; some need quoting.
const KEYS: &[&str] = &["a", "b", "c", "k", "n", "f", "\"\"", "\"\\xff\\xfe\"", "\"sp ace\"", "\"nul\\x00x\""];

/// Values, in redis-cli quoting: integers at their edges, floats, non-canonical numbers, binary.
const VALUES: &[&str] = &[
    "0",
    "1",
    "-1",
    "7",
    "9999",
    "10000",
    "-10000",
    "42",
    "123456789012",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "-9223372036854775809",
    "01",
    "+1",
    "-0",
    "\" 1\"",
    "\"1 \"",
    "1.5",
    "-2.25",
    "1e3",
    "0x10",
    "inf",
    "-inf",
    "nan",
    "3.0",
    "\"\"",
    "abc",
    "hello",
    "\"hello world\"",
    "\"\\xff\\xfe\"",
    "\"a\\x00b\"",
    "\"\\n\\t\\\"\"",
    "12345678901234567890",
    "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqr",
    "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrs",
    "5.0e3",
    "0.1",
    "10.50",
    "17179869184",
    "-0.0",
    "1e308",
    "1e-310",
];

/// Integer-ish arguments (counts, offsets, increments, db indexes).
const INTS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "5",
    "10",
    "-5",
    "100",
    "15",
    "16",
    "-100",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "01",
    "+1",
    "1.5",
    "abc",
    "\"\"",
    "\" 2\"",
    "4294967296",
];

/// Relative TTLs: far apart from each other and long enough not to tick during a run.
const REL_SECONDS: &[&str] = &["100", "300", "1000"];
const REL_MS: &[&str] = &["150000", "600000"];
/// Absolute times: long past, or far future (2100), or edge values.
const ABS_SECONDS: &[&str] = &["0", "1", "1000000000", "4102444800", "4102444900", "-1"];
const ABS_MS: &[&str] = &["0", "1", "1000000000000", "4102444800000", "4102444800123", "-1"];
/// Overflow and garbage for expire arguments.
const BAD_TIMES: &[&str] = &[
    "9223372036854775807",
    "9223372036854776",
    "-9223372036854775808",
    "9223372036854775",
    "abc",
    "1.5",
    "\"\"",
    "01",
];

fn cased(rng: &mut Rng, word: &str) -> String {
    match rng.below(3) {
        0 => word.to_ascii_uppercase(),
        1 => word.to_ascii_lowercase(),
        _ => word
            .chars()
            .enumerate()
            .map(|(i, c)| if i % 2 == 0 { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() })
            .collect(),
    }
}

/// One random command line and how to compare its reply.
fn random_line(rng: &mut Rng) -> (String, Check) {
    let key = |rng: &mut Rng| rng.pick(KEYS).to_string();
    let val = |rng: &mut Rng| rng.pick(VALUES).to_string();
    let int = |rng: &mut Rng| rng.pick(INTS).to_string();
    let mut check = Check::Exact;
    let mut args: Vec<String> = match rng.below(58) {
        0..=3 => {
            let mut a = vec!["SET".into(), key(rng), val(rng)];
            let mut opts: Vec<Vec<String>> = Vec::new();
            if rng.chance(30) {
                opts.push(vec![rng.opt(&["nx", "xx"])]);
            }
            if rng.chance(25) {
                opts.push(vec![cased(rng, "get")]);
            }
            if rng.chance(40) {
                let t = match rng.below(6) {
                    0 => vec![cased(rng, "ex"), rng.pick(REL_SECONDS).into()],
                    1 => vec![cased(rng, "px"), rng.pick(REL_MS).into()],
                    2 => vec![cased(rng, "exat"), "4102444800".into()],
                    3 => vec![cased(rng, "pxat"), "4102444800123".into()],
                    4 => vec![cased(rng, "keepttl")],
                    _ => vec![rng.opt(&["ex", "px", "exat", "pxat"]), rng.pick(BAD_TIMES).into()],
                };
                opts.push(t);
            }
            if rng.chance(10) {
                // A conflicting or unknown extra option.
                opts.push(vec![rng
                    .pick(&["NX", "XX", "EX", "PX 600000", "KEEPTTL", "PERSIST", "FOO", "GET", "EX 0", "PX -1"])
                    .into()]);
            }
            for i in (1..opts.len()).rev() {
                let j = rng.below(i + 1);
                opts.swap(i, j);
            }
            for o in opts {
                a.extend(o);
            }
            a
        }
        4 | 5 => vec!["GET".into(), key(rng)],
        6 => {
            let mut a = vec!["GETEX".into(), key(rng)];
            match rng.below(7) {
                0 => {}
                1 => a.extend([cased(rng, "ex"), rng.pick(REL_SECONDS).into()]),
                2 => a.extend([cased(rng, "px"), rng.pick(REL_MS).into()]),
                3 => a.extend([cased(rng, "exat"), rng.pick(ABS_SECONDS).into()]),
                4 => a.extend([cased(rng, "pxat"), rng.pick(ABS_MS).into()]),
                5 => a.push(cased(rng, "persist")),
                _ => a.extend([
                    rng.pick(&["EX", "PX", "EXAT", "PXAT", "PERSIST", "KEEPTTL", "NX", "GET"]).into(),
                    rng.pick(BAD_TIMES).into(),
                ]),
            }
            a
        }
        7 => vec!["GETDEL".into(), key(rng)],
        8 => vec!["GETSET".into(), key(rng), val(rng)],
        9 => vec!["SETNX".into(), key(rng), val(rng)],
        10 => {
            let (cmd, times) = if rng.chance(50) { ("SETEX", REL_SECONDS) } else { ("PSETEX", REL_MS) };
            let t = if rng.chance(25) {
                rng.pick(&["0", "-1", "abc", "9223372036854775807", "1.5"])
            } else {
                rng.pick(times)
            };
            vec![cmd.into(), key(rng), t.into(), val(rng)]
        }
        11 => {
            let mut a = vec![rng.pick(&["MSET", "MSETNX"]).into()];
            for _ in 0..1 + rng.below(3) {
                a.push(key(rng));
                a.push(val(rng));
            }
            a
        }
        12 => {
            let mut a = vec!["MGET".into()];
            for _ in 0..1 + rng.below(4) {
                a.push(key(rng));
            }
            a
        }
        13 | 14 => vec![rng.pick(&["INCR", "DECR"]).into(), key(rng)],
        15 => vec![rng.pick(&["INCRBY", "DECRBY"]).into(), key(rng), int(rng)],
        16 => vec![
            "INCRBYFLOAT".into(),
            key(rng),
            rng.pick(&[
                "1.5", "-2.25", "0.1", "1e3", "inf", "-inf", "abc", "5.0e3", "3", "-1e308", "1e308", "0x10", "\" 1\"",
                "\"\"",
            ])
            .into(),
        ],
        17 => vec!["APPEND".into(), key(rng), val(rng)],
        18 => vec!["STRLEN".into(), key(rng)],
        19 => vec![rng.pick(&["GETRANGE", "SUBSTR"]).into(), key(rng), int(rng), int(rng)],
        20 => vec!["SETRANGE".into(), key(rng), rng.pick(&["0", "1", "3", "10", "-1", "abc", "100"]).into(), val(rng)],
        21 => {
            let mut a = vec!["LCS".into(), key(rng), key(rng)];
            for _ in 0..rng.below(3) {
                match rng.below(5) {
                    0 => a.push(cased(rng, "len")),
                    1 => a.push(cased(rng, "idx")),
                    2 => a.push(cased(rng, "withmatchlen")),
                    3 => a.extend([cased(rng, "minmatchlen"), int(rng)]),
                    _ => a.push("bogus".into()),
                }
            }
            a
        }
        22 | 23 => {
            let (cmd, vals): (&str, &[&str]) = match rng.below(4) {
                0 => ("EXPIRE", REL_SECONDS),
                1 => ("PEXPIRE", REL_MS),
                2 => ("EXPIREAT", ABS_SECONDS),
                _ => ("PEXPIREAT", ABS_MS),
            };
            let t = if rng.chance(15) {
                rng.pick(BAD_TIMES)
            } else if rng.chance(10) {
                rng.pick(&["0", "-1", "-100"])
            } else {
                rng.pick(vals)
            };
            let mut a = vec![cmd.to_string(), key(rng), t.into()];
            // GT/LT only with absolute times: two relative times set a few ms apart compare
            // differently on a server whose clock runs than on the engine's pinned one.
            let opts: &[&str] =
                if cmd.ends_with("AT") { &["nx", "xx", "gt", "lt", "bogus"] } else { &["nx", "xx", "bogus"] };
            for _ in 0..rng.below(3) {
                a.push(rng.opt(opts));
            }
            a
        }
        24 | 25 => {
            let cmd = rng.pick(&["TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"]);
            check = Check::IntegerWithin(if cmd.starts_with('P') { 10_000 } else { 10 });
            vec![cmd.into(), key(rng)]
        }
        26 => vec!["PERSIST".into(), key(rng)],
        27 => {
            let mut a = vec![rng.pick(&["DEL", "UNLINK", "EXISTS", "TOUCH"]).into()];
            for _ in 0..1 + rng.below(3) {
                a.push(key(rng));
            }
            a
        }
        28 => vec!["TYPE".into(), key(rng)],
        29 => {
            check = Check::Unordered;
            vec![
                "KEYS".into(),
                rng.pick(&["*", "?", "[ab]", "*a*", "k*", "\\*", "[^a]", "\"\"", "*\\xff*", "[a-c]"]).into(),
            ]
        }
        30 => {
            check = Check::Unordered;
            // One call must cover the whole keyspace, or the cursor is the server's hash order.
            let mut a = vec!["SCAN".into(), "0".into(), cased(rng, "count"), "1000".into()];
            for _ in 0..rng.below(3) {
                match rng.below(4) {
                    0 => a.extend([cased(rng, "match"), rng.pick(&["*", "?", "[ab]", "k*"]).into()]),
                    1 => a.extend([cased(rng, "count"), rng.pick(&["100", "1000"]).into()]),
                    2 => a.extend([
                        cased(rng, "type"),
                        rng.pick(&["string", "STRING", "list", "hash", "none", "zset"]).into(),
                    ]),
                    _ => a.extend([cased(rng, "count"), rng.pick(&["0", "-1", "abc"]).into()]),
                }
            }
            a
        }
        31 => vec![rng.pick(&["RENAME", "RENAMENX"]).into(), key(rng), key(rng)],
        32 => {
            let mut a = vec!["COPY".into(), key(rng), key(rng)];
            for _ in 0..rng.below(3) {
                if rng.chance(50) {
                    a.push(cased(rng, "replace"));
                } else {
                    a.extend([cased(rng, "db"), rng.pick(&["0", "1", "15", "16", "-1", "abc"]).into()]);
                }
            }
            a
        }
        33 => vec!["MOVE".into(), key(rng), rng.pick(&["0", "1", "2", "16", "-1", "abc"]).into()],
        34 => vec!["SELECT".into(), rng.pick(&["0", "0", "0", "1", "2", "15", "16", "-1", "abc", "01"]).into()],
        35 => vec![
            "SWAPDB".into(),
            rng.pick(&["0", "1", "2", "16", "abc"]).into(),
            rng.pick(&["0", "1", "2", "-1", "x"]).into(),
        ],
        36 => vec!["DBSIZE".into()],
        37 => {
            if rng.chance(80) {
                vec!["DBSIZE".into()]
            } else {
                let mut a = vec![rng.pick(&["FLUSHDB", "FLUSHALL"]).into()];
                if rng.chance(50) {
                    a.push(rng.pick(&["ASYNC", "sync", "bogus"]).into());
                }
                a
            }
        }
        38 => {
            let sub = rng.pick(&["ENCODING", "REFCOUNT", "FREQ", "encoding", "bogus", "HELP"]);
            vec!["OBJECT".into(), sub.into(), key(rng)]
        }
        39 => vec!["ECHO".into(), val(rng)],
        40 => {
            let mut a = vec!["PING".into()];
            for _ in 0..rng.below(3) {
                a.push(val(rng));
            }
            a
        }
        41 => {
            // Parameters whose effect can't make the live server diverge from the pinned
            // engine (no maxmemory: eviction; no timeout/maxclients/maxmemory-clients sizes:
            // they could drop redis-cli's own connection).
            let settable = [
                "hz",
                "dynamic-hz",
                "maxmemory-policy",
                "maxmemory-samples",
                "maxmemory-eviction-tenacity",
                "active-expire-effort",
                "lfu-log-factor",
                "lfu-decay-time",
                "lazyfree-lazy-expire",
                "lazyfree-lazy-user-del",
                "notify-keyspace-events",
                "hash-max-listpack-entries",
                "hash-max-ziplist-value",
                "zset-max-listpack-value",
                "set-max-intset-entries",
                "list-max-listpack-size",
                "list-compress-depth",
                "busy-reply-threshold",
                "lua-time-limit",
                "slave-ignore-maxmemory",
                "databases",
                "nosuch",
                "HZ",
            ];
            let values = [
                "5",
                "10",
                "0",
                "-1",
                "501",
                "abc",
                "KEA",
                "Kx",
                "AKEmn",
                "\"\"",
                "11",
                "yes",
                "no",
                "YES",
                "1k",
                "2kb",
                "1mb",
                "9223372036854775807",
                "9223372036854775808",
                "18446744073709551615",
                "allkeys-lru",
                "volatile-ttl",
                "noeviction",
                "-3",
                "2147483648",
                "1.5",
                "0%",
                "10%",
            ];
            // Patterns that match the same parameters here and in Redis 7.0.
            let patterns = [
                "H[A-Z]",
                "*-DECAY-*",
                "lfu-[a-z]*",
                "active-expire-*",
                "*-user-*",
                "notify*",
                "*samples",
                "*tenacity",
                "set-max-*",
                "busy-*",
                "lua-*",
                "hash*",
                "zset*",
                "lazyfree*",
                "*listpack*",
                "*ziplist*",
            ];
            match rng.below(5) {
                0 => vec!["CONFIG".into(), cased(rng, "get"), rng.pick(&settable).into()],
                1 => {
                    check = Check::Unordered;
                    let mut a = vec!["CONFIG".into(), "GET".into()];
                    for _ in 0..1 + rng.below(2) {
                        a.push(if rng.chance(50) { rng.pick(&patterns) } else { rng.pick(&settable) }.into());
                    }
                    a
                }
                2 | 3 => {
                    let mut a = vec!["CONFIG".into(), "SET".into()];
                    for _ in 0..1 + rng.below(2) {
                        a.push(rng.pick(&settable).into());
                        a.push(rng.pick(&values).into());
                    }
                    a
                }
                _ => vec!["CONFIG".into(), rng.pick(&["RESETSTAT", "REWRITE", "bogus"]).into()],
            }
        }
        42 => {
            let cmds = ["get", "set", "lcs", "expire", "object|encoding", "config|get", "nosuch", "SET", "mset"];
            match rng.below(3) {
                0 => vec!["COMMAND".into(), "INFO".into(), rng.pick(&cmds).into()],
                1 => vec!["COMMAND".into(), "DOCS".into(), rng.pick(&cmds).into()],
                _ => {
                    let mut a = vec![
                        "COMMAND".into(),
                        rng.pick(&["GETKEYS", "GETKEYSANDFLAGS"]).into(),
                        rng.pick(&["set", "get", "mset", "lcs", "copy", "nosuch", "ping"]).into(),
                    ];
                    for _ in 0..rng.below(4) {
                        a.push(key(rng));
                    }
                    a
                }
            }
        }
        43 => vec![rng.pick(&["NOSUCHCMD", "sett", "\"\"", "GET\\x00"]).into(), key(rng)],
        44 => vec!["STRLEN".into(), key(rng)],
        46..=50 => list_args(rng, KEYS),
        51..=55 => hash_args(rng, KEYS, &mut check),
        56 | 57 => restore_args(rng, KEYS),
        _ => vec!["GET".into(), key(rng)],
    };
    // Wrong arity now and then: drop or add an argument (but not to COMMAND INFO/DOCS/GETKEYS:
    // without a name they list every command, and the engine has fewer than Redis by design).
    if args[0] == "COMMAND" {
        // Every extra word would be looked up as a command name, and Redis has more of those.
    } else if args[0] == "HRANDFIELD" {
        // Without its count HRANDFIELD picks a random field: only deterministic forms are sent.
    } else if rng.chance(4) && args.len() > 1 {
        args.pop();
    } else if rng.chance(3) {
        args.push(val(rng));
    }
    let mut line = args.join(" ");
    if rng.chance(2) && check == Check::Exact {
        // redis-cli's repeat prefix (valid or not).
        line = format!("{} {line}", rng.pick(&["2", "3", "0", "-1", "01", "+2"]));
    }
    (line, check)
}

// Lists and hashes (t_list.c, t_hash.c). Elements and fields come from small alphabets so
// that LREM/LPOS/LINSERT find their pivots and HSET updates; a 65-byte argument now and then
// converts a hash to a hashtable. Only deterministic forms are generated: HRANDFIELD with a
// count of 0 or of at least any hash's size, or with an invalid count; HSCAN from cursor 0
// with COUNT 1000 (one call covers a small hashtable in Redis too). A hashtable's order is
// Redis's hash order, so HGETALL/HKEYS/HVALS/HSCAN and whole-hash HRANDFIELD are compared as
// multisets.

const ELEMENTS: &[&str] = &["a", "b", "c", "1", "2", "-1", "\"\"", "\"\\xff\"", "\"a b\"", "10"];
const FIELDS: &[&str] = &["f", "g", "h", "1", "2", "\"\"", "\"\\xff\"", "\"x y\"", "007"];
/// The collection-focused run keeps lists and hashes mostly on keys of their own, so that
/// most commands find the right type; the shared alphabet mixes them with each other and with
/// strings.
const LIST_KEYS: &[&str] = &["l1", "l2", "l3", "\"l\\xff\""];
const HASH_KEYS: &[&str] = &["h1", "h2", "h3", "\"h \\x00\""];
const ALL_KEYS: &[&str] = &["l1", "l2", "h1", "h2", "a", "b", "\"\\xff\\xfe\""];
const LONG65: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
/// Indexes and counts for list commands: in and out of range, C long edges, garbage.
const LIST_INTS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "-1",
    "-2",
    "-3",
    "5",
    "-5",
    "100",
    "-100",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "abc",
    "1.5",
    "\"\"",
    "01",
    "+1",
];

fn element(rng: &mut Rng) -> String {
    if rng.chance(85) {
        rng.pick(ELEMENTS).into()
    } else {
        rng.pick(VALUES).into()
    }
}

fn field(rng: &mut Rng) -> String {
    match rng.below(100) {
        0 => LONG65.into(),
        3..=9 => rng.pick(VALUES).into(),
        _ => rng.pick(FIELDS).into(),
    }
}

fn hash_value(rng: &mut Rng) -> String {
    if rng.chance(1) {
        LONG65.into()
    } else if rng.chance(60) {
        rng.pick(VALUES).into()
    } else {
        rng.pick(&["1", "2", "10", "-3", "x", "1.5"]).into()
    }
}

fn list_args(rng: &mut Rng, keys: &[&str]) -> Vec<String> {
    let key = |rng: &mut Rng| rng.pick(keys).to_string();
    let idx = |rng: &mut Rng| rng.pick(LIST_INTS).to_string();
    let side =
        |rng: &mut Rng| if rng.chance(95) { rng.opt(&["left", "right"]) } else { rng.pick(&["up", "\"\""]).into() };
    match rng.below(17) {
        0..=2 => {
            let mut a = vec![rng.pick(&["LPUSH", "RPUSH", "LPUSH", "RPUSH", "LPUSHX", "RPUSHX"]).into(), key(rng)];
            for _ in 0..1 + rng.below(4) {
                a.push(element(rng));
            }
            a
        }
        3 | 4 => {
            let mut a = vec![rng.pick(&["LPOP", "RPOP"]).into(), key(rng)];
            if rng.chance(50) {
                a.push(idx(rng));
            }
            a
        }
        5 => vec!["LLEN".into(), key(rng)],
        6 | 7 => vec!["LRANGE".into(), key(rng), idx(rng), idx(rng)],
        8 => vec!["LINDEX".into(), key(rng), idx(rng)],
        9 => vec!["LSET".into(), key(rng), idx(rng), element(rng)],
        10 => vec!["LREM".into(), key(rng), idx(rng), element(rng)],
        11 => vec![
            "LINSERT".into(),
            key(rng),
            rng.opt(&["before", "after", "before", "after", "middle"]),
            element(rng),
            element(rng),
        ],
        12 => vec!["LTRIM".into(), key(rng), idx(rng), idx(rng)],
        13 => {
            let mut a = vec!["LPOS".into(), key(rng), element(rng)];
            for _ in 0..rng.below(4) {
                let (opt, vals): (&str, &[&str]) = match rng.below(4) {
                    0 => ("rank", &["1", "2", "-1", "-2", "0", "3", "-9223372036854775808", "abc"]),
                    1 => ("count", &["0", "1", "2", "-1", "abc"]),
                    2 => ("maxlen", &["0", "1", "2", "5", "-1"]),
                    _ => ("bogus", &["1"]),
                };
                a.push(cased(rng, opt));
                if rng.chance(95) {
                    a.push(rng.pick(vals).into());
                }
            }
            a
        }
        14 => vec!["LMOVE".into(), key(rng), key(rng), side(rng), side(rng)],
        15 => vec!["RPOPLPUSH".into(), key(rng), key(rng)],
        _ => {
            let n = rng.below(4);
            let mut a =
                vec!["LMPOP".into(), if rng.chance(90) { n.to_string() } else { rng.pick(&["-1", "abc", "5"]).into() }];
            for _ in 0..n {
                a.push(key(rng));
            }
            a.push(side(rng));
            if rng.chance(50) {
                a.push(cased(rng, "count"));
                a.push(rng.pick(&["1", "2", "10", "0", "-1", "abc", "9223372036854775807"]).into());
            }
            a
        }
    }
}

fn hash_args(rng: &mut Rng, keys: &[&str], check: &mut Check) -> Vec<String> {
    let key = |rng: &mut Rng| rng.pick(keys).to_string();
    match rng.below(16) {
        0..=2 => {
            let mut a = vec![rng.pick(&["HSET", "HSET", "HMSET"]).into(), key(rng)];
            for _ in 0..1 + rng.below(3) {
                a.push(field(rng));
                a.push(hash_value(rng));
            }
            a
        }
        3 => vec!["HSETNX".into(), key(rng), field(rng), hash_value(rng)],
        4 => vec!["HGET".into(), key(rng), field(rng)],
        5 => {
            let mut a = vec!["HMGET".into(), key(rng)];
            for _ in 0..1 + rng.below(3) {
                a.push(field(rng));
            }
            a
        }
        6 => {
            let mut a = vec!["HDEL".into(), key(rng)];
            for _ in 0..1 + rng.below(3) {
                a.push(field(rng));
            }
            a
        }
        7 => vec![rng.pick(&["HLEN", "HEXISTS", "HSTRLEN"]).into(), key(rng), field(rng)]
            .into_iter()
            .take(if rng.chance(30) { 2 } else { 3 })
            .collect(),
        8 => {
            *check = Check::Unordered;
            vec![rng.pick(&["HKEYS", "HVALS", "HGETALL"]).into(), key(rng)]
        }
        9 | 10 => vec!["HINCRBY".into(), key(rng), field(rng), rng.pick(INTS).into()],
        11 | 12 => vec![
            "HINCRBYFLOAT".into(),
            key(rng),
            field(rng),
            rng.pick(&[
                "1.5", "-2.25", "0.1", "1e3", "inf", "-inf", "nan", "abc", "5.0e3", "3", "-1e308", "0x10", "\" 1\"",
                "\"\"", "10.5",
            ])
            .into(),
        ],
        13 => {
            // Never a huge negative count without WITHVALUES: Redis would build that reply until
            // the OOM killer stops it.
            let count = rng.pick(&["0", "1000", "9223372036854775807", "abc", "1.5", "-9223372036854775808", "\"\""]);
            let mut a = vec!["HRANDFIELD".into(), key(rng), count.into()];
            if rng.chance(50) {
                a.push(if rng.chance(90) { rng.opt(&["withvalues"]) } else { "withvalue".into() });
            }
            if count == "1000" || count == "9223372036854775807" {
                *check = Check::Unordered;
            }
            a
        }
        14 => {
            *check = Check::Unordered;
            let mut a = vec!["HSCAN".into(), key(rng), rng.pick(&["0", "0", "0", "abc", "-x"]).into()];
            if rng.chance(40) {
                a.extend([cased(rng, "match"), rng.pick(&["*", "f*", "?", "[fg]", "1*", "nomatch"]).into()]);
            }
            if rng.chance(10) {
                a.extend([cased(rng, "count"), rng.pick(&["0", "-1", "abc"]).into()]);
            }
            a.extend([cased(rng, "count"), "1000".into()]);
            a
        }
        _ => vec![rng.pick(&["TYPE", "OBJECT ENCODING"]).into(), key(rng)],
    }
}

/// A line of the collection-focused run: list and hash commands, with the generic commands
/// that change their keys (DEL, RENAME, COPY, SET over them) and the conversion limits.
/// DUMP payloads (tools/dump-payload.py): a string, an integer, a list, a listpack hash, an
/// intset; and broken ones.
const PAYLOADS: &[&str] = &[
    r#""\x00\x05hello\x0a\x00cr\xdfve4 \x0a""#,
    r#""\x00\xc190\x0a\x00\x9d\x94\xea'\x93\xfc\x08\xb9""#,
    r#""\x12\x01\x02\x0f\x0f\x00\x00\x00\x03\x00\x81a\x02\x81b\x02\x07\x01\xff\x0a\x00\xa4\xd5}\x13~\x93C\x9c""#,
    r#""\x10\x13\x13\x00\x00\x00\x04\x00\x81f\x02\x81v\x02\x81g\x02\x01\x01\xff\x0a\x00\x81}\x08l\xda\xc7d\xb3""#,
    r#""\x0b\x0c\x02\x00\x00\x00\x02\x00\x00\x00\x01\x00\x02\x00\x0a\x00oy8\xb14\xeb .""#,
    r#""\x00\x05hellx\x0a\x00cr\xdfve4 \x0a""#,
    "garbage",
    "\"\"",
];

/// RESTORE (cluster.c) with its options in random order, valid or not: TTLs relative (long
/// enough not to tick), absolute in the past or far future, out of range; REPLACE, ABSTTL,
/// IDLETIME, FREQ.
fn restore_args(rng: &mut Rng, keys: &[&str]) -> Vec<String> {
    // A relative TTL must not expire during the run (the engine's clock is pinned); "1" and
    // the like only as ABSTTL (long past); LLONG_MAX relative wraps into the past on both.
    let abs = rng.chance(40);
    let ttl = if abs {
        rng.pick(&["0", "1", "1000000000000", "4102444800000", "9223372036854775807", "-1"])
    } else {
        rng.pick(&["0", "0", "150000", "4102444800000", "9223372036854775807", "-1", "abc"])
    };
    let mut a = vec![cased(rng, "restore"), rng.pick(keys).into(), ttl.into(), rng.pick(PAYLOADS).into()];
    let mut opts: Vec<Vec<String>> = Vec::new();
    if rng.chance(60) {
        opts.push(vec![cased(rng, "replace")]);
    }
    if abs {
        opts.push(vec![cased(rng, "absttl")]);
    }
    if rng.chance(15) {
        opts.push(vec![cased(rng, "idletime"), rng.pick(&["0", "10", "-1", "abc", "100000"]).into()]);
    }
    if rng.chance(15) {
        opts.push(vec![cased(rng, "freq"), rng.pick(&["0", "5", "255", "256", "-1", "x"]).into()]);
    }
    if rng.chance(5) {
        opts.push(vec![rng.pick(&["FOO", "IDLETIME", "FREQ"]).into()]);
    }
    for i in (1..opts.len()).rev() {
        let j = rng.below(i + 1);
        opts.swap(i, j);
    }
    for o in opts {
        a.extend(o);
    }
    a
}

fn random_collection_line(rng: &mut Rng) -> (String, Check) {
    let mut check = Check::Exact;
    let own = rng.chance(96);
    let mut args: Vec<String> = match rng.below(21) {
        20 if rng.chance(50) => vec!["DUMP".into(), rng.pick(LIST_KEYS).into()],
        20 => {
            let keys = match (own, rng.chance(50)) {
                (true, true) => LIST_KEYS,
                (true, false) => HASH_KEYS,
                _ => ALL_KEYS,
            };
            restore_args(rng, keys)
        }
        0..=7 => list_args(rng, if own { LIST_KEYS } else { ALL_KEYS }),
        8..=15 => hash_args(rng, if own { HASH_KEYS } else { ALL_KEYS }, &mut check),
        16 => vec![rng.pick(&["DEL", "DEL", "EXISTS", "TYPE"]).into(), rng.pick(ALL_KEYS).into()],
        17 => {
            let keys = if own {
                if rng.chance(50) {
                    LIST_KEYS
                } else {
                    HASH_KEYS
                }
            } else {
                ALL_KEYS
            };
            vec![rng.pick(&["RENAME", "COPY", "RPOPLPUSH"]).into(), rng.pick(keys).into(), rng.pick(keys).into()]
        }
        18 => vec!["SET".into(), rng.pick(KEYS).into(), rng.pick(VALUES).into()],
        _ if rng.chance(60) => vec!["OBJECT".into(), "ENCODING".into(), rng.pick(HASH_KEYS).into()],
        _ => vec![
            "CONFIG".into(),
            "SET".into(),
            rng.pick(&["hash-max-listpack-entries", "hash-max-listpack-value", "hash-max-ziplist-entries"]).into(),
            rng.pick(&["0", "1", "2", "3", "8", "64", "512", "512", "-1", "abc"]).into(),
        ],
    };
    if args[0] != "HRANDFIELD" && rng.chance(3) {
        if rng.chance(50) && args.len() > 1 {
            args.pop();
        } else {
            args.push(element(rng));
        }
    }
    (args.join(" "), check)
}

/// A generator of random lines (`random_line`, `random_collection_line`).
type LineGen = fn(&mut Rng) -> (String, Check);

fn random_script(seed: u64, n: usize, gen: LineGen) -> Vec<ScriptLine> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|i| {
            let (line, check) = gen(&mut rng);
            ScriptLine { lineno: i + 1, line: line.into_bytes(), check }
        })
        .collect()
}

fn run_random(seed: u64, n: usize, gen: LineGen, what: &str) -> Result<(), String> {
    run_lines(seed, random_script(seed, n, gen), what)
}

/// Runs generated lines through a fresh redis-server and the engine; the first difference.
fn run_lines(seed: u64, lines: Vec<ScriptLine>, what: &str) -> Result<(), String> {
    let n = lines.len();
    if let Ok(path) = std::env::var("REDISPLAY_DIFF_DUMP") {
        // For debugging: the generated lines, ready for redis-cli or the redisplay CLI.
        std::fs::write(&path, common::cli_input(&lines)).expect("REDISPLAY_DIFF_DUMP is writable");
    }
    let server = Server::start();
    let start = wall_ms();
    let live = server.cli(&common::cli_input(&lines));
    let engine = run_engine(&lines, seed, start);
    compare(&lines, &engine, &live).map_err(|m| {
        let from = m.lineno.saturating_sub(12);
        let context: Vec<String> = lines[from..m.lineno.saturating_sub(1)]
            .iter()
            .map(|l| format!("  {:>5}  {}", l.lineno, String::from_utf8_lossy(&l.line)))
            .collect();
        format!(
            "random differential ({what}), seed {seed} ({n} lines; replay with REDISPLAY_DIFF_SEED={seed}):\ncontext:\n{}\n{m}",
            context.join("\n")
        )
    })
}

#[test]
fn random_commands_match_a_live_server() {
    check_tools();
    let n: usize = std::env::var("REDISPLAY_DIFF_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000);
    let seeds: Vec<u64> = match std::env::var("REDISPLAY_DIFF_SEED").ok().and_then(|v| v.parse().ok()) {
        Some(s) => vec![s],
        None => vec![1, 2, 3, 4, 5],
    };
    let mut failures = Vec::new();
    for &seed in &seeds {
        if let Err(e) = run_random(seed, n, random_line, "all commands") {
            failures.push(e);
        }
    }
    eprintln!("random differential: {} seeds × {n} lines", seeds.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The same, focused on lists and hashes (`random_collection_line`): longer lists, hashes that
/// cross the listpack limits, the limits themselves changed by CONFIG SET.
#[test]
fn random_list_and_hash_commands_match_a_live_server() {
    check_tools();
    let n: usize = std::env::var("REDISPLAY_DIFF_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(4000);
    let seeds: Vec<u64> = match std::env::var("REDISPLAY_DIFF_SEED").ok().and_then(|v| v.parse().ok()) {
        Some(s) => vec![s],
        None => vec![101, 102, 103, 104],
    };
    let mut failures = Vec::new();
    for &seed in &seeds {
        if let Err(e) = run_random(seed, n, random_collection_line, "lists and hashes") {
            failures.push(e);
        }
    }
    eprintln!("random differential, lists and hashes: {} seeds × {n} lines", seeds.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// Sets (t_set.c). Members come from a small alphabet of canonical integers (of every intset
// width), non-canonical ones and strings, so sets cross between intset and hashtable, and the
// limit itself moves with CONFIG SET. Only deterministic forms are generated: SPOP and
// SRANDMEMBER with a count of 0, of at least any set's size, or invalid (never a valid negative
// SRANDMEMBER count: that is random, and a huge one makes Redis build the reply until it dies).
// A hashtable's order is Redis's hash order, so whole-set replies are compared as multisets.

const MEMBERS: &[&str] = &[
    "1",
    "2",
    "3",
    "-1",
    "0",
    "40000",
    "-40000",
    "5000000000",
    "9223372036854775807",
    "a",
    "b",
    "c",
    "\"\"",
    "\"\\xff\"",
    "01",
    "+1",
    "-0",
    "\"1 \"",
    "1.5",
    "\"x y\"",
];
const SET_KEYS: &[&str] = &["s", "t", "u", "s", "t", "u", "\"\\xff\"", "str"];

fn set_args(rng: &mut Rng, check: &mut Check) -> Vec<String> {
    let key = |rng: &mut Rng| rng.pick(SET_KEYS).to_string();
    let member = |rng: &mut Rng| if rng.chance(60) { rng.pick(&MEMBERS[..9]) } else { rng.pick(MEMBERS) }.to_string();
    let keys = |rng: &mut Rng, a: &mut Vec<String>| {
        for _ in 0..1 + rng.below(3) {
            a.push(rng.pick(SET_KEYS).to_string());
        }
    };
    match rng.below(20) {
        0..=4 => {
            let mut a = vec!["SADD".into(), key(rng)];
            for _ in 0..1 + rng.below(4) {
                a.push(member(rng));
            }
            a
        }
        5 | 6 => {
            let mut a = vec!["SREM".into(), key(rng)];
            for _ in 0..1 + rng.below(3) {
                a.push(member(rng));
            }
            a
        }
        7 => vec!["SISMEMBER".into(), key(rng), member(rng)],
        8 => {
            let mut a = vec!["SMISMEMBER".into(), key(rng)];
            for _ in 0..1 + rng.below(3) {
                a.push(member(rng));
            }
            a
        }
        9 => vec![rng.pick(&["SCARD", "TYPE", "OBJECT ENCODING"]).into(), key(rng)],
        10 => {
            *check = Check::Unordered;
            vec!["SMEMBERS".into(), key(rng)]
        }
        11 | 12 => {
            *check = Check::Unordered;
            let mut a = vec![rng.pick(&["SINTER", "SUNION", "SDIFF"]).into()];
            keys(rng, &mut a);
            a
        }
        13 => {
            let mut a = vec![rng.pick(&["SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"]).into(), key(rng)];
            keys(rng, &mut a);
            a
        }
        14 => {
            let n = 1 + rng.below(3);
            let numkeys = if rng.chance(90) { n.to_string() } else { rng.pick(&["0", "-1", "abc", "4"]).into() };
            let mut a = vec!["SINTERCARD".into(), numkeys];
            for _ in 0..n {
                a.push(key(rng));
            }
            if rng.chance(50) {
                a.extend([cased(rng, "limit"), rng.pick(&["0", "1", "2", "-1", "abc"]).into()]);
            }
            a
        }
        15 => vec!["SMOVE".into(), key(rng), key(rng), member(rng)],
        16 => {
            let cmd = rng.pick(&["SPOP", "SRANDMEMBER"]);
            // -1 is an error for SPOP only: SRANDMEMBER would pick at random.
            let counts: &[&str] = &["0", "1000", "9223372036854775807", "abc", "1.5", "-9223372036854775808", "-1"];
            let count = rng.pick(if cmd == "SPOP" { counts } else { &counts[..6] });
            if count == "1000" || count == "9223372036854775807" {
                *check = Check::Unordered;
            }
            vec![cmd.into(), key(rng), count.into()]
        }
        17 => {
            *check = Check::Unordered;
            let mut a = vec!["SSCAN".into(), key(rng), rng.pick(&["0", "0", "0", "abc", "-x"]).into()];
            if rng.chance(40) {
                a.extend([cased(rng, "match"), rng.pick(&["*", "1*", "?", "[ab]", "*0*", "nomatch"]).into()]);
            }
            if rng.chance(10) {
                a.extend([cased(rng, "count"), rng.pick(&["0", "-1", "abc"]).into()]);
            }
            a.extend([cased(rng, "count"), "1000".into()]);
            a
        }
        18 => match rng.below(4) {
            0 => vec!["SET".into(), "str".into(), "v".into()],
            1 => vec!["DEL".into(), key(rng)],
            2 => vec![rng.pick(&["RENAME", "COPY"]).into(), key(rng), key(rng)],
            _ => vec!["EXPIRE".into(), key(rng), "1000".into()],
        },
        _ => vec![
            "CONFIG".into(),
            "SET".into(),
            "set-max-intset-entries".into(),
            rng.pick(&["0", "1", "2", "3", "5", "512", "-1", "abc"]).into(),
        ],
    }
}

/// A line of the set-focused run (`set_args`), now and then with an argument dropped or added
/// (never to SPOP/SRANDMEMBER: without its count each picks at random).
fn random_set_line(rng: &mut Rng) -> (String, Check) {
    let mut check = Check::Exact;
    let mut args = set_args(rng, &mut check);
    if args[0] != "SPOP" && args[0] != "SRANDMEMBER" && rng.chance(3) {
        if rng.chance(50) && args.len() > 1 {
            args.pop();
        } else {
            args.push(rng.pick(MEMBERS).into());
        }
    }
    (args.join(" "), check)
}

#[test]
fn random_set_commands_match_a_live_server() {
    check_tools();
    let n: usize = std::env::var("REDISPLAY_DIFF_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(2500);
    let seeds: Vec<u64> = match std::env::var("REDISPLAY_DIFF_SEED").ok().and_then(|v| v.parse().ok()) {
        Some(s) => vec![s],
        None => vec![201, 202, 203],
    };
    let mut failures = Vec::new();
    for &seed in &seeds {
        if let Err(e) = run_random(seed, n, random_set_line, "sets") {
            failures.push(e);
        }
    }
    eprintln!("random differential, sets: {} seeds × {n} lines", seeds.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// Sorted sets (t_zset.c). Scores come from an alphabet of boundaries (inf, -0, 1e17, 0.1, hex,
// exclusive bounds, junk) and members from a small one (with a 65-byte member), so sets cross
// between listpack and skiplist — also when CONFIG SET moves the limits. Only deterministic
// forms are generated: ZRANDMEMBER with a count of 0 or at least any set's size, ZSCAN with a
// COUNT that covers the whole set (a skiplist's order is Redis's hash order: multiset compare).
// Lexicographic commands on a skiplist whose scores differ depend on the random levels Redis
// drew (its descent compares members as if scores were equal), so they get their own keys,
// which only ever hold score 0.

const Z_KEYS: &[&str] = &["z1", "z2", "z3", "z1", "z2", "\"z\\xff\"", "zs", "str"];
const Z_LEX_KEYS: &[&str] = &["zl1", "zl2", "zl1", "zl2", "zl3"];
const Z_MEMBERS: &[&str] = &["a", "b", "c", "d", "e", "1", "10", "\"\"", "\"\\xff\"", "\"m n\"", LONG65];
const Z_SCORES: &[&str] = &[
    "1",
    "2",
    "3",
    "-1",
    "0",
    "-0",
    "1.5",
    "0.1",
    "2.5e3",
    "1e17",
    "inf",
    "-inf",
    "+inf",
    "0x10",
    "abc",
    "nan",
    "\"\"",
    "9007199254740993",
];
const Z_BOUNDS: &[&str] =
    &["-inf", "+inf", "0", "1", "(1", "2", "(2.5", "3", "10", "(inf", "abc", "\"\"", "\" 1\"", "(", "1e400"];
const Z_LEX: &[&str] = &["-", "+", "[a", "(a", "[c", "(c", "[e", "[", "a", "+x", "[\\xff"];
const Z_RANKS: &[&str] =
    &["0", "1", "2", "-1", "-2", "-100", "100", "9223372036854775807", "-9223372036854775808", "x"];

fn zset_args(rng: &mut Rng) -> Vec<String> {
    let key = |rng: &mut Rng| rng.pick(Z_KEYS).to_string();
    let lex_key = |rng: &mut Rng| rng.pick(Z_LEX_KEYS).to_string();
    let member = |rng: &mut Rng| rng.pick(Z_MEMBERS).to_string();
    let score = |rng: &mut Rng| rng.pick(Z_SCORES).to_string();
    let bound = |rng: &mut Rng| rng.pick(Z_BOUNDS).to_string();
    let lex = |rng: &mut Rng| rng.pick(Z_LEX).to_string();
    let rank = |rng: &mut Rng| rng.pick(Z_RANKS).to_string();
    let mut a: Vec<String> = Vec::new();
    match rng.below(28) {
        26 | 27 => {
            // Equal scores: the lexicographic keys.
            a.extend([rng.opt(&["ZADD"]), lex_key(rng)]);
            if rng.chance(30) {
                a.push(rng.opt(&["NX", "XX", "CH"]));
            }
            for _ in 0..1 + rng.below(4) {
                a.push("0".into());
                a.push(member(rng));
            }
        }
        0..=4 => {
            a.push(rng.opt(&["ZADD"]));
            a.push(key(rng));
            for _ in 0..rng.below(3) {
                a.push(rng.opt(&["NX", "XX", "GT", "LT", "CH", "INCR"]));
            }
            for _ in 0..1 + rng.below(4) {
                a.push(score(rng));
                a.push(member(rng));
            }
        }
        5 => a.extend([rng.opt(&["ZINCRBY"]), key(rng), score(rng), member(rng)]),
        6 => a.extend([rng.opt(&["ZSCORE", "ZRANK", "ZREVRANK"]), key(rng), member(rng)]),
        7 => {
            a.extend([rng.opt(&["ZMSCORE"]), key(rng)]);
            for _ in 0..1 + rng.below(3) {
                a.push(member(rng));
            }
        }
        8 => a.extend([rng.opt(&["ZCARD"]), key(rng)]),
        9 => a.extend([rng.opt(&["ZCOUNT"]), key(rng), bound(rng), bound(rng)]),
        10 => a.extend([rng.opt(&["ZLEXCOUNT"]), lex_key(rng), lex(rng), lex(rng)]),
        11..=13 => {
            let kind = rng.below(3);
            let (lo, hi) = match kind {
                0 => (rank(rng), rank(rng)),
                1 => (bound(rng), bound(rng)),
                _ => (lex(rng), lex(rng)),
            };
            let store = rng.chance(15);
            if store {
                a.extend([rng.opt(&["ZRANGESTORE"]), key(rng)]);
            } else {
                a.push(rng.opt(&["ZRANGE"]));
            }
            // BYLEX only where scores are equal.
            let src = if kind == 2 { lex_key(rng) } else { key(rng) };
            a.extend([src, lo, hi]);
            for _ in 0..rng.below(4) {
                match rng.below(5) {
                    0 => a.push(if kind == 2 { rng.opt(&["BYSCORE", "BYLEX"]) } else { rng.opt(&["BYSCORE"]) }),
                    1 => a.push(rng.opt(&["REV"])),
                    2 => a.push(rng.opt(&["WITHSCORES"])),
                    _ => a.extend([
                        rng.opt(&["LIMIT"]),
                        rng.pick(&["0", "1", "2", "-1", "x"]).into(),
                        rng.pick(&["1", "2", "-1", "0", "100"]).into(),
                    ]),
                }
            }
        }
        14 => {
            let cmd = rng.opt(&["ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZREVRANGE"]);
            let lexy = cmd.to_ascii_uppercase().contains("LEX");
            let rankish = cmd.eq_ignore_ascii_case("ZREVRANGE");
            let (lo, hi) = if lexy {
                (lex(rng), lex(rng))
            } else if rankish {
                (rank(rng), rank(rng))
            } else {
                (bound(rng), bound(rng))
            };
            let k = if lexy { lex_key(rng) } else { key(rng) };
            a.extend([cmd, k, lo, hi]);
            if rng.chance(40) {
                a.push(rng.opt(&["WITHSCORES"]));
            }
            if rng.chance(40) {
                a.extend([rng.opt(&["LIMIT"]), rng.pick(&["0", "1", "-1"]).into(), rng.pick(&["1", "2", "-1"]).into()]);
            }
        }
        15 | 16 => {
            a.extend([rng.opt(&["ZREM"]), key(rng)]);
            for _ in 0..1 + rng.below(3) {
                a.push(member(rng));
            }
        }
        17 => {
            let which = rng.below(3);
            let cmd = ["ZREMRANGEBYSCORE", "ZREMRANGEBYRANK", "ZREMRANGEBYLEX"][which];
            let (lo, hi) = match which {
                0 => (bound(rng), bound(rng)),
                1 => (rank(rng), rank(rng)),
                _ => (lex(rng), lex(rng)),
            };
            let k = if which == 2 { lex_key(rng) } else { key(rng) };
            a.extend([cased(rng, cmd), k, lo, hi]);
        }
        18 => {
            a.extend([rng.opt(&["ZPOPMIN", "ZPOPMAX"]), key(rng)]);
            if rng.chance(60) {
                a.push(rng.pick(&["0", "1", "2", "10", "-1", "x"]).into());
            }
        }
        19 => {
            let n = 1 + rng.below(3);
            a.extend([rng.opt(&["ZMPOP"]), n.to_string()]);
            for _ in 0..n {
                a.push(key(rng));
            }
            a.push(rng.opt(&["MIN", "MAX"]));
            if rng.chance(50) {
                a.extend([rng.opt(&["COUNT"]), rng.pick(&["1", "2", "10", "0", "-1"]).into()]);
            }
        }
        20 => {
            a.extend([rng.opt(&["ZRANDMEMBER"]), key(rng), rng.pick(&["0", "100", "1000"]).into()]);
            if rng.chance(50) {
                a.push(rng.opt(&["WITHSCORES"]));
            }
        }
        21 | 22 => {
            let (cmd, dst) = match rng.below(7) {
                0 => ("ZUNION", false),
                1 => ("ZINTER", false),
                2 => ("ZDIFF", false),
                3 => ("ZUNIONSTORE", true),
                4 => ("ZINTERSTORE", true),
                5 => ("ZDIFFSTORE", true),
                _ => ("ZINTERCARD", false),
            };
            a.push(cased(rng, cmd));
            if dst {
                a.push(key(rng));
            }
            let n = 1 + rng.below(3);
            a.push(n.to_string());
            for _ in 0..n {
                a.push(key(rng));
            }
            if rng.chance(40) && !cmd.contains("DIFF") && cmd != "ZINTERCARD" {
                a.push(rng.opt(&["WEIGHTS"]));
                for _ in 0..n {
                    a.push(rng.pick(&["1", "2", "0", "-1", "0.5", "inf"]).into());
                }
            }
            if rng.chance(30) && !cmd.contains("DIFF") && cmd != "ZINTERCARD" {
                a.extend([rng.opt(&["AGGREGATE"]), rng.opt(&["SUM", "MIN", "MAX"])]);
            }
            if rng.chance(30) && !dst && cmd != "ZINTERCARD" {
                a.push(rng.opt(&["WITHSCORES"]));
            }
            if cmd == "ZINTERCARD" && rng.chance(50) {
                a.extend([rng.opt(&["LIMIT"]), rng.pick(&["0", "1", "2", "-1"]).into()]);
            }
        }
        23 => a.extend([rng.opt(&["ZSCAN"]), key(rng), "0".into(), "COUNT".into(), "1000".into()]),
        24 => a.extend(["OBJECT".into(), "ENCODING".into(), key(rng)]),
        _ => {
            if rng.chance(50) {
                a.extend(["SET".into(), "str".into(), "x".into()]);
            } else {
                a.extend([
                    "CONFIG".into(),
                    "SET".into(),
                    rng.pick(&["zset-max-listpack-entries", "zset-max-listpack-value", "zset-max-ziplist-entries"])
                        .into(),
                    rng.pick(&["0", "1", "2", "3", "128", "128", "64", "4"]).into(),
                ]);
            }
        }
    }
    a
}

/// A line of the sorted-set run (`zset_args`), now and then with an argument dropped or added.
fn random_zset_line(rng: &mut Rng) -> (String, Check) {
    let mut args = zset_args(rng);
    let cmd = args[0].to_ascii_uppercase();
    let mut check = Check::Exact;
    if cmd == "ZSCAN" {
        check = Check::Unordered;
    }
    if cmd != "ZRANDMEMBER" && cmd != "ZSCAN" && rng.chance(3) {
        if rng.chance(50) && args.len() > 1 {
            args.pop();
        } else {
            args.push(rng.pick(Z_MEMBERS).into());
        }
    }
    (args.join(" "), check)
}

#[test]
fn random_sorted_set_commands_match_a_live_server() {
    check_tools();
    let n: usize = std::env::var("REDISPLAY_DIFF_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(4000);
    let seeds: Vec<u64> = match std::env::var("REDISPLAY_DIFF_SEED").ok().and_then(|v| v.parse().ok()) {
        Some(s) => vec![s],
        None => vec![301, 302, 303, 304],
    };
    let mut failures = Vec::new();
    for &seed in &seeds {
        if let Err(e) = run_random(seed, n, random_zset_line, "sorted sets") {
            failures.push(e);
        }
    }
    eprintln!("random differential, sorted sets: {} seeds × {n} lines", seeds.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ---------------------------------------------------------------------------------------------
// 3. COMMAND LIST: Redis's list restricted to the commands we implement
// ---------------------------------------------------------------------------------------------

/// The quoted names of a flat redis-cli array (`1) "get"`).
fn listed_names(out: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(out);
    let mut v: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim_start().split_once(") \"").map(|(_, rest)| rest.trim_end_matches('"').to_string()))
        .collect();
    v.sort();
    v
}

#[test]
fn command_list_is_redis_list_restricted_to_ours() {
    check_tools();
    let server = Server::start();
    let mut session = Session::new(EngineOptions { seed: 1, start_ms: wall_ms() });
    let ours = listed_names(&session.run_line(b"COMMAND LIST").text);
    let playground_only = |n: &String| n == "clock" || n.starts_with("clock|");
    for filter in [
        "",
        " FILTERBY ACLCAT string",
        " FILTERBY ACLCAT keyspace",
        " FILTERBY ACLCAT fast",
        " FILTERBY PATTERN *set*",
        " FILTERBY PATTERN config|*",
        " FILTERBY MODULE nosuch",
    ] {
        let line = format!("COMMAND LIST{filter}");
        let real = listed_names(&server.cli(format!("{line}\n").as_bytes()));
        let want: Vec<String> = real.into_iter().filter(|n| ours.contains(n)).collect();
        let got: Vec<String> =
            listed_names(&session.run_line(line.as_bytes()).text).into_iter().filter(|n| !playground_only(n)).collect();
        assert_eq!(got, want, "{line}");
    }
    // Everything we list, Redis lists too (except the playground's own CLOCK).
    let real_all = listed_names(&server.cli(b"COMMAND LIST\n"));
    for n in ours.iter().filter(|n| !playground_only(n)) {
        assert!(real_all.contains(n), "we list {n}, Redis 7.0 doesn't");
    }
}

// ---------------------------------------------------------------------------------------------
// 4. GEO (geo.c): random places and searches
// ---------------------------------------------------------------------------------------------
// Places are random (some on the ±85.05112878 latitude limit, the antimeridian or the equator,
// some stacked on one spot so that distances tie), searches use random centres, radii from
// centimetres to beyond the Earth's size, boxes, every unit and option, and the *STORE results
// are read back. Without ASC/DESC the reply order is Redis's cell walk, so every reply is
// compared byte for byte.

const GEO_KEYS: &[&str] = &["g1", "g2", "g1", "g2", "gx", "gs"];
const GEO_MEMBERS: &[&str] =
    &["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10", "m11", "\"\"", "\"\\xff\"", "\"a b\""];
const GEO_UNITS: &[&str] = &["m", "km", "ft", "mi", "KM", "Mi"];

fn geo_unit(rng: &mut Rng) -> String {
    if rng.chance(3) {
        "parsec".into()
    } else {
        rng.pick(GEO_UNITS).into()
    }
}

/// A decimal in [lo, hi] with up to 6 decimals (or, now and then, a limit or junk).
fn geo_number(rng: &mut Rng, lo: f64, hi: f64, edges: &[&str]) -> String {
    if rng.chance(5) {
        return rng.pick(edges).into();
    }
    let t = (rng.next() % 1_000_001) as f64 / 1_000_000.0;
    format!("{:.*}", rng.below(7), lo + (hi - lo) * t)
}

fn geo_lonlat(rng: &mut Rng, a: &mut Vec<String>) {
    const LON_EDGES: &[&str] = &["180", "-180", "179.99999", "-179.99999", "0", "-0", "180.000001", "abc", "1e3"];
    const LAT_EDGES: &[&str] = &["85.05112878", "-85.05112878", "85.05112879", "0", "66.5", "-80.5", "90", "nan"];
    // Mostly around Sicily, so that searches find something.
    if rng.chance(60) {
        a.push(geo_number(rng, 12.0, 16.0, LON_EDGES));
        a.push(geo_number(rng, 36.0, 39.0, LAT_EDGES));
    } else {
        a.push(geo_number(rng, -180.0, 180.0, LON_EDGES));
        a.push(geo_number(rng, -85.05, 85.05, LAT_EDGES));
    }
}

fn geo_distance(rng: &mut Rng) -> String {
    const RADII: &[&str] = &["0", "-1", "abc", "inf", "1e-300", "0.01", "20000000", "1e5"];
    if rng.chance(8) {
        return rng.pick(RADII).into();
    }
    let mag = 10f64.powi(rng.below(8) as i32);
    format!("{:.3}", mag * (1 + rng.below(999)) as f64 / 100.0)
}

fn geo_args(rng: &mut Rng) -> Vec<String> {
    let key = |rng: &mut Rng| rng.pick(GEO_KEYS).to_string();
    let member = |rng: &mut Rng| rng.pick(GEO_MEMBERS).to_string();
    let mut a: Vec<String> = Vec::new();
    match rng.below(20) {
        0..=5 => {
            a.extend([rng.opt(&["GEOADD"]), key(rng)]);
            for _ in 0..rng.below(3) {
                a.push(rng.opt(&["NX", "XX", "CH", "GT"]));
            }
            let stacked = rng.chance(25);
            let mut spot = Vec::new();
            geo_lonlat(rng, &mut spot);
            for _ in 0..1 + rng.below(5) {
                if stacked {
                    a.extend(spot.iter().cloned());
                } else {
                    geo_lonlat(rng, &mut a);
                }
                a.push(member(rng));
            }
        }
        6..=12 => {
            let cmd = rng.pick(&[
                "GEOSEARCH",
                "GEOSEARCH",
                "GEOSEARCHSTORE",
                "GEORADIUS",
                "GEORADIUSBYMEMBER",
                "GEORADIUS_RO",
                "GEORADIUSBYMEMBER_RO",
            ]);
            let search = cmd.starts_with("GEOSEARCH");
            let store = cmd == "GEOSEARCHSTORE";
            a.push(cased(rng, cmd));
            if store {
                a.push("gd".into());
            }
            a.push(key(rng));
            let mut parts: Vec<Vec<String>> = Vec::new();
            if search {
                let mut from = Vec::new();
                if rng.chance(35) {
                    from.extend([rng.opt(&["FROMMEMBER"]), member(rng)]);
                } else {
                    from.push(rng.opt(&["FROMLONLAT"]));
                    geo_lonlat(rng, &mut from);
                }
                let mut by = Vec::new();
                if rng.chance(50) {
                    by.extend([rng.opt(&["BYRADIUS"]), geo_distance(rng)]);
                } else {
                    by.extend([rng.opt(&["BYBOX"]), geo_distance(rng), geo_distance(rng)]);
                }
                by.push(geo_unit(rng));
                if rng.chance(97) {
                    parts.push(from);
                }
                if rng.chance(97) {
                    parts.push(by);
                }
            } else {
                if cmd.contains("MEMBER") {
                    a.push(member(rng));
                } else {
                    geo_lonlat(rng, &mut a);
                }
                a.extend([geo_distance(rng), geo_unit(rng)]);
            }
            if rng.chance(40) {
                parts.push(vec![rng.opt(&["ASC", "DESC"])]);
            }
            if rng.chance(40) {
                let mut count =
                    vec![rng.opt(&["COUNT"]), rng.pick(&["1", "2", "3", "5", "8", "50", "0", "-1", "x"]).into()];
                if rng.chance(30) {
                    count.push(rng.opt(&["ANY"]));
                }
                parts.push(count);
            }
            let storing = store || (!search && !cmd.ends_with("_RO") && rng.chance(30));
            if !storing || rng.chance(3) {
                for w in ["WITHDIST", "WITHHASH", "WITHCOORD"] {
                    if rng.chance(40) {
                        parts.push(vec![cased(rng, w)]);
                    }
                }
            }
            if storing && !store {
                parts.push(vec![rng.opt(&["STORE", "STOREDIST"]), "gd".into()]);
            }
            if store && rng.chance(50) {
                parts.push(vec![rng.opt(&["STOREDIST"])]);
            }
            if rng.chance(3) {
                parts.push(vec![rng.pick(&["ANY", "STORE", "BOGUS", "FROMMEMBER", "BYBOX"]).into()]);
            }
            for i in (1..parts.len()).rev() {
                let j = rng.below(i + 1);
                parts.swap(i, j);
            }
            for p in parts {
                a.extend(p);
            }
        }
        13 => a.extend(["ZRANGE".into(), "gd".into(), "0".into(), "-1".into(), "WITHSCORES".into()]),
        14 | 15 => {
            a.extend([rng.opt(&["GEOPOS", "GEOHASH"]), key(rng)]);
            for _ in 0..rng.below(4) {
                a.push(member(rng));
            }
        }
        16 => {
            a.extend([rng.opt(&["GEODIST"]), key(rng), member(rng), member(rng)]);
            if rng.chance(70) {
                a.push(geo_unit(rng));
            }
        }
        17 => a.extend([rng.opt(&["ZREM"]), key(rng), member(rng)]),
        18 => a.extend([
            "ZADD".into(),
            key(rng),
            rng.pick(&["-1", "0", "1.5", "4503599627370495", "4503599627370496", "inf", "1e300"]).into(),
            member(rng),
        ]),
        _ => match rng.below(3) {
            0 => a.extend(["SET".into(), "gs".into(), "x".into()]),
            1 => a.extend([
                "CONFIG".into(),
                "SET".into(),
                "zset-max-listpack-entries".into(),
                rng.pick(&["0", "2", "128"]).into(),
            ]),
            _ => a.extend(["OBJECT".into(), "ENCODING".into(), key(rng)]),
        },
    }
    a
}

/// A line of the GEO run (`geo_args`), now and then with an argument dropped or added.
fn random_geo_line(rng: &mut Rng) -> (String, Check) {
    let mut args = geo_args(rng);
    if rng.chance(3) {
        if rng.chance(50) && args.len() > 1 {
            args.pop();
        } else {
            args.push(rng.pick(GEO_MEMBERS).into());
        }
    }
    (args.join(" "), Check::Exact)
}

#[test]
fn random_geo_commands_match_a_live_server() {
    check_tools();
    let n: usize = std::env::var("REDISPLAY_DIFF_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000);
    let seeds: Vec<u64> = match std::env::var("REDISPLAY_DIFF_SEED").ok().and_then(|v| v.parse().ok()) {
        Some(s) => vec![s],
        None => vec![401, 402, 403],
    };
    let mut failures = Vec::new();
    for &seed in &seeds {
        if let Err(e) = run_random(seed, n, random_geo_line, "geo") {
            failures.push(e);
        }
    }
    eprintln!("random differential, geo: {} seeds × {n} lines", seeds.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ---------------------------------------------------------------------------------------------
// 5. Bitmaps (bitops.c): SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD, BITFIELD_RO
// ---------------------------------------------------------------------------------------------
// A few keys holding short strings (some integer-encoded, some embstr, some grown raw),
// offsets within a few hundred bytes, ranges at the edges in bytes and bits, every BITFIELD
// width and overflow policy, and the string commands that change the same keys — with
// MEMORY USAGE now and then, so the sds growth model is compared too.

const BIT_KEYS: &[&str] = &["b1", "b2", "b3", "b1", "b2", "bn", "\"b\\xff\"", "bl"];
const BIT_OFFSETS: &[&str] = &[
    "0",
    "1",
    "7",
    "8",
    "9",
    "15",
    "16",
    "63",
    "64",
    "100",
    "255",
    "256",
    "1000",
    "2047",
    "4000",
    "-1",
    "abc",
    "#1",
    "4294967296",
    "\"\"",
];
const BIT_RANGE: &[&str] = &[
    "0",
    "1",
    "2",
    "-1",
    "-2",
    "-3",
    "5",
    "7",
    "8",
    "15",
    "100",
    "-100",
    "9223372036854775807",
    "x",
    "-9223372036854775808",
];

fn bitfield_type(rng: &mut Rng) -> String {
    match rng.below(20) {
        0 => rng.pick(&["u64", "i65", "u0", "U8", "x8", "\"\""]).into(),
        _ => {
            let signed = rng.chance(50);
            let bits = 1 + rng.below(if signed { 64 } else { 63 });
            format!("{}{bits}", if signed { 'i' } else { 'u' })
        }
    }
}

fn bitfield_value(rng: &mut Rng) -> String {
    match rng.below(8) {
        0 => rng.pick(&["9223372036854775807", "-9223372036854775808", "abc", "1.5"]).into(),
        1 => format!("-{}", rng.next() % 300),
        2 => (rng.next() as i64).to_string(),
        _ => (rng.next() % 300).to_string(),
    }
}

fn bit_args(rng: &mut Rng) -> Vec<String> {
    let key = |rng: &mut Rng| rng.pick(BIT_KEYS).to_string();
    let offset = |rng: &mut Rng| {
        if rng.chance(85) {
            (rng.next() % 600).to_string()
        } else {
            rng.pick(BIT_OFFSETS).to_string()
        }
    };
    let range = |rng: &mut Rng| rng.pick(BIT_RANGE).to_string();
    let mut a: Vec<String> = Vec::new();
    match rng.below(24) {
        0..=4 => {
            let v = if rng.chance(95) { rng.pick(&["0", "1"]) } else { rng.pick(&["2", "-1", "x"]) };
            a.extend([rng.opt(&["SETBIT"]), key(rng), offset(rng), v.into()]);
        }
        5 | 6 => a.extend([rng.opt(&["GETBIT"]), key(rng), offset(rng)]),
        7 | 8 => {
            a.extend([rng.opt(&["BITCOUNT"]), key(rng)]);
            if rng.chance(70) {
                a.extend([range(rng), range(rng)]);
                if rng.chance(50) {
                    a.push(if rng.chance(90) { rng.opt(&["BIT", "BYTE"]) } else { "bogus".into() });
                }
            }
        }
        9 | 10 => {
            let bit = if rng.chance(95) { rng.pick(&["0", "1"]) } else { rng.pick(&["2", "x"]) };
            a.extend([rng.opt(&["BITPOS"]), key(rng), bit.into()]);
            if rng.chance(70) {
                a.push(range(rng));
                if rng.chance(60) {
                    a.push(range(rng));
                    if rng.chance(50) {
                        a.push(if rng.chance(90) { rng.opt(&["BIT", "BYTE"]) } else { "bogus".into() });
                    }
                }
            }
        }
        11 | 12 => {
            let op = if rng.chance(95) { rng.opt(&["AND", "OR", "XOR", "NOT"]) } else { "NAND".into() };
            a.extend([rng.opt(&["BITOP"]), op.clone(), key(rng)]);
            let n = if op.eq_ignore_ascii_case("not") && rng.chance(90) { 1 } else { 1 + rng.below(3) };
            for _ in 0..n {
                a.push(key(rng));
            }
        }
        13..=16 => {
            let ro = rng.chance(20);
            a.extend([if ro { rng.opt(&["BITFIELD_RO"]) } else { rng.opt(&["BITFIELD"]) }, key(rng)]);
            for _ in 0..rng.below(4) + usize::from(rng.chance(90)) {
                match rng.below(if ro { 5 } else { 4 }) {
                    0 => a.extend([
                        rng.opt(&["OVERFLOW"]),
                        rng.opt(&["WRAP", "SAT", "FAIL", "WRAP", "SAT", "FAIL", "NONE"]),
                    ]),
                    1 => a.extend([rng.opt(&["SET"]), bitfield_type(rng), offset(rng), bitfield_value(rng)]),
                    2 => a.extend([rng.opt(&["INCRBY"]), bitfield_type(rng), offset(rng), bitfield_value(rng)]),
                    _ => a.extend([rng.opt(&["GET"]), bitfield_type(rng), offset(rng)]),
                }
            }
        }
        17 => a.extend([
            "SET".into(),
            key(rng),
            rng.pick(&[
                "foobar",
                "\"\\xff\\xf0\\x00\"",
                "\"\"",
                "12",
                "-1",
                "9223372036854775807",
                "\"\\x00\\x00\\x01\"",
                LONG65,
            ])
            .into(),
        ]),
        18 => a.extend(["APPEND".into(), key(rng), rng.pick(&["x", "\"\\xff\\xff\"", "123", LONG65]).into()]),
        19 => a.extend(["SETRANGE".into(), key(rng), offset(rng), rng.pick(&["x", "\"\\x80\"", "abc"]).into()]),
        20 => a.extend([rng.pick(&["GET", "STRLEN", "OBJECT ENCODING", "MEMORY USAGE", "TYPE"]).into(), key(rng)]),
        21 => a.extend(["DEL".into(), key(rng)]),
        22 => a.extend(["LPUSH".into(), "bl".into(), "x".into()]),
        _ => a.extend(["MEMORY".into(), "USAGE".into(), key(rng)]),
    }
    a
}

fn random_bit_line(rng: &mut Rng) -> (String, Check) {
    let mut args = bit_args(rng);
    if rng.chance(3) {
        if rng.chance(50) && args.len() > 1 {
            args.pop();
        } else {
            args.push(rng.pick(BIT_RANGE).into());
        }
    }
    (args.join(" "), Check::Exact)
}

#[test]
fn random_bitmap_commands_match_a_live_server() {
    check_tools();
    let n: usize = std::env::var("REDISPLAY_DIFF_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000);
    let seeds: Vec<u64> = match std::env::var("REDISPLAY_DIFF_SEED").ok().and_then(|v| v.parse().ok()) {
        Some(s) => vec![s],
        None => vec![501, 502, 503],
    };
    let mut failures = Vec::new();
    for &seed in &seeds {
        if let Err(e) = run_random(seed, n, random_bit_line, "bitmaps") {
            failures.push(e);
        }
    }
    eprintln!("random differential, bitmaps: {} seeds × {n} lines", seeds.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ---------------------------------------------------------------------------------------------
// 6. HyperLogLog (hyperloglog.c): PFADD, PFCOUNT, PFMERGE, PFDEBUG
// ---------------------------------------------------------------------------------------------
// A few keys grown from a small alphabet and from numbered elements (so some go dense), the
// cached cardinality read back, merges across sparse and dense, corruption by SETRANGE/APPEND,
// strings that are not HLLs, and hll-sparse-max-bytes moved by CONFIG SET. GET prints the raw
// bytes, so every opcode and header byte is compared.

const HLL_KEYS: &[&str] = &["h1", "h2", "h3", "h1", "h2", "hs", "\"h\\xff\"", "hl"];

fn hll_args(rng: &mut Rng) -> Vec<String> {
    let key = |rng: &mut Rng| rng.pick(HLL_KEYS).to_string();
    let element = |rng: &mut Rng| match rng.below(10) {
        0 => rng.pick(&["\"\"", "a", "b", "\"\\x00\"", "\"\\xff\"", LONG65]).to_string(),
        1..=3 => format!("e{}", rng.below(50)),
        _ => format!("n{}", rng.below(100_000)),
    };
    let mut a: Vec<String> = Vec::new();
    match rng.below(30) {
        0..=6 | 28 | 29 => {
            a.extend([rng.opt(&["PFADD"]), key(rng)]);
            let n = if rng.chance(20) { 50 + rng.below(300) } else { rng.below(6) };
            for _ in 0..n {
                a.push(element(rng));
            }
        }
        7..=9 => {
            a.extend([rng.opt(&["PFCOUNT"]), key(rng)]);
            for _ in 0..usize::from(rng.chance(30)) * (1 + rng.below(3)) {
                a.push(key(rng));
            }
        }
        10 | 11 => {
            a.extend([rng.opt(&["PFMERGE"]), key(rng)]);
            for _ in 0..rng.below(4) {
                a.push(key(rng));
            }
        }
        12..=14 => {
            let sub = if rng.chance(3) {
                "GETREG".to_string()
            } else if rng.chance(5) {
                rng.pick(&["bogus", "\"\""]).to_string()
            } else {
                rng.opt(&["ENCODING", "DECODE", "TODENSE"])
            };
            a.extend([rng.opt(&["PFDEBUG"]), sub, key(rng)]);
        }
        15 | 16 => a.extend([rng.pick(&["GET", "STRLEN", "MEMORY USAGE", "OBJECT ENCODING", "TYPE"]).into(), key(rng)]),
        17 => a.extend([
            "SETRANGE".into(),
            key(rng),
            rng.pick(&["0", "4", "8", "15", "16", "17", "20", "12303", "12304"]).into(),
            rng.pick(&["\"\\x00\"", "\"\\x80\"", "\"\\x7f\\xff\"", "HYLL", "x", "\"\\x01\"", "\"\\xfe\""]).into(),
        ]),
        18 => a.extend(["APPEND".into(), key(rng), rng.pick(&["x", "\"\\x80\"", "\"\\x00\""]).into()]),
        19 => a.extend([
            "SET".into(),
            key(rng),
            rng.pick(&[
                "foo",
                "123",
                "\"\"",
                "HYLL",
                "\"HYLL\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x80\\x7f\\xff\"",
                "\"HYLL\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x80\\x7f\\xfe\\x80\"",
                "\"HYLL\\x01\\x00\\x00\\x00\\x03\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x3f\\x7f\\xbf\"",
            ])
            .into(),
        ]),
        20 | 24..=27 => a.extend(["DEL".into(), key(rng)]),
        21 => a.extend(["LPUSH".into(), "hl".into(), "x".into()]),
        22 => a.extend([
            "CONFIG".into(),
            "SET".into(),
            "hll-sparse-max-bytes".into(),
            rng.pick(&["3000", "3000", "0", "30", "200", "100000", "-1"]).into(),
        ]),
        23 => a.extend(["PFCOUNT".into(), key(rng), key(rng)]),
        _ => unreachable!(),
    }
    a
}

fn random_hll_line(rng: &mut Rng) -> (String, Check) {
    let mut args = hll_args(rng);
    if rng.chance(3) {
        if rng.chance(50) && args.len() > 1 {
            args.pop();
        } else {
            args.push("extra".into());
        }
    }
    (args.join(" "), Check::Exact)
}

#[test]
fn random_hyperloglog_commands_match_a_live_server() {
    check_tools();
    let n: usize = std::env::var("REDISPLAY_DIFF_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000);
    let seeds: Vec<u64> = match std::env::var("REDISPLAY_DIFF_SEED").ok().and_then(|v| v.parse().ok()) {
        Some(s) => vec![s],
        None => vec![601, 602, 603],
    };
    let mut failures = Vec::new();
    for &seed in &seeds {
        if let Err(e) = run_random(seed, n, random_hll_line, "hyperloglog") {
            failures.push(e);
        }
    }
    eprintln!("random differential, hyperloglog: {} seeds × {n} lines", seeds.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ---------------------------------------------------------------------------------------------
// 7. SORT and SORT_RO (sort.c)
// ---------------------------------------------------------------------------------------------
// Lists of numbers and words (some not numbers at all, some overflowing, so the stale-errno
// rule is exercised), intsets, small sorted sets (which SORT turns into skiplists), weight
// keys and hashes for BY and GET patterns, every option in random order, STORE read back.
// Sets stay intsets and sorted sets never sort ALPHA BY a pattern: elsewhere Redis's result
// depends on its hash order where weights tie.

const SORT_ELEMS: &[&str] =
    &["1", "2", "3", "10", "-1", "0", "2.5", "1e3", "a", "b", "B", "\"\"", "1e400", "\"\\xff\""];
const SORT_INTS: &[&str] = &["1", "2", "3", "10", "-1", "0", "7", "100"];

fn sort_args(rng: &mut Rng) -> Vec<String> {
    let list_key = |rng: &mut Rng| rng.pick(&["sl1", "sl2", "sl1"]).to_string();
    let elem = |rng: &mut Rng| {
        if rng.chance(97) {
            rng.pick(&SORT_ELEMS[..12]).to_string()
        } else {
            rng.pick(SORT_ELEMS).to_string()
        }
    };
    let mut a: Vec<String> = Vec::new();
    match rng.below(20) {
        0..=2 => {
            a.extend([rng.pick(&["RPUSH", "LPUSH"]).into(), list_key(rng)]);
            for _ in 0..1 + rng.below(4) {
                a.push(elem(rng));
            }
        }
        3 => {
            a.extend(["SADD".into(), "ss".into()]);
            for _ in 0..1 + rng.below(3) {
                a.push(rng.pick(SORT_INTS).into());
            }
        }
        4 => {
            a.extend(["ZADD".into(), "sz".into()]);
            for _ in 0..1 + rng.below(3) {
                a.push(rng.pick(&["1", "2", "3", "1.5", "-1"]).into());
                a.push(elem(rng));
            }
        }
        5 | 6 => {
            let target = if rng.chance(50) { elem(rng) } else { rng.pick(SORT_INTS).to_string() };
            let target = target.trim_matches('"').to_string();
            if rng.chance(60) {
                let v = rng.pick(&["5", "1", "3", "1.5", "-2", "x", "\"\"", "10", "z", "a", "1e400"]);
                a.extend(["SET".into(), format!("\"w_{target}\""), v.into()]);
            } else {
                a.extend([
                    "HSET".into(),
                    format!("\"h_{target}\""),
                    rng.pick(&["f", "g"]).into(),
                    rng.pick(&["5", "1", "3", "1.5", "x", "a", "b"]).into(),
                ]);
            }
        }
        7..=15 => {
            let ro = rng.chance(20);
            let src_kind = rng.below(10);
            let src = match src_kind {
                0..=5 => list_key(rng),
                6 | 7 => "ss".into(),
                8 => "sz".into(),
                _ => rng.pick(&["nosuch", "w_1", "h_1"]).into(),
            };
            a.extend([if ro { rng.opt(&["SORT_RO"]) } else { rng.opt(&["SORT"]) }, src]);
            let mut opts: Vec<Vec<String>> = Vec::new();
            let mut alpha = false;
            let mut by_pattern = false;
            if rng.chance(30) {
                alpha = true;
                opts.push(vec![rng.opt(&["ALPHA"])]);
            }
            if rng.chance(30) {
                opts.push(vec![rng.opt(&["DESC", "ASC"])]);
            }
            if rng.chance(40) {
                opts.push(vec![
                    rng.opt(&["LIMIT"]),
                    rng.pick(&["0", "1", "2", "-1", "5", "x"]).into(),
                    rng.pick(&["1", "2", "3", "-1", "0", "10"]).into(),
                ]);
            }
            if rng.chance(40) {
                let p = rng.pick(&["w_*", "h_*->f", "h_*->g", "nosort", "w_*->f", "\"\"", "*"]);
                by_pattern = p.contains('*');
                opts.push(vec![rng.opt(&["BY"]), p.into()]);
            }
            for _ in 0..rng.below(3) {
                opts.push(vec![rng.opt(&["GET"]), rng.pick(&["#", "w_*", "h_*->f", "nokey", "h_*->"]).into()]);
            }
            if !ro && rng.chance(25) {
                opts.push(vec![rng.opt(&["STORE"]), rng.pick(&["dst", "dst", "sl2"]).into()]);
            }
            if src_kind == 8 && alpha && by_pattern {
                opts.retain(|o| !o[0].eq_ignore_ascii_case("alpha"));
            }
            for i in (1..opts.len()).rev() {
                let j = rng.below(i + 1);
                opts.swap(i, j);
            }
            for o in opts {
                a.extend(o);
            }
        }
        16 => a.extend(["LRANGE".into(), "dst".into(), "0".into(), "-1".into()]),
        17 => a.extend([rng.pick(&["TYPE", "OBJECT ENCODING", "LLEN"]).into(), rng.pick(&["dst", "sz", "sl1"]).into()]),
        18 => a.extend(["DEL".into(), rng.pick(&["sl1", "sl2", "ss", "sz", "dst"]).into()]),
        _ => a.extend(["ZADD".into(), "zr".into(), "1.5".into(), "m".into()]),
    }
    a
}

fn random_sort_line(rng: &mut Rng) -> (String, Check) {
    let mut args = sort_args(rng);
    // Not on SADD: a non-integer member would make the set a hashtable (see above).
    if rng.chance(2) && args[0] != "SADD" {
        if rng.chance(50) && args.len() > 1 {
            args.pop();
        } else {
            args.push(rng.pick(&["bogus", "1"]).into());
        }
    }
    (args.join(" "), Check::Exact)
}

#[test]
fn random_sort_commands_match_a_live_server() {
    check_tools();
    let n: usize = std::env::var("REDISPLAY_DIFF_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000);
    let seeds: Vec<u64> = match std::env::var("REDISPLAY_DIFF_SEED").ok().and_then(|v| v.parse().ok()) {
        Some(s) => vec![s],
        None => vec![701, 702, 703],
    };
    let mut failures = Vec::new();
    for &seed in &seeds {
        if let Err(e) = run_random(seed, n, random_sort_line, "sort") {
            failures.push(e);
        }
    }
    eprintln!("random differential, sort: {} seeds × {n} lines", seeds.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ---------------------------------------------------------------------------------------------
// 8. ACL: random rule strings (acl.c)
// ---------------------------------------------------------------------------------------------
//
// Random ACL SETUSER rule lists (every kind of rule, valid and not, selectors, first-args,
// categories), and what the users may then do, asked with ACL DRYRUN (the check every command
// passes), ACL GETUSER and ACL LIST. One connection, always the default user (no AUTH, so no
// connection is ever closed under redis-cli). Redis lists a user's single-command rules
// (`+get +set`) in its command dict's hash order, random per process: those runs of tokens are
// compared sorted; everything else byte for byte.

const ACL_USERS: &[&str] = &["u1", "u2", "u3"];
const ACL_KEY_PATTERNS: &[&str] = &["*", "k*", "r*", "w*", "a", "b?", "[ab]", ""];
const ACL_CHANNEL_PATTERNS: &[&str] = &["ch*", "news.*", "chx", "*", "ch1"];
const ACL_COMMANDS: &[&str] = &[
    "get",
    "set",
    "mget",
    "hset",
    "lpush",
    "zadd",
    "xadd",
    "del",
    "select",
    "config",
    "config|get",
    "config|set",
    "client",
    "client|kill",
    "client|id",
    "publish",
    "subscribe",
    "psubscribe",
    "eval",
    "flushall",
    "keys",
    "ping",
    "auth",
    "acl",
    "acl|whoami",
    "bitcount",
    "nosuch",
    "debug",
];
/// Categories to grant or revoke: acl.c's (redisplay::acl::CATEGORIES), `all`, and one unknown.
fn acl_category(rng: &mut Rng) -> &'static str {
    let n = redisplay::acl::CATEGORIES.len();
    match rng.below(n + 2) {
        i if i < n => redisplay::acl::CATEGORIES[i],
        i if i == n => "all",
        _ => "nosuch",
    }
}

/// One ACL SETUSER rule (inside a selector: only the rules a selector takes, mostly).
fn acl_rule(rng: &mut Rng, in_selector: bool) -> String {
    let choice = if in_selector { 8 + rng.below(10) } else { rng.below(20) };
    match choice {
        0 => rng.opt(&["on", "off", "nopass", "resetpass", "reset", "clearselectors"]),
        1 => rng.opt(&["sanitize-payload", "skip-sanitize-payload", "on"]),
        2 => format!(">{}", rng.pick(&["p1", "p2", "\"sp ace\""])),
        3 => format!("<{}", rng.pick(&["p1", "p2"])),
        4 => rng
            .pick(&[
                "#f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a",
                "!f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a",
                "#F64551FCD6F07823CB87971CFB91446425DA18286B3AB1EF935E0CBD7A69F68A",
                "#abc",
            ])
            .into(),
        5 => {
            // A selector, as one argument or spread over several.
            let n = 1 + rng.below(3);
            let rules: Vec<String> = (0..n).map(|_| acl_rule(rng, true)).collect();
            if rng.chance(70) {
                format!("\"({})\"", rules.join(" ").replace('"', "'"))
            } else {
                let mut parts = rules;
                parts[0] = format!("({}", parts[0]);
                if rng.chance(90) {
                    let last = parts.len() - 1;
                    parts[last] = format!("{})", parts[last]);
                }
                parts.join(" ")
            }
        }
        6 => rng.pick(&["bogus", "+", "-@", "%X~a", "%~a", "(", ")", "((+get))", "\"~a b\""]).into(),
        7 => "\"\"".into(),
        8 | 9 => format!("{}{}", rng.pick(&["~", "%R~", "%W~", "%RW~", "%wr~"]), rng.pick(ACL_KEY_PATTERNS)),
        10 => rng.opt(&["allkeys", "resetkeys", "allchannels", "resetchannels", "allcommands", "nocommands"]),
        11 => format!("&{}", rng.pick(ACL_CHANNEL_PATTERNS)),
        12 | 13 => format!("{}{}", rng.pick(&["+", "-"]), rng.pick(ACL_COMMANDS)),
        14 | 15 => format!("{}@{}", rng.pick(&["+", "-"]), acl_category(rng)),
        16 => rng.pick(&["+select|0", "+select|1", "+config|get|x", "+get|", "-select|0", "+debug|object"]).into(),
        _ => rng.pick(&["~*", "&*", "+@all", "-@all"]).into(),
    }
}

/// A command line for ACL DRYRUN: keys and channels from small alphabets.
fn acl_dryrun_command(rng: &mut Rng) -> String {
    let k = |rng: &mut Rng| rng.pick(&["a", "b", "k1", "kx", "r1", "w1"]).to_string();
    let ch = |rng: &mut Rng| rng.pick(&["ch1", "chx", "news.a", "ch*", "other"]).to_string();
    match rng.below(22) {
        0 => format!("get {}", k(rng)),
        1 => format!("set {} v", k(rng)),
        2 => format!("set {} v get", k(rng)),
        3 => format!("mget {} {} {}", k(rng), k(rng), k(rng)),
        4 => format!("del {} {}", k(rng), k(rng)),
        5 => format!("lmove {} {} left right", k(rng), k(rng)),
        6 => format!("copy {} {}", k(rng), k(rng)),
        7 => format!("exists {}", k(rng)),
        8 => format!("hset {} f v", k(rng)),
        9 => format!("publish {} m", ch(rng)),
        10 => format!("subscribe {} {}", ch(rng), ch(rng)),
        11 => format!("psubscribe {}", ch(rng)),
        12 => rng.pick(&["config get hz", "config set hz 10", "config", "config nosuch"]).into(),
        13 => rng.pick(&["client kill id 1", "client id", "client"]).into(),
        14 => rng.pick(&["select 0", "select 1", "SELECT 0"]).into(),
        15 => rng.pick(&["ping", "auth x", "acl whoami", "flushall", "keys *"]).into(),
        16 => format!("eval \"\" 1 {}", k(rng)),
        17 => format!("zunionstore {} 2 {} {}", k(rng), k(rng), k(rng)),
        18 => rng.pick(&["nosuch", "get", "get a b"]).into(),
        19 => format!("rename {} {}", k(rng), k(rng)),
        20 => format!("getdel {}", k(rng)),
        _ => format!("incr {}", k(rng)),
    }
}

fn random_acl_line(rng: &mut Rng) -> (String, Check) {
    let user = rng.pick(ACL_USERS);
    let line = match rng.below(20) {
        0..=7 => {
            let n = 1 + rng.below(5);
            let rules: Vec<String> = (0..n).map(|_| acl_rule(rng, false)).collect();
            format!("ACL SETUSER {user} {}", rules.join(" "))
        }
        8..=13 => format!("ACL DRYRUN {user} {}", acl_dryrun_command(rng)),
        14 | 15 => format!("ACL GETUSER {user}"),
        16 => "ACL LIST".into(),
        17 => "ACL USERS".into(),
        18 => format!("ACL DELUSER {user}"),
        _ => format!("CONFIG SET acl-pubsub-default {}", rng.pick(&["allchannels", "resetchannels"])),
    };
    (line, Check::Exact)
}

/// Sorts each run of single-command rules (`+get -set +config|get`, not `+@read`) in every line
/// of redis-cli's output: Redis emits them in hash order. Lengths are kept, so the output still
/// cuts into the same per-command pieces.
fn canonical_rules(text: &[u8]) -> Vec<u8> {
    let single = |t: &[u8]| t.len() > 1 && (t[0] == b'+' || t[0] == b'-') && t[1] != b'@';
    let mut out = Vec::with_capacity(text.len());
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        let mut tokens: Vec<Vec<u8>> = line.split(|&b| b == b' ').map(|t| t.to_vec()).collect();
        let mut j = 0;
        while j < tokens.len() {
            if !single(&tokens[j]) {
                j += 1;
                continue;
            }
            let start = j;
            while j < tokens.len() && single(&tokens[j]) {
                j += 1;
            }
            // The run's last token may carry the end of a quoted string or a selector.
            let last = &tokens[j - 1];
            let core_len = last.len() - last.iter().rev().take_while(|&&b| b == b'"' || b == b')').count();
            let suffix = last[core_len..].to_vec();
            tokens[j - 1].truncate(core_len);
            tokens[start..j].sort();
            tokens[j - 1].extend(suffix);
        }
        out.extend(tokens.join(&b' '));
    }
    out
}

#[test]
fn random_acl_rules_match_a_live_server() {
    check_tools();
    let n: usize = std::env::var("REDISPLAY_DIFF_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000);
    let seeds: Vec<u64> = match std::env::var("REDISPLAY_DIFF_SEED").ok().and_then(|v| v.parse().ok()) {
        Some(s) => vec![s],
        None => vec![501, 502, 503],
    };
    let mut failures = Vec::new();
    for &seed in &seeds {
        let lines = random_script(seed, n, random_acl_line);
        if let Ok(path) = std::env::var("REDISPLAY_DIFF_DUMP") {
            std::fs::write(&path, common::cli_input(&lines)).expect("REDISPLAY_DIFF_DUMP is writable");
        }
        let server = Server::start();
        let live = canonical_rules(&server.cli(&common::cli_input(&lines)));
        let engine: Vec<Vec<u8>> = run_engine(&lines, seed, wall_ms()).iter().map(|o| canonical_rules(o)).collect();
        if let Err(m) = compare(&lines, &engine, &live) {
            let from = m.lineno.saturating_sub(12);
            let context: Vec<String> = lines[from..m.lineno.saturating_sub(1)]
                .iter()
                .map(|l| format!("  {:>5}  {}", l.lineno, String::from_utf8_lossy(&l.line)))
                .collect();
            failures.push(format!(
                "random differential (ACL), seed {seed} ({n} lines; replay with REDISPLAY_DIFF_SEED={seed}):\ncontext:\n{}\n{m}",
                context.join("\n")
            ));
        }
    }
    eprintln!("random differential, ACL: {} seeds × {n} lines", seeds.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ---------------------------------------------------------------------------------------------
// Streams (t_stream.c). A generator with state: XADD's IDs come from a counter that mostly
// moves forward (so most adds succeed and entries pile up across nodes), now and then an old,
// zero or malformed one; groups, consumers and PELs grow and shrink with XREADGROUP, XACK,
// XCLAIM, XAUTOCLAIM and XGROUP; node limits change with CONFIG SET so nodes split by entries
// and by bytes; MEMORY USAGE checks the node layout after every kind of change. Only explicit
// IDs and time-independent replies: idle times are masked through Lua, BLOCK is never used
// (redis-cli would wait), `*` never printed.
// ---------------------------------------------------------------------------------------------

const S_KEYS: &[&str] = &["s1", "s2", "s3", "str"];
const S_GROUPS: &[&str] = &["g1", "g2", "\"\""];
const S_CONSUMERS: &[&str] = &["c1", "c2", "c3"];
const S_FIELDS: &[&str] = &["f", "g", "name", "1", "\"\"", "\"\\x00b\""];
const S_VALUES: &[&str] = &["v", "1", "-1", "12345678901", "\"\"", "\"x y\"", "0.5", "01", "\"\\xff\""];

struct StreamGen {
    rng: Rng,
    ms: u64,
}

impl StreamGen {
    fn key(&mut self) -> String {
        self.rng.pick(S_KEYS).to_string()
    }

    /// An ID somewhere in what was added so far (or just outside it).
    fn old_id(&mut self) -> String {
        let ms = self.rng.below(self.ms as usize + 3) as u64;
        match self.rng.below(4) {
            0 => format!("{ms}"),
            _ => format!("{ms}-{}", self.rng.below(3)),
        }
    }

    /// A range bound: an ID, exclusive, incomplete, `-`/`+`, at the limits, or junk.
    fn bound(&mut self, end: bool) -> String {
        match self.rng.below(12) {
            0 => if end { "+" } else { "-" }.into(),
            1 => if end { "-" } else { "+" }.into(),
            2 => format!("({}", self.old_id()),
            3 => "18446744073709551615-18446744073709551615".into(),
            4 => "(0-0".into(),
            5 => "x".into(),
            _ => self.old_id(),
        }
    }

    fn fields(&mut self, a: &mut Vec<String>) {
        let n = 1 + self.rng.below(3);
        let same = self.rng.chance(60);
        for i in 0..n {
            a.push(if same { ["f", "g", "name"][i].to_string() } else { self.rng.pick(S_FIELDS).to_string() });
            let v = if self.rng.chance(10) {
                let n = self.rng.below(700);
                format!("\"{}\"", "z".repeat(n))
            } else {
                self.rng.pick(S_VALUES).to_string()
            };
            a.push(v);
        }
    }

    fn trim_args(&mut self, a: &mut Vec<String>) {
        let maxlen = self.rng.chance(60);
        a.push(self.rng.opt(if maxlen { &["MAXLEN"] } else { &["MINID"] }));
        match self.rng.below(4) {
            0 => a.push("~".into()),
            1 => a.push("=".into()),
            _ => {}
        }
        if maxlen {
            let top = if self.rng.chance(20) { 3 } else { 300 };
            a.push(self.rng.below(top).to_string());
        } else {
            let id = self.old_id();
            a.push(id);
        }
        if self.rng.chance(15) {
            a.push(self.rng.opt(&["LIMIT"]));
            a.push(self.rng.pick(&["0", "1", "5", "100", "-1"]).to_string());
        }
    }

    fn line(&mut self) -> (String, Check) {
        let mut a: Vec<String> = Vec::new();
        let mut check = Check::Exact;
        match self.rng.below(40) {
            0..=11 => {
                a.push(self.rng.opt(&["XADD"]));
                a.push(self.key());
                if self.rng.chance(8) {
                    a.push(self.rng.opt(&["NOMKSTREAM"]));
                }
                if self.rng.chance(15) {
                    self.trim_args(&mut a);
                }
                self.ms += self.rng.below(3) as u64;
                let id = match self.rng.below(20) {
                    0 => self.old_id(),
                    1 => "0-0".into(),
                    2 => format!("{}-*", self.rng.below(self.ms as usize + 2)),
                    3 if self.rng.chance(5) => "18446744073709551615-18446744073709551615".into(),
                    3..=10 => format!("{}-*", self.ms),
                    _ => format!("{}-{}", self.ms, self.rng.below(5)),
                };
                a.push(id);
                self.fields(&mut a);
            }
            12 | 13 => {
                let rev = self.rng.chance(40);
                a.push(self.rng.opt(if rev { &["XREVRANGE"] } else { &["XRANGE"] }));
                a.push(self.key());
                let (s, e) = (self.bound(false), self.bound(true));
                if rev {
                    a.extend([e, s]);
                } else {
                    a.extend([s, e]);
                }
                if self.rng.chance(40) {
                    a.push(self.rng.opt(&["COUNT"]));
                    a.push(self.rng.pick(&["0", "1", "2", "5", "-1", "x"]).to_string());
                }
            }
            14 => a.extend([self.rng.opt(&["XLEN"]), self.key()]),
            15 | 16 => {
                a.extend([self.rng.opt(&["XDEL"]), self.key()]);
                for _ in 0..1 + self.rng.below(3) {
                    let id = if self.rng.chance(5) { "x".to_string() } else { self.old_id() };
                    a.push(id);
                }
            }
            17 | 18 => {
                a.extend([self.rng.opt(&["XTRIM"]), self.key()]);
                self.trim_args(&mut a);
            }
            19..=21 => {
                a.extend([self.rng.opt(&["XGROUP"]), String::new()]);
                let sub = self.rng.below(6);
                a[1] = self.rng.opt(&[["CREATE", "SETID", "DESTROY", "CREATECONSUMER", "DELCONSUMER", "CREATE"][sub]]);
                a.push(self.key());
                a.push(self.rng.pick(S_GROUPS).to_string());
                match sub {
                    0 | 5 | 1 => {
                        let id = match self.rng.below(4) {
                            0 => "$".to_string(),
                            1 => "0".to_string(),
                            _ => self.old_id(),
                        };
                        a.push(id);
                        if sub != 1 && self.rng.chance(30) {
                            a.push(self.rng.opt(&["MKSTREAM"]));
                        }
                        if self.rng.chance(20) {
                            a.push(self.rng.opt(&["ENTRIESREAD"]));
                            a.push(self.rng.pick(&["0", "1", "3", "-1", "-2", "100"]).to_string());
                        }
                    }
                    3 | 4 => a.push(self.rng.pick(S_CONSUMERS).to_string()),
                    _ => {}
                }
            }
            22..=25 => {
                a.push(self.rng.opt(&["XREADGROUP"]));
                a.push(self.rng.opt(&["GROUP"]));
                a.push(self.rng.pick(S_GROUPS).to_string());
                a.push(self.rng.pick(S_CONSUMERS).to_string());
                if self.rng.chance(40) {
                    a.push(self.rng.opt(&["COUNT"]));
                    a.push(self.rng.pick(&["1", "2", "5", "0"]).to_string());
                }
                if self.rng.chance(15) {
                    a.push(self.rng.opt(&["NOACK"]));
                }
                a.push(self.rng.opt(&["STREAMS"]));
                let n = 1 + self.rng.below(2);
                let keys: Vec<String> = (0..n).map(|_| self.key()).collect();
                a.extend(keys);
                for _ in 0..n {
                    let id = match self.rng.below(5) {
                        0 => "0".to_string(),
                        1 => self.old_id(),
                        _ => ">".to_string(),
                    };
                    a.push(id);
                }
            }
            26 | 27 => {
                a.push(self.rng.opt(&["XREAD"]));
                if self.rng.chance(40) {
                    a.push(self.rng.opt(&["COUNT"]));
                    a.push(self.rng.pick(&["1", "3", "0"]).to_string());
                }
                a.push(self.rng.opt(&["STREAMS"]));
                let n = 1 + self.rng.below(2);
                let keys: Vec<String> = (0..n).map(|_| self.key()).collect();
                a.extend(keys);
                for _ in 0..n {
                    let id = if self.rng.chance(20) { "$".to_string() } else { self.old_id() };
                    a.push(id);
                }
            }
            28 | 29 => {
                a.extend([self.rng.opt(&["XACK"]), self.key(), self.rng.pick(S_GROUPS).to_string()]);
                for _ in 0..1 + self.rng.below(3) {
                    let id = self.old_id();
                    a.push(id);
                }
            }
            30 => {
                if self.rng.chance(50) {
                    a.extend([self.rng.opt(&["XPENDING"]), self.key(), self.rng.pick(S_GROUPS).to_string()]);
                } else {
                    // The extended form, its idle times masked.
                    a.push("EVAL \"local r = redis.call('XPENDING', unpack(ARGV)) if type(r) == 'table' then for _, p in ipairs(r) do p[3] = 'idle' end end return r\" 0".into());
                    a.extend([self.key(), self.rng.pick(S_GROUPS).to_string()]);
                    if self.rng.chance(20) {
                        a.extend(["IDLE".into(), self.rng.pick(&["0", "1000000000"]).to_string()]);
                    }
                    let (s, e) = (self.bound(false), self.bound(true));
                    a.extend([s, e, self.rng.pick(&["1", "3", "10", "0"]).to_string()]);
                    if self.rng.chance(30) {
                        a.push(self.rng.pick(S_CONSUMERS).to_string());
                    }
                }
            }
            31 | 32 => {
                let auto = self.rng.chance(50);
                a.push(self.rng.opt(if auto { &["XAUTOCLAIM"] } else { &["XCLAIM"] }));
                a.extend([self.key(), self.rng.pick(S_GROUPS).to_string(), self.rng.pick(S_CONSUMERS).to_string()]);
                let idle = self.rng.pick(&["0", "0", "1000000000", "-1"]).to_string();
                a.push(idle);
                if auto {
                    let b = self.bound(false);
                    a.push(b);
                    if self.rng.chance(50) {
                        a.extend(["COUNT".into(), self.rng.pick(&["1", "2", "10", "0"]).to_string()]);
                    }
                } else {
                    for _ in 0..1 + self.rng.below(3) {
                        let id = self.old_id();
                        a.push(id);
                    }
                    if self.rng.chance(20) {
                        a.push(self.rng.opt(&["FORCE"]));
                    }
                    if self.rng.chance(20) {
                        a.extend(["RETRYCOUNT".into(), self.rng.pick(&["0", "5"]).to_string()]);
                    }
                    if self.rng.chance(15) {
                        a.extend(["LASTID".into(), self.old_id()]);
                    }
                }
                if self.rng.chance(40) {
                    a.push(self.rng.opt(&["JUSTID"]));
                }
            }
            33 => match self.rng.below(3) {
                0 => a.extend([self.rng.opt(&["XINFO"]), "STREAM".into(), self.key()]),
                1 => a.extend([self.rng.opt(&["XINFO"]), "GROUPS".into(), self.key()]),
                _ => {
                    a.push("EVAL \"local r = redis.call('XINFO', 'CONSUMERS', ARGV[1], ARGV[2]) if type(r) == 'table' then for _, c in ipairs(r) do c[6] = 'idle' end end return r\" 0".into());
                    a.extend([self.key(), self.rng.pick(S_GROUPS).to_string()]);
                }
            },
            34 | 35 => a.extend(["MEMORY".into(), "USAGE".into(), self.key()]),
            36 => {
                a.extend(["XSETID".into(), self.key()]);
                let id = if self.rng.chance(50) { format!("{}-9", self.ms + 1) } else { self.old_id() };
                a.push(id);
                if self.rng.chance(30) {
                    a.extend(["ENTRIESADDED".into(), self.rng.pick(&["0", "5", "1000"]).to_string()]);
                }
                if self.rng.chance(20) {
                    a.extend(["MAXDELETEDID".into(), self.old_id()]);
                }
            }
            37 => {
                let (param, values): (&str, &[&str]) = if self.rng.chance(50) {
                    ("stream-node-max-entries", &["100", "3", "0", "10"])
                } else {
                    ("stream-node-max-bytes", &["4096", "200", "0", "1000"])
                };
                a.extend(["CONFIG".into(), "SET".into(), param.into(), self.rng.pick(values).to_string()]);
            }
            38 => {
                let k = self.key();
                if k == "str" {
                    a.extend(["SET".into(), k, "v".into()]);
                } else if self.rng.chance(10) {
                    a.extend(["DEL".into(), k]);
                } else if self.rng.chance(30) {
                    // DUMP's length: the payload's bytes hold wall-clock delivery and seen times,
                    // but always 8 of them, so the length shows the nodes, strings and LZF.
                    a.push("EVAL \"local p = redis.call('DUMP', KEYS[1]) if p then return #p end return -1\" 1".into());
                    a.push(k);
                } else {
                    a.extend([self.rng.pick(&["TYPE", "EXISTS", "OBJECT ENCODING"]).to_string(), k]);
                }
            }
            _ => {
                // A range through Lua, as many applications read streams.
                a.push("EVAL \"return #redis.call('XRANGE', KEYS[1], '-', '+')\" 1".into());
                a.push(self.key());
                check = Check::Exact;
            }
        }
        (a.join(" "), check)
    }
}

fn random_stream_script(seed: u64, n: usize) -> Vec<ScriptLine> {
    let mut g = StreamGen { rng: Rng(seed), ms: 1 };
    (0..n)
        .map(|i| {
            let (line, check) = g.line();
            ScriptLine { lineno: i + 1, line: line.into_bytes(), check }
        })
        .collect()
}

#[test]
fn random_stream_commands_match_a_live_server() {
    check_tools();
    let n: usize = std::env::var("REDISPLAY_DIFF_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000);
    let seeds: Vec<u64> = match std::env::var("REDISPLAY_DIFF_SEED").ok().and_then(|v| v.parse().ok()) {
        Some(s) => vec![s],
        None => vec![501, 502, 503, 504],
    };
    let mut failures = Vec::new();
    for &seed in &seeds {
        if let Err(e) = run_lines(seed, random_stream_script(seed, n), "streams") {
            failures.push(e);
        }
    }
    eprintln!("random differential, streams: {} seeds × {n} lines", seeds.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
