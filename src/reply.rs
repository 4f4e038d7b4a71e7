//! Replies as data, and the two ways of printing them.
//!
//! `Reply` is what a command returns: signed integers (TTL is -1/-2), bulk strings as bytes,
//! the two RESP2 nulls (a null bulk and a null array both print `(nil)` but are different
//! values), doubles, which RESP2 sends as bulk strings in `%.17g` form, and the RESP3 shapes
//! a command chooses as Redis does (networking.c `addReplyMapLen`, `addReplySetLen`,
//! `addReplyPushLen`, `addReplyVerbatim`, `addReplyBool`): maps, sets, push messages,
//! verbatim text, booleans and member/score pairs. Each has its RESP2 rendering — a map is
//! sent flat, a set or push as an array, verbatim text as a bulk, a boolean as 1/0 — so a
//! command builds one reply and the client's protocol (`HELLO 2|3`) decides the bytes.
//!
//! `to_cli()` / `to_cli_proto()` model redis-cli.c `cliFormatReplyTTY()` (what
//! `redis-cli --no-raw` prints, over RESP2 or after `HELLO 3`); `to_cli_raw()` models
//! `cliFormatReplyRaw()` (what `redis-cli --raw` prints, and what every redis-cli prints for
//! INFO and the other verbatim commands); `encode()` is the wire encoding for either protocol
//! (networking.c's `addReply*` family).

use crate::util::fmt_double;

#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// `+OK`, `+PONG`, TYPE's `string`…
    Status(String),
    /// `-ERR …`: the whole message after the `-`, including its code. Bytes, because Redis
    /// echoes user input (an unknown command's name) into errors verbatim.
    Error(Vec<u8>),
    Integer(i64),
    Bulk(Vec<u8>),
    /// A null bulk string (`$-1`).
    Nil,
    /// A null array (`*-1`): EXEC after a failed WATCH, blocking pops that time out.
    NilArray,
    Array(Vec<Reply>),
    /// A double; RESP2 sends it as a bulk string formatted with `%.17g`, RESP3 as `,%.17g`.
    Double(f64),
    /// A map (`%`): HGETALL, CONFIG GET, HELLO… RESP2 sends the 2n elements flat.
    Map(Vec<(Reply, Reply)>),
    /// A set (`~`): SMEMBERS, SINTER… RESP2 sends an array.
    Set(Vec<Reply>),
    /// A push message (`>`): Pub/Sub messages and (un)subscribe confirmations. RESP2: an array.
    Push(Vec<Reply>),
    /// Verbatim text (`=N\r\ntxt:…`): INFO, CLIENT LIST. RESP2: a bulk string.
    Verbatim(Vec<u8>),
    /// A boolean (`#t`/`#f`). RESP2: the integer 1 or 0.
    Bool(bool),
    /// A long double already formatted (networking.c `addReplyHumanLongDouble()`: GEOPOS and
    /// WITHCOORD): a bulk of that text over RESP2, `,<text>` over RESP3.
    HumanDouble(Vec<u8>),
    /// Bytes written as they are, whatever the protocol: a replica's stream (`+FULLRESYNC`,
    /// the RDB payload, the commands) in its client's outbox (replication.rs).
    Raw(Vec<u8>),
    /// A big number (`(digits`), from a script's `{big_number=…}`. RESP2: a bulk.
    BigNumber(Vec<u8>),
    /// Member/score (or field/value) pairs: ZRANGE … WITHSCORES, HRANDFIELD … WITHVALUES.
    /// RESP2 sends them flat; RESP3 as an array of two-element arrays (t_zset.c
    /// `zrangeResultEmitCBufferForClient`: `if (c->resp > 2) addReplyArrayLen(c,2)`).
    Pairs(Vec<(Reply, Reply)>),
    /// Key/value pairs that RESP3 sends as a map and RESP2 as an array of two-element arrays:
    /// XREAD/XREADGROUP's streams (t_stream.c `if (c->resp == 2) addReplyArrayLen(c,2)` else
    /// `addReplyMapLen`).
    KeyedMap(Vec<(Reply, Reply)>),
    /// A RESP3-only frame sent just before the reply (debug.c DEBUG PROTOCOL `attrib`/`push`):
    /// a map in first place goes out as an attribute (`|`), a push as a push (`>`). RESP2
    /// clients, and redis-cli's printing, get the reply alone.
    Preceded(Box<Reply>, Box<Reply>),
}

