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
            for m in t.iter() {
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

// ---------------------------------------------------------------------------------------------
// Reading (aof.c loadSingleAppendOnlyFile()'s parsing) and the manifest
// ---------------------------------------------------------------------------------------------

/// How reading an AOF ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AofEnd {
    /// At the end of the file, after a whole command.
    Complete,
    /// Cut in the middle of a command (`aof-load-truncated` decides); the commands read are
    /// whole.
    Truncated,
    /// Not the AOF format at byte `at` ("Bad file format reading the append only file").
    BadFormat { at: usize },
}

/// The commands of an AOF in order, each with the offset just past it (`valid_up_to`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AofRead {
    pub commands: Vec<(Vec<Vec<u8>>, usize)>,
    pub end: AofEnd,
}

/// `fgets()` of at most `AOF_ANNOTATION_LINE_MAX_LEN - 1` bytes: the line (with its `\n`, if
/// it fit) and where the next read starts.
fn fgets(buf: &[u8], at: usize) -> Option<(&[u8], usize)> {
    const MAX: usize = 1024 - 1;
    if at >= buf.len() {
        return None;
    }
    let rest = &buf[at..];
    let n = rest.iter().take(MAX).position(|&b| b == b'\n').map_or(rest.len().min(MAX), |p| p + 1);
    Some((&rest[..n], at + n))
}

/// C's `atoi()` / `strtol(…, 10)`: leading spaces, a sign, digits; 0 when there are none.
fn c_atol(s: &[u8]) -> i64 {
    let s = &s[s.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(s.len())..];
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut v: i64 = 0;
    for &d in digits.iter().take_while(|b| b.is_ascii_digit()) {
        v = v.saturating_mul(10).saturating_add((d - b'0') as i64);
    }
    if neg {
        -v
    } else {
        v
    }
}

/// aof.c `loadSingleAppendOnlyFile()`'s reading of the command part: `*argc` lines (`#`
/// annotations skipped), each argument `$len`, its bytes and a CRLF. `max_arg` caps one
/// argument's length (the playground's allocation limit; Redis would try to allocate it).
pub fn read_commands(buf: &[u8], max_arg: usize) -> AofRead {
    let mut commands = Vec::new();
    let mut at = 0;
    let end = loop {
        let Some((line, next)) = fgets(buf, at) else { break AofEnd::Complete };
        if line[0] == b'#' {
            at = next;
            continue;
        }
        if line[0] != b'*' {
            break AofEnd::BadFormat { at };
        }
        if line.len() == 1 {
            break AofEnd::Truncated;
        }
        let argc = c_atol(&line[1..]);
        if argc < 1 {
            break AofEnd::BadFormat { at };
        }
        let mut pos = next;
        let mut argv = Vec::new();
        let mut stop = None;
        for _ in 0..argc {
            let Some((line, next)) = fgets(buf, pos) else {
                stop = Some(AofEnd::Truncated);
                break;
            };
            if line[0] != b'$' {
                stop = Some(AofEnd::BadFormat { at: pos });
                break;
            }
            let len = c_atol(&line[1..]).max(0) as usize;
            if len > max_arg {
                stop = Some(AofEnd::BadFormat { at: pos });
                break;
            }
            if next + len + 2 > buf.len() {
                stop = Some(AofEnd::Truncated);
                break;
            }
            argv.push(buf[next..next + len].to_vec());
            pos = next + len + 2;
        }
        if let Some(stop) = stop {
            break stop;
        }
        commands.push((argv, pos));
        at = pos;
    };
    AofRead { commands, end }
}

/// One line of the manifest (aof.c `aofInfo`): a file, its sequence number and its type —
/// `b` base, `h` history, `i` incr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AofInfo {
    pub name: Vec<u8>,
    pub seq: i64,
    pub kind: u8,
}

/// aof.c `aofInfoFormat()`: `file <name> seq <n> type <t>`, the name quoted if it needs to be.
pub fn format_manifest(files: &[AofInfo]) -> Vec<u8> {
    let mut out = Vec::new();
    for f in files {
        out.extend_from_slice(b"file ");
        // sds.c sdsneedsrepr(): a quote, a backslash, a space or an unprintable byte.
        let plain = f.name.iter().all(|&c| c.is_ascii_graphic() && c != b'"' && c != b'\\');
        if plain {
            out.extend_from_slice(&f.name);
        } else {
            crate::reply::cat_repr(&mut out, &f.name);
        }
        out.extend_from_slice(format!(" seq {} type {}\n", f.seq, f.kind as char).as_bytes());
    }
    out
}

