//! Replies as data, and the two ways of printing them.
//!
//! `Reply` is what a command returns: signed integers (TTL is -1/-2), bulk strings as bytes,
//! the two RESP2 nulls (a null bulk and a null array both print `(nil)` but are different
//! values), and doubles, which RESP2 sends as bulk strings in `%.17g` form.
//!
//! `to_cli()` models redis-cli.c `cliFormatReplyTTY()` (what `redis-cli --no-raw` prints);
//! `to_resp()` is the RESP2 wire encoding, for a raw-protocol view and the future server.

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
    /// A double; RESP2 sends it as a bulk string formatted with `%.17g`.
    Double(f64),
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

    /// What redis-cli prints for this reply in TTY (`--no-raw`) mode, final newline included.
    pub fn to_cli(&self) -> Vec<u8> {
        let mut out = Vec::new();
        format_tty(self, b"", &mut out);
        out
    }

    /// The RESP2 encoding of the reply.
    pub fn to_resp(&self) -> Vec<u8> {
        let mut out = Vec::new();
        encode_resp2(self, &mut out);
        out
    }
}

/// redis-cli.c `cliFormatReplyTTY()`: nested arrays start on their parent's line and indent by
/// the width of the largest index plus two.
fn format_tty(r: &Reply, prefix: &[u8], out: &mut Vec<u8>) {
    match r {
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
        Reply::Double(d) => {
            cat_repr(out, fmt_double(*d).as_bytes());
            out.push(b'\n');
        }
        Reply::Nil | Reply::NilArray => out.extend_from_slice(b"(nil)\n"),
        Reply::Array(items) => {
            if items.is_empty() {
                out.extend_from_slice(b"(empty array)\n");
                return;
            }
            let idxlen = items.len().to_string().len();
            let mut child_prefix = prefix.to_vec();
            child_prefix.extend(std::iter::repeat(b' ').take(idxlen + 2));
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(prefix);
                }
                out.extend_from_slice(format!("{:>width$}) ", i + 1, width = idxlen).as_bytes());
                format_tty(item, &child_prefix, out);
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
        Reply::Integer(n) => out.extend_from_slice(format!(":{n}\r\n").as_bytes()),
        Reply::Bulk(b) => {
            out.extend_from_slice(format!("${}\r\n", b.len()).as_bytes());
            out.extend_from_slice(b);
            out.extend_from_slice(b"\r\n");
        }
        Reply::Double(d) => encode_resp2(&Reply::Bulk(fmt_double(*d).into_bytes()), out),
        Reply::Nil => out.extend_from_slice(b"$-1\r\n"),
        Reply::NilArray => out.extend_from_slice(b"*-1\r\n"),
        Reply::Array(items) => {
            out.extend_from_slice(format!("*{}\r\n", items.len()).as_bytes());
            for item in items {
                encode_resp2(item, out);
            }
        }
    }
}

/// Parses one RESP2 reply from the front of `buf`, returning it and the bytes consumed.
/// Used to load the recorded command metadata (COMMAND INFO/DOCS); `None` on malformed input.
pub fn parse_resp(buf: &[u8]) -> Option<(Reply, usize)> {
    let line_end = buf.windows(2).position(|w| w == b"\r\n")?;
    let line = std::str::from_utf8(&buf[1..line_end]).ok()?;
    let rest = line_end + 2;
    match *buf.first()? {
        b'+' => Some((Reply::Status(line.to_string()), rest)),
        b'-' => Some((Reply::Error(line.as_bytes().to_vec()), rest)),
        b':' => Some((Reply::Integer(line.parse().ok()?), rest)),
        b'$' => {
            let n: i64 = line.parse().ok()?;
            if n < 0 {
                return Some((Reply::Nil, rest));
            }
            let n = n as usize;
            let body = buf.get(rest..rest + n)?.to_vec();
            Some((Reply::Bulk(body), rest + n + 2))
        }
        b'*' => {
            let n: i64 = line.parse().ok()?;
            if n < 0 {
                return Some((Reply::NilArray, rest));
            }
            let mut items = Vec::with_capacity(n as usize);
            let mut pos = rest;
            for _ in 0..n {
                let (item, used) = parse_resp(&buf[pos..])?;
                items.push(item);
                pos += used;
            }
            Some((Reply::Array(items), pos))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(r: &Reply) -> String {
        String::from_utf8(r.to_cli()).unwrap()
    }

    #[test]
    fn nested_arrays_indent_by_index_width() {
        let r = Reply::Array(vec![
            Reply::Integer(1),
            Reply::bulk("two"),
            Reply::Array(vec![
                Reply::Integer(3),
                Reply::Array(vec![Reply::bulk("four"), Reply::Array(vec![])]),
            ]),
            Reply::err("My error"),
        ]);
        assert_eq!(
            cli(&r),
            "1) (integer) 1\n2) \"two\"\n3) 1) (integer) 3\n   2) 1) \"four\"\n      2) (empty array)\n4) (error) My error\n"
        );
    }

    #[test]
    fn ten_elements_right_align_the_index() {
        let r = Reply::Array(vec![
            Reply::bulk("a"),
            Reply::Array((0..10).map(|i| Reply::bulk(format!("{i}"))).collect()),
        ]);
        let s = cli(&r);
        assert!(s.starts_with("1) \"a\"\n2)  1) \"0\"\n    2) \"1\"\n"), "{s}");
        assert!(s.ends_with("   10) \"9\"\n"), "{s}");
    }

    #[test]
    fn bulk_escapes_like_sdscatrepr() {
        assert_eq!(cli(&Reply::bulk(b"a\"\\\n\x07\xc3\xa9 ~")), "\"a\\\"\\\\\\n\\a\\xc3\\xa9 ~\"\n");
    }

    #[test]
    fn resp_round_trip() {
        let r = Reply::Array(vec![Reply::Nil, Reply::Integer(-2), Reply::bulk("x\r\ny"), Reply::ok()]);
        let enc = r.to_resp();
        assert_eq!(parse_resp(&enc), Some((r, enc.len())));
    }
}