impl Reply {
    pub fn ok() -> Reply {
        Reply::Status("OK".into())
    }
    pub fn err(msg: impl Into<String>) -> Reply {
        Reply::Error(msg.into().into_bytes())
    }
    pub fn bulk(b: impl AsRef<[u8]>) -> Reply {
        Reply::Bulk(b.as_ref().to_vec())
    }
    pub fn is_error(&self) -> bool {
        matches!(self, Reply::Error(_))
    }
    pub fn bulks<I, B>(items: I) -> Reply
    where
        I: IntoIterator<Item = B>,
        B: AsRef<[u8]>,
    {
        Reply::Array(items.into_iter().map(|b| Reply::bulk(b)).collect())
    }

    /// What redis-cli prints for this reply in TTY (`--no-raw`) mode over RESP2, final
    /// newline included.
    pub fn to_cli(&self) -> Vec<u8> {
        self.to_cli_proto(2)
    }

    /// What redis-cli prints for this reply when the connection speaks `proto` (2 or 3).
    pub fn to_cli_proto(&self, proto: u8) -> Vec<u8> {
        let mut out = Vec::new();
        if proto >= 3 {
            format_tty(self, b"", 3, &mut out);
        } else {
            format_tty(&self.as_resp2(), b"", 2, &mut out);
        }
        out
    }

    /// redis-cli.c `cliFormatReplyRaw()` for a connection speaking `proto`: bytes as they are
    /// (no quoting, so `北京` prints as 北京), an error's text and a newline, nothing for a null,
    /// aggregates one element per line (nested ones flattened), a RESP3 map's key and value on
    /// one line separated by a space, `(true)`/`(false)` for RESP3 booleans. No final newline:
    /// `redis-cli --raw` adds one per reply, the verbatim commands (INFO…) none.
    ///
    /// A RESP3 big number is a reply type redis-cli 7.0's raw formatter does not know: it
    /// prints `Unknown reply type: 13` and exits — `Err(UnknownReplyType(13))`.
    pub fn to_cli_raw(&self, proto: u8) -> Result<Vec<u8>, UnknownReplyType> {
        let mut out = Vec::new();
        if proto >= 3 {
            format_raw(self, &mut out)?;
        } else {
            format_raw(&self.as_resp2(), &mut out)?;
        }
        Ok(out)
    }

    /// The RESP2 encoding of the reply.
    pub fn to_resp(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode(2, &mut out);
        out
    }

    /// Appends the wire encoding for a client speaking `proto` (2, or 3 after `HELLO 3`).
    pub fn encode(&self, proto: u8, out: &mut Vec<u8>) {
        if proto >= 3 {
            encode_resp3(self, out);
        } else {
            encode_resp2(self, out);
        }
    }

    /// The same reply as a RESP2 client receives it: maps and pairs flat, sets and pushes as
    /// arrays, verbatim text as a bulk, booleans as 1/0. Nothing to do for plain replies.
    pub fn into_resp2(self) -> Reply {
        if !self.has_resp3_shape() {
            return self;
        }
        match self {
            Reply::Map(kv) | Reply::Pairs(kv) => {
                Reply::Array(kv.into_iter().flat_map(|(k, v)| [k.into_resp2(), v.into_resp2()]).collect())
            }
            Reply::Set(items) | Reply::Push(items) | Reply::Array(items) => {
                Reply::Array(items.into_iter().map(Reply::into_resp2).collect())
            }
            Reply::KeyedMap(kv) => {
                Reply::Array(kv.into_iter().map(|(k, v)| Reply::Array(vec![k.into_resp2(), v.into_resp2()])).collect())
            }
            Reply::Verbatim(b) | Reply::HumanDouble(b) | Reply::BigNumber(b) => Reply::Bulk(b),
            Reply::Bool(b) => Reply::Integer(b as i64),
            Reply::Preceded(_, reply) => reply.into_resp2(),
            other => other,
        }
    }