/// aof.c `aofLoadManifestFromFile()`: the base, history and incr files, or Redis's error.
pub fn parse_manifest(text: &[u8]) -> Result<Vec<AofInfo>, &'static str> {
    let mut files = Vec::new();
    let mut has_base = false;
    let mut max_seq = 0;
    let mut lines = 0;
    for raw in text.split_inclusive(|&b| b == b'\n') {
        lines += 1;
        if raw.first() == Some(&b'#') {
            continue;
        }
        if !raw.ends_with(b"\n") || raw.len() > 1024 {
            return Err("The AOF manifest file contains too long line");
        }
        let line = raw.trim_ascii();
        if line.is_empty() {
            return Err("Invalid AOF manifest file format");
        }
        let argv = match crate::tokenize::split_args(line) {
            Some(a) if a.len() >= 6 && a.len() % 2 == 0 => a,
            _ => return Err("Invalid AOF manifest file format"),
        };
        let (mut name, mut seq, mut kind) = (None, 0i64, 0u8);
        for pair in argv.chunks(2) {
            let key = pair[0].to_ascii_lowercase();
            match key.as_slice() {
                b"file" => {
                    if pair[1].contains(&b'/') {
                        return Err("File can't be a path, just a filename");
                    }
                    name = Some(pair[1].clone());
                }
                b"seq" => seq = c_atol(&pair[1]),
                b"type" => kind = pair[1].first().copied().unwrap_or(0),
                _ => {}
            }
        }
        let Some(name) = name.filter(|_| seq != 0 && kind != 0) else {
            return Err("Invalid AOF manifest file format");
        };
        match kind {
            b'b' if has_base => return Err("Found duplicate base file information"),
            b'b' => has_base = true,
            b'h' => {}
            b'i' if seq <= max_seq => return Err("Found a non-monotonic sequence number"),
            b'i' => max_seq = seq,
            _ => return Err("Unknown AOF file type"),
        }
        files.push(AofInfo { name, seq, kind });
    }
    if lines == 0 {
        return Err("Found an empty AOF manifest");
    }
    Ok(files)
}

/// aof.c `aofManifest`: the base file (at most one), the history files a rewrite left behind
/// (until they are unlinked) and the incr files, in order, with the last sequence numbers used.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    pub base: Option<AofInfo>,
    pub history: Vec<AofInfo>,
    pub incr: Vec<AofInfo>,
    pub base_seq: i64,
    pub incr_seq: i64,
}

impl Manifest {
    /// From `parse_manifest()`'s lines.
    pub fn from_files(files: Vec<AofInfo>) -> Manifest {
        let mut m = Manifest::default();
        for f in files {
            match f.kind {
                b'b' => {
                    m.base_seq = f.seq;
                    m.base = Some(f);
                }
                b'h' => m.history.push(f),
                _ => {
                    m.incr_seq = f.seq;
                    m.incr.push(f);
                }
            }
        }
        m
    }

    /// `getAofManifestAsString()`: base, history, incr.
    pub fn format(&self) -> Vec<u8> {
        let files: Vec<AofInfo> = self.base.iter().chain(&self.history).chain(&self.incr).cloned().collect();
        format_manifest(&files)
    }

    /// `getNewBaseFileNameAndMarkPreAsHistory()`: `<appendfilename>.<seq>.base.rdb` (or `.aof`
    /// without the RDB preamble); the old base becomes the first history file.
    pub fn new_base(&mut self, appendfilename: &str, rdb_preamble: bool) -> String {
        if let Some(mut old) = self.base.take() {
            old.kind = b'h';
            self.history.insert(0, old);
        }
        self.base_seq += 1;
        let name = format!("{appendfilename}.{}.base.{}", self.base_seq, if rdb_preamble { "rdb" } else { "aof" });
        self.base = Some(AofInfo { name: name.clone().into_bytes(), seq: self.base_seq, kind: b'b' });
        name
    }

    /// `getNewIncrAofName()`: `<appendfilename>.<seq>.incr.aof`, appended to the incr list.
    pub fn new_incr(&mut self, appendfilename: &str) -> String {
        self.incr_seq += 1;
        let name = format!("{appendfilename}.{}.incr.aof", self.incr_seq);
        self.incr.push(AofInfo { name: name.clone().into_bytes(), seq: self.incr_seq, kind: b'i' });
        name
    }

    /// `getLastIncrAofName()`: the incr file written to — a new one when there is none.
    pub fn last_incr(&mut self, appendfilename: &str) -> String {
        match self.incr.last() {
            Some(f) => String::from_utf8_lossy(&f.name).into_owned(),
            None => self.new_incr(appendfilename),
        }
    }

    /// `markRewrittenIncrAofAsHistory()`: the incr files a rewrite covered become history — all
    /// but the last when the AOF is on (it is the one written to now).
    pub fn mark_rewritten_incr_as_history(&mut self, aof_on: bool) {
        let keep = usize::from(aof_on && !self.incr.is_empty());
        let covered: Vec<AofInfo> = self.incr.drain(..self.incr.len() - keep).collect();
        for mut f in covered.into_iter().rev() {
            f.kind = b'h';
            self.history.insert(0, f);
        }
    }