    /// `into_resp2` for a borrowed reply (clones only what it must).
    pub fn as_resp2(&self) -> std::borrow::Cow<'_, Reply> {
        if self.has_resp3_shape() {
            std::borrow::Cow::Owned(self.clone().into_resp2())
        } else {
            std::borrow::Cow::Borrowed(self)
        }
    }

    fn has_resp3_shape(&self) -> bool {
        match self {
            Reply::Map(_)
            | Reply::Set(_)
            | Reply::Push(_)
            | Reply::Verbatim(_)
            | Reply::Bool(_)
            | Reply::Pairs(_)
            | Reply::KeyedMap(_)
            | Reply::HumanDouble(_)
            | Reply::BigNumber(_)
            | Reply::Preceded(..) => true,
            Reply::Array(items) => items.iter().any(Reply::has_resp3_shape),
            _ => false,
        }
    }

    /// The elements of an array-like reply (array, set, push; maps and pairs flattened) —
    /// for code that reads a reply as a list whatever its RESP3 shape.
    pub fn into_items(self) -> Option<Vec<Reply>> {
        match self.into_resp2() {
            Reply::Array(items) => Some(items),
            _ => None,
        }
    }
}

/// redis-cli.c `cliFormatReplyTTY()`: nested arrays start on their parent's line and indent by
/// the width of the largest index plus two.
fn format_tty(r: &Reply, prefix: &[u8], proto: u8, out: &mut Vec<u8>) {
    match r {
        Reply::Preceded(_, reply) => format_tty(reply, prefix, proto, out),
        Reply::Error(msg) => {
            // `sdscatprintf("(error) %s\n")`: a NUL ends the message.
            out.extend_from_slice(b"(error) ");
            out.extend_from_slice(msg.split(|&b| b == 0).next().unwrap_or(b""));
            out.push(b'\n');
        }
        Reply::Status(s) => {
            out.extend_from_slice(s.as_bytes());
            out.push(b'\n');
        }
        Reply::Integer(n) => {
            out.extend_from_slice(format!("(integer) {n}\n").as_bytes());
        }
        Reply::Bulk(b) => {
            cat_repr(out, b);
            out.push(b'\n');
        }
        Reply::Double(d) if proto < 3 => {
            cat_repr(out, fmt_double(*d).as_bytes());
            out.push(b'\n');
        }
        // RESP3: `(double) %s` with the text hiredis received.
        Reply::Double(d) => framed(out, b"(double) ", fmt_double(*d).as_bytes(), b"\n"),
        Reply::Bool(b) => out.extend_from_slice(if *b { b"(true)\n" } else { b"(false)\n" }),
        Reply::HumanDouble(b) => framed(out, b"(double) ", b, b"\n"),
        Reply::BigNumber(b) => framed(out, b"(big number) ", b, b"\n"),
        Reply::Raw(b) => {
            cat_repr(out, b);
            out.push(b'\n');
        }
        // hiredis hands redis-cli the text after `txt:`, which it prints as is.
        Reply::Verbatim(b) => framed(out, b"", b, b"\n"),
        Reply::Nil | Reply::NilArray => out.extend_from_slice(b"(nil)\n"),
        Reply::Array(items) => {
            format_aggregate(items.iter().map(Entry::One), items.len(), b')', b"(empty array)\n", prefix, proto, out)
        }
        Reply::Set(items) => {
            format_aggregate(items.iter().map(Entry::One), items.len(), b'~', b"(empty set)\n", prefix, proto, out)
        }
        Reply::Push(items) => {
            format_aggregate(items.iter().map(Entry::One), items.len(), b')', b"(empty push)\n", prefix, proto, out)
        }
        Reply::Map(kv) | Reply::KeyedMap(kv) => format_aggregate(
            kv.iter().map(|(k, v)| Entry::KeyValue(k, v)),
            kv.len(),
            b'#',
            b"(empty hash)\n",
            prefix,
            proto,
            out,
        ),
        // Over RESP3 (RESP2 flattened them first): an array of two-element arrays.
        Reply::Pairs(kv) => format_aggregate(
            kv.iter().map(|(k, v)| Entry::Pair(k, v)),
            kv.len(),
            b')',
            b"(empty array)\n",
            prefix,
            proto,
            out,
        ),
    }
}

/// A reply redis-cli's raw formatter has no case for: hiredis's type number (13, a big
/// number). redis-cli prints `Unknown reply type: N` on stderr and exits with status 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownReplyType(pub u8);

impl std::fmt::Display for UnknownReplyType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Unknown reply type: {}", self.0)
    }
}

/// hiredis's REDIS_REPLY_BIGNUM.
const REDIS_REPLY_BIGNUM: u8 = 13;

/// redis-cli.c `cliFormatReplyRaw()` over what hiredis parsed (RESP2 shapes already flattened
/// by the caller for a RESP2 connection).
fn format_raw(r: &Reply, out: &mut Vec<u8>) -> Result<(), UnknownReplyType> {
    match r {
        // What precedes a reply (DEBUG PROTOCOL's attribute or push) is not its text.
        Reply::Preceded(_, reply) => format_raw(reply, out)?,
        Reply::Nil | Reply::NilArray => {}
        // `sdscatlen(r->str, r->len)`: the whole message, NULs included.
        Reply::Error(e) => {
            out.extend_from_slice(e);
            out.push(b'\n');
        }
        Reply::Status(s) => out.extend_from_slice(s.as_bytes()),
        Reply::Bulk(b) | Reply::Verbatim(b) | Reply::HumanDouble(b) | Reply::Raw(b) => out.extend_from_slice(b),
        Reply::Integer(n) => out.extend_from_slice(n.to_string().as_bytes()),
        // The text the server sent (`%.17g`, `inf`), as hiredis keeps it.
        Reply::Double(d) => out.extend_from_slice(fmt_double(*d).as_bytes()),
        Reply::Bool(b) => out.extend_from_slice(if *b { b"(true)" } else { b"(false)" }),
        Reply::BigNumber(_) => return Err(UnknownReplyType(REDIS_REPLY_BIGNUM)),
        Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b'\n');
                }
                format_raw(item, out)?;
            }
        }
        // RESP3 sends member/score pairs as two-element arrays: flattened like any array.
        Reply::Pairs(kv) => {
            for (i, (k, v)) in kv.iter().enumerate() {
                if i > 0 {
                    out.push(b'\n');
                }
                format_raw(k, out)?;
                out.push(b'\n');
                format_raw(v, out)?;
            }
        }
        Reply::Map(kv) | Reply::KeyedMap(kv) => {
            for (i, (k, v)) in kv.iter().enumerate() {
                if i > 0 {
                    out.push(b'\n');
                }
                format_raw(k, out)?;
                out.push(b' ');
                format_raw(v, out)?;
            }
        }
    }
    Ok(())
}

/// redis-cli.c `cliIsMultilineValueTTY()`.
fn is_multiline(r: &Reply) -> bool {
    match r {
        Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => match items.len() {
            0 => false,
            1 => is_multiline(&items[0]),
            _ => true,
        },
        Reply::Pairs(kv) => !kv.is_empty(),
        Reply::Preceded(_, reply) => is_multiline(reply),
        Reply::Map(kv) | Reply::KeyedMap(kv) => match kv.len() {
            0 => false,
            1 => is_multiline(&kv[0].1),
            _ => true,
        },
        _ => false,
    }
}

enum Entry<'a> {
    One(&'a Reply),
    /// A map's key and value, on one line.
    KeyValue(&'a Reply, &'a Reply),
    /// A member/score pair, printed as the two-element array RESP3 sends.
    Pair(&'a Reply, &'a Reply),
}

/// The aggregate branch of `cliFormatReplyTTY()`: `n) ` / `n~ ` / `n# ` indexes right-aligned
/// to the widest (a map counts its pairs), nested replies indented by that width plus two, a
/// map's value after ` => ` on its key's line.
#[allow(clippy::too_many_arguments)]
fn format_aggregate<'a>(
    items: impl Iterator<Item = Entry<'a>>,
    n: usize,
    sep: u8,
    empty: &[u8],
    prefix: &[u8],
    proto: u8,
    out: &mut Vec<u8>,
) {
    if n == 0 {
        out.extend_from_slice(empty);
        return;
    }
    let idxlen = n.to_string().len();
    let mut child_prefix = prefix.to_vec();
    child_prefix.extend(std::iter::repeat_n(b' ', idxlen + 2));
    for (i, entry) in items.enumerate() {
        if i > 0 {
            out.extend_from_slice(prefix);
        }
        out.extend_from_slice(format!("{:>width$}{} ", i + 1, sep as char, width = idxlen).as_bytes());
        match entry {
            Entry::One(item) => format_tty(item, &child_prefix, proto, out),
            Entry::Pair(k, v) => {
                format_aggregate([k, v].into_iter().map(Entry::One), 2, b')', b"", &child_prefix, proto, out)
            }
            Entry::KeyValue(k, v) => {
                format_tty(k, &child_prefix, proto, out);
                out.pop();
                out.extend_from_slice(b" => ");
                // A value printed on several lines starts on the next one, indented.
                if is_multiline(v) {
                    out.push(b'\n');
                    out.extend_from_slice(&child_prefix);
                }
                format_tty(v, &child_prefix, proto, out);
            }
        }
    }
}