    /// The files a load reads (`getBaseAndIncrAppendOnlyFilesNum()`): base, then incrs.
    pub fn loaded_files(&self) -> impl Iterator<Item = &AofInfo> {
        self.base.iter().chain(&self.incr)
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

    #[test]
    fn reading_commands_and_where_a_file_stops() {
        let mut aof = b"#TS:1700000000\r\n".to_vec();
        cat_command(&mut aof, &[b"SET".to_vec(), b"k".to_vec(), b"v\r\nx".to_vec()]);
        let whole = aof.len();
        cat_command(&mut aof, &[b"INCR".to_vec(), b"n".to_vec()]);
        let read = read_commands(&aof, 1 << 20);
        assert_eq!(read.end, AofEnd::Complete);
        assert_eq!(read.commands[0], (vec![b"SET".to_vec(), b"k".to_vec(), b"v\r\nx".to_vec()], whole));
        assert_eq!(read.commands.len(), 2);
        // Cut anywhere inside the second command: the first stays, the end is truncated.
        for cut in whole + 1..aof.len() {
            let read = read_commands(&aof[..cut], 1 << 20);
            assert_eq!((read.commands.len(), read.end), (1, AofEnd::Truncated), "cut at {cut}");
        }
        assert_eq!(read_commands(b"SET k v\r\n", 100).end, AofEnd::BadFormat { at: 0 });
        assert_eq!(read_commands(b"*0\r\n", 100).end, AofEnd::BadFormat { at: 0 });
        assert_eq!(read_commands(b"*1\r\n+x\r\n", 100).end, AofEnd::BadFormat { at: 4 });
        assert_eq!(read_commands(b"*1\r\n$999999999\r\n", 100).end, AofEnd::BadFormat { at: 4 });
    }

    #[test]
    fn manifests() {
        let files = vec![
            AofInfo { name: b"appendonly.aof.2.base.rdb".to_vec(), seq: 2, kind: b'b' },
            AofInfo { name: b"appendonly.aof.1.incr.aof".to_vec(), seq: 1, kind: b'h' },
            AofInfo { name: b"appendonly.aof.3.incr.aof".to_vec(), seq: 3, kind: b'i' },
        ];
        let text = format_manifest(&files);
        assert_eq!(
            String::from_utf8_lossy(&text),
            "file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.1.incr.aof seq 1 type h\nfile appendonly.aof.3.incr.aof seq 3 type i\n"
        );
        assert_eq!(parse_manifest(&text).unwrap(), files);
        let spaced = vec![AofInfo { name: b"my file.aof".to_vec(), seq: 1, kind: b'i' }];
        assert_eq!(parse_manifest(&format_manifest(&spaced)).unwrap(), spaced);
        assert_eq!(parse_manifest(b""), Err("Found an empty AOF manifest"));
        assert_eq!(
            parse_manifest(b"file a seq 1 type b\nfile b seq 2 type b\n"),
            Err("Found duplicate base file information")
        );
        assert_eq!(
            parse_manifest(b"file a seq 2 type i\nfile b seq 2 type i\n"),
            Err("Found a non-monotonic sequence number")
        );
        assert_eq!(parse_manifest(b"file a/b seq 1 type i\n"), Err("File can't be a path, just a filename"));
        assert_eq!(parse_manifest(b"file a seq 1 type x\n"), Err("Unknown AOF file type"));
        assert_eq!(parse_manifest(b"file a seq 1\n"), Err("Invalid AOF manifest file format"));
    }

    #[test]
    fn a_manifest_through_two_rewrites() {
        // As redis-server 7.0.15 names its files: started with appendonly yes, then BGREWRITEAOF
        // twice (the new incr file is opened when the rewrite starts).
        let mut m = Manifest::default();
        assert_eq!(m.new_base("appendonly.aof", true), "appendonly.aof.1.base.rdb");
        assert_eq!(m.last_incr("appendonly.aof"), "appendonly.aof.1.incr.aof");
        assert_eq!(
            String::from_utf8_lossy(&m.format()),
            "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"
        );
        assert_eq!(m.new_incr("appendonly.aof"), "appendonly.aof.2.incr.aof");
        m.new_base("appendonly.aof", true);
        m.mark_rewritten_incr_as_history(true);
        assert_eq!(
            String::from_utf8_lossy(&m.format()),
            "file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.1.incr.aof seq 1 type h\n\
             file appendonly.aof.1.base.rdb seq 1 type h\nfile appendonly.aof.2.incr.aof seq 2 type i\n"
        );
        assert_eq!(Manifest::from_files(parse_manifest(&m.format()).unwrap()), m);
        let loaded: Vec<&[u8]> = m.loaded_files().map(|f| f.name.as_slice()).collect();
        assert_eq!(loaded, [&b"appendonly.aof.2.base.rdb"[..], b"appendonly.aof.2.incr.aof"]);
        // With the AOF off (a BGREWRITEAOF of a server without appendonly), every incr is covered.
        m.mark_rewritten_incr_as_history(false);
        assert!(m.incr.is_empty());
    }
}