/// sds.c `sdscatrepr()`: a quoted string with C escapes; bytes outside 0x20..0x7e as `\xhh`.
pub fn cat_repr(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'"');
    for &c in s {
        match c {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            7 => out.extend_from_slice(b"\\a"),
            8 => out.extend_from_slice(b"\\b"),
            0x20..=0x7e => out.push(c),
            _ => out.extend_from_slice(format!("\\x{c:02x}").as_bytes()),
        }
    }
    out.push(b'"');
}

/// A RESP line of a type byte and a decimal number (`:12`, `$5`, `*3`), as networking.c
/// `_addReplyLongLongWithPrefix()` writes it, without formatting machinery.
fn push_header(out: &mut Vec<u8>, prefix: u8, n: i64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut v = n.unsigned_abs();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.push(prefix);
    if n < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(&digits[i..]);
    out.extend_from_slice(b"\r\n");
}

fn encode_resp2(r: &Reply, out: &mut Vec<u8>) {
    match r {
        Reply::Status(s) => {
            out.push(b'+');
            out.extend_from_slice(s.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        Reply::Error(s) => {
            out.push(b'-');
            out.extend_from_slice(s);
            out.extend_from_slice(b"\r\n");
        }
        Reply::Integer(n) => push_header(out, b':', *n),
        Reply::Bulk(b) => {
            push_header(out, b'$', b.len() as i64);
            out.extend_from_slice(b);
            out.extend_from_slice(b"\r\n");
        }
        Reply::Double(d) => encode_bulk(fmt_double(*d).as_bytes(), out),
        Reply::Nil => out.extend_from_slice(b"$-1\r\n"),
        Reply::NilArray => out.extend_from_slice(b"*-1\r\n"),
        Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => {
            push_header(out, b'*', items.len() as i64);
            for item in items {
                encode_resp2(item, out);
            }
        }
        Reply::Map(kv) | Reply::Pairs(kv) => {
            push_header(out, b'*', (kv.len() * 2) as i64);
            for (k, v) in kv {
                encode_resp2(k, out);
                encode_resp2(v, out);
            }
        }
        Reply::Verbatim(b) | Reply::HumanDouble(b) | Reply::BigNumber(b) => encode_bulk(b, out),
        Reply::Raw(b) => out.extend_from_slice(b),
        Reply::Bool(b) => out.extend_from_slice(if *b { b":1\r\n" } else { b":0\r\n" }),
        Reply::KeyedMap(kv) => {
            push_header(out, b'*', kv.len() as i64);
            for (k, v) in kv {
                out.extend_from_slice(b"*2\r\n");
                encode_resp2(k, out);
                encode_resp2(v, out);
            }
        }
        Reply::Preceded(_, reply) => encode_resp2(reply, out),
    }
}

/// `prefix`, `body`, `end`: one line of redis-cli output or one RESP3 simple frame.
fn framed(out: &mut Vec<u8>, prefix: &[u8], body: &[u8], end: &[u8]) {
    out.extend_from_slice(prefix);
    out.extend_from_slice(body);
    out.extend_from_slice(end);
}

fn encode_bulk(b: &[u8], out: &mut Vec<u8>) {
    push_header(out, b'$', b.len() as i64);
    out.extend_from_slice(b);
    out.extend_from_slice(b"\r\n");
}

/// RESP3 (networking.c with `c->resp == 3`): `_` for both nulls, `,` doubles (`,inf`),
/// `%` maps, `~` sets, `>` pushes, `=N\r\ntxt:` verbatim text, `#t`/`#f`.
fn encode_resp3(r: &Reply, out: &mut Vec<u8>) {
    match r {
        Reply::Nil | Reply::NilArray => out.extend_from_slice(b"_\r\n"),
        Reply::Double(d) => framed(out, b",", fmt_double(*d).as_bytes(), b"\r\n"),
        Reply::Bool(b) => out.extend_from_slice(if *b { b"#t\r\n" } else { b"#f\r\n" }),
        Reply::HumanDouble(b) => framed(out, b",", b, b"\r\n"),
        Reply::BigNumber(b) => framed(out, b"(", b, b"\r\n"),
        Reply::Raw(b) => out.extend_from_slice(b),
        Reply::Verbatim(b) => {
            out.extend_from_slice(format!("={}\r\ntxt:", b.len() + 4).as_bytes());
            out.extend_from_slice(b);
            out.extend_from_slice(b"\r\n");
        }
        Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => {
            let mark = match r {
                Reply::Set(_) => '~',
                Reply::Push(_) => '>',
                _ => '*',
            };
            push_header(out, mark as u8, items.len() as i64);
            for item in items {
                encode_resp3(item, out);
            }
        }
        Reply::Map(kv) | Reply::KeyedMap(kv) => {
            push_header(out, b'%', kv.len() as i64);
            for (k, v) in kv {
                encode_resp3(k, out);
                encode_resp3(v, out);
            }
        }
        Reply::Pairs(kv) => {
            push_header(out, b'*', kv.len() as i64);
            for (k, v) in kv {
                out.extend_from_slice(b"*2\r\n");
                encode_resp3(k, out);
                encode_resp3(v, out);
            }
        }
        Reply::Preceded(pre, reply) => {
            match &**pre {
                Reply::Map(kv) => {
                    push_header(out, b'|', kv.len() as i64);
                    for (k, v) in kv {
                        encode_resp3(k, out);
                        encode_resp3(v, out);
                    }
                }
                other => encode_resp3(other, out),
            }
            encode_resp3(reply, out);
        }
        Reply::Status(_) | Reply::Error(_) | Reply::Integer(_) | Reply::Bulk(_) => encode_resp2(r, out),
    }
}

/// Parses one RESP2 or RESP3 reply from the front of `buf`, returning it and the bytes
/// consumed. Used to load the recorded command metadata (COMMAND INFO/DOCS, recorded over
/// RESP3) and by tests; `None` on malformed or incomplete input.
pub fn parse_resp(buf: &[u8]) -> Option<(Reply, usize)> {
    let line_end = buf.windows(2).position(|w| w == b"\r\n")?;
    let raw_line = &buf[1..line_end];
    let rest = line_end + 2;
    // Errors and statuses may carry any bytes (an unknown command's name is echoed).
    match *buf.first()? {
        b'+' => return Some((Reply::Status(String::from_utf8_lossy(raw_line).into_owned()), rest)),
        b'-' => return Some((Reply::Error(raw_line.to_vec()), rest)),
        _ => {}
    }
    let line = std::str::from_utf8(raw_line).ok()?;
    match *buf.first()? {
        b':' => Some((Reply::Integer(line.parse().ok()?), rest)),
        b',' => Some((
            Reply::Double(crate::util::string2d(line.as_bytes()).or(match line {
                "inf" => Some(f64::INFINITY),
                "-inf" => Some(f64::NEG_INFINITY),
                _ => None,
            })?),
            rest,
        )),
        b'_' => Some((Reply::Nil, rest)),
        b'#' => Some((Reply::Bool(line == "t"), rest)),
        b'(' => Some((Reply::BigNumber(line.as_bytes().to_vec()), rest)),
        b'$' | b'=' => {
            let n: i64 = line.parse().ok()?;
            if n < 0 {
                return Some((Reply::Nil, rest));
            }
            let n = n as usize;
            let body = buf.get(rest..rest + n)?.to_vec();
            let reply = match buf[0] {
                b'=' => Reply::Verbatim(body.get(4..)?.to_vec()),
                _ => Reply::Bulk(body),
            };
            Some((reply, rest + n + 2))
        }
        b'*' | b'~' | b'>' | b'%' => {
            let n: i64 = line.parse().ok()?;
            if n < 0 {
                return Some((Reply::NilArray, rest));
            }
            let count = if buf[0] == b'%' { n.checked_mul(2)? } else { n };
            let mut items = Vec::with_capacity(count.min(1024) as usize);
            let mut pos = rest;
            for _ in 0..count {
                let (item, used) = parse_resp(buf.get(pos..)?)?;
                items.push(item);
                pos += used;
            }
            let reply = match buf[0] {
                b'~' => Reply::Set(items),
                b'>' => Reply::Push(items),
                b'%' => {
                    let mut it = items.into_iter();
                    let mut kv = Vec::new();
                    while let (Some(k), Some(v)) = (it.next(), it.next()) {
                        kv.push((k, v));
                    }
                    Reply::Map(kv)
                }
                _ => Reply::Array(items),
            };
            Some((reply, pos))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_written_as_format_would() {
        for n in [0, 1, -1, 9, 10, 99, 100, 12345, -987654, i64::MAX, i64::MIN] {
            let mut out = Vec::new();
            push_header(&mut out, b':', n);
            assert_eq!(out, format!(":{n}\r\n").into_bytes());
        }
    }

    fn cli(r: &Reply) -> String {
        String::from_utf8(r.to_cli()).unwrap()
    }

    #[test]
    fn nested_arrays_indent_by_index_width() {
        let r = Reply::Array(vec![
            Reply::Integer(1),
            Reply::bulk("two"),
            Reply::Array(vec![Reply::Integer(3), Reply::Array(vec![Reply::bulk("four"), Reply::Array(vec![])])]),
            Reply::err("My error"),
        ]);
        assert_eq!(
            cli(&r),
            "1) (integer) 1\n2) \"two\"\n3) 1) (integer) 3\n   2) 1) \"four\"\n      2) (empty array)\n4) (error) My error\n"
        );
    }

    #[test]
    fn ten_elements_right_align_the_index() {
        let r =
            Reply::Array(vec![Reply::bulk("a"), Reply::Array((0..10).map(|i| Reply::bulk(format!("{i}"))).collect())]);
        let s = cli(&r);
        assert!(s.starts_with("1) \"a\"\n2)  1) \"0\"\n    2) \"1\"\n"), "{s}");
        assert!(s.ends_with("   10) \"9\"\n"), "{s}");
    }

    #[test]
    fn bulk_escapes_like_sdscatrepr() {
        assert_eq!(cli(&Reply::bulk(b"a\"\\\n\x07\xc3\xa9 ~")), "\"a\\\"\\\\\\n\\a\\xc3\\xa9 ~\"\n");
    }

    fn raw(r: &Reply, proto: u8) -> String {
        String::from_utf8(r.to_cli_raw(proto).unwrap()).unwrap()
    }

    #[test]
    fn raw_prints_bytes_as_they_are_and_flattens_aggregates() {
        assert_eq!(raw(&Reply::bulk("北京"), 2), "北京");
        assert_eq!(raw(&Reply::Nil, 2), "");
        assert_eq!(raw(&Reply::err("ERR x"), 2), "ERR x\n");
        let nested = Reply::Array(vec![
            Reply::Integer(1),
            Reply::Array(vec![Reply::Integer(2), Reply::Array(vec![Reply::bulk("x"), Reply::Nil])]),
            Reply::Array(vec![]),
        ]);
        assert_eq!(raw(&nested, 2), "1\n2\nx\n\n");
        let map = Reply::Map(vec![(Reply::bulk("a"), Reply::Integer(1)), (Reply::bulk("m"), Reply::Array(vec![]))]);
        assert_eq!(raw(&map, 2), "a\n1\nm\n");
        assert_eq!(raw(&map, 3), "a 1\nm ");
        assert_eq!(raw(&Reply::Bool(true), 3), "(true)");
        assert_eq!(raw(&Reply::Bool(false), 2), "0");
        assert_eq!(raw(&Reply::Double(1.5), 3), "1.5");
        assert_eq!(Reply::BigNumber(b"1".to_vec()).to_cli_raw(3), Err(UnknownReplyType(13)));
        assert_eq!(raw(&Reply::BigNumber(b"12".to_vec()), 2), "12");
    }

    #[test]
    fn resp_round_trip() {
        let r = Reply::Array(vec![Reply::Nil, Reply::Integer(-2), Reply::bulk("x\r\ny"), Reply::ok()]);
        let enc = r.to_resp();
        assert_eq!(parse_resp(&enc), Some((r, enc.len())));
    }
}
