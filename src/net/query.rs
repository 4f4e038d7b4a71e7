//! A client's query buffer: bytes from the network in, commands (argv) out — networking.c
//! `processInputBuffer()`, `processInlineBuffer()` and `processMultibulkBuffer()` of Redis 7.0.
//!
//! Pure: no sockets here. The server (`server.rs`) feeds what it reads and hands each
//! `Parsed::Command` to the engine; the same bytes give the same commands and errors as on
//! redis-server (tests/server_live.rs sends both servers the same hostile bytes).
//!
//! Modelled as Redis does it:
//! - The request type is fixed by the first byte of each request: `*` multibulk, else inline.
//! - Inline: up to `\n` (a `\r` before it dropped), split by `sdssplitargs()` (our
//!   `tokenize::split_args`); an empty line is no command. More than 64 KB without a newline →
//!   `Protocol error: too big inline request`; bad quoting → `unbalanced quotes in request`.
//! - Multibulk: `*<n>` with n ≤ INT_MAX (`invalid multibulk length`), n ≤ 0 is no command; each
//!   argument `$<len>` (`expected '$', got 'c'`; `invalid bulk length` when negative or above
//!   proto-max-bulk-len), then `len` bytes and two more that are skipped unchecked (Redis does
//!   not look at them either: `$4\r\nPINGxx` is PING). Count or length lines over 64 KB give
//!   `too big mbulk count string` / `too big bulk count string`.
//! - Before AUTH on a server with a password: more than 10 arguments → `unauthenticated
//!   multibulk length`, an argument over 16 KB → `unauthenticated bulk length`.
//! - Redis finds line ends with `strchr()`, which stops at a NUL byte: a NUL before the `\r`
//!   (or inline `\n`) means "no line yet". Modelled, so a stray NUL stalls the request as it
//!   does on redis-server until the 64 KB limit.
//!
//! A protocol error is final: the server replies `-ERR <message>` and closes the connection
//! (`setProtocolError()` → CLIENT_CLOSE_AFTER_REPLY); nothing after it is parsed.
//!
//! Deviation: Redis's query buffer grows by reads of 16 KB (or the expected size of a big
//! argument) and is trimmed lazily; ours is a `Vec` compacted when the consumed part is large.
//! The client-query-buffer-limit check (close without a reply) is the server's, on `len()`.
//! The server parses after each read of at most 16 KB, as Redis does after each read; but
//! Redis's reads grow (16 KB, then about 64 KB, then more, as its sds buffer grows), so a line
//! whose end lies between 64 and ~80 KB (an argument's `$` line: up to ~190 KB) may be refused
//! as too big by one server and accepted by the other. Past those, both refuse it.

use crate::tokenize::split_args;
use crate::util::string2ll;

/// server.h `PROTO_INLINE_MAX_SIZE`.
pub const PROTO_INLINE_MAX_SIZE: usize = 1024 * 64;

/// What the next request in the buffer is.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// A whole command.
    Command(Vec<Vec<u8>>),
    /// The request was consumed but holds no command (an empty inline line, `*0`, `*-1`).
    Nothing,
    /// More bytes are needed.
    Incomplete,
    /// A protocol error: reply `-ERR <message>` and close.
    Error(String),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum ReqType {
    Unknown,
    Inline,
    Multibulk,
}

#[derive(Debug)]
pub struct QueryBuffer {
    buf: Vec<u8>,
    pos: usize,
    reqtype: ReqType,
    /// Arguments still to read of the current multibulk request (0: none started).
    multibulklen: i64,
    /// Length of the argument being read, -1 when its `$` line is still to come.
    bulklen: i64,
    argv: Vec<Vec<u8>>,
    failed: bool,
    /// proto-max-bulk-len.
    pub max_bulk_len: i64,
    /// The client has not authenticated on a server that requires it.
    pub auth_required: bool,
}

impl Default for QueryBuffer {
    fn default() -> Self {
        QueryBuffer {
            buf: Vec::new(),
            pos: 0,
            reqtype: ReqType::Unknown,
            multibulklen: 0,
            bulklen: -1,
            argv: Vec::new(),
            failed: false,
            max_bulk_len: 512 * 1024 * 1024,
            auth_required: false,
        }
    }
}

/// `strchr(s, c)` over a buffer: the first `c`, unless a NUL comes first.
fn strchr(s: &[u8], c: u8) -> Option<usize> {
    s.iter().position(|&b| b == c || b == 0).filter(|&i| s[i] == c)
}

impl QueryBuffer {
    pub fn new() -> QueryBuffer {
        QueryBuffer::default()
    }

    /// Appends bytes read from the connection.
    pub fn feed(&mut self, data: &[u8]) {
        if self.pos > 0 && self.pos >= self.buf.len() / 2 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        self.buf.extend_from_slice(data);
    }

    /// Bytes held: unparsed input plus the arguments of a half-read command (what Redis's
    /// client-query-buffer-limit looks at).
    pub fn len(&self) -> usize {
        self.buf.len() - self.pos + self.argv.iter().map(Vec::len).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// networking.c `processInputBuffer()`, one request at a time.
    pub fn next_request(&mut self) -> Parsed {
        if self.failed {
            return Parsed::Incomplete;
        }
        if self.pos >= self.buf.len() {
            return Parsed::Incomplete;
        }
        if self.reqtype == ReqType::Unknown {
            self.reqtype = if self.buf[self.pos] == b'*' { ReqType::Multibulk } else { ReqType::Inline };
        }
        let r = match self.reqtype {
            ReqType::Inline => self.inline(),
            _ => self.multibulk(),
        };
        match &r {
            Parsed::Error(_) => self.failed = true,
            Parsed::Command(_) | Parsed::Nothing => {
                self.reqtype = ReqType::Unknown;
                self.multibulklen = 0;
                self.bulklen = -1;
            }
            Parsed::Incomplete => {}
        }
        r
    }

    /// networking.c `processInlineBuffer()`.
    fn inline(&mut self) -> Parsed {
        let rest = &self.buf[self.pos..];
        let Some(mut newline) = strchr(rest, b'\n') else {
            if rest.len() > PROTO_INLINE_MAX_SIZE {
                return Parsed::Error("Protocol error: too big inline request".into());
            }
            return Parsed::Incomplete;
        };
        let mut linefeed = 1;
        if newline > 0 && rest[newline - 1] == b'\r' {
            newline -= 1;
            linefeed += 1;
        }
        let Some(argv) = split_args(&rest[..newline]) else {
            return Parsed::Error("Protocol error: unbalanced quotes in request".into());
        };
        self.pos += newline + linefeed;
        if argv.is_empty() {
            Parsed::Nothing
        } else {
            Parsed::Command(argv)
        }
    }

    /// networking.c `processMultibulkBuffer()`.
    fn multibulk(&mut self) -> Parsed {
        if self.multibulklen == 0 {
            let rest = &self.buf[self.pos..];
            let Some(newline) = strchr(rest, b'\r') else {
                if rest.len() > PROTO_INLINE_MAX_SIZE {
                    return Parsed::Error("Protocol error: too big mbulk count string".into());
                }
                return Parsed::Incomplete;
            };
            // The `\n` must be there too.
            if newline as isize > rest.len() as isize - 2 {
                return Parsed::Incomplete;
            }
            let ll = string2ll(&rest[1..newline]);
            let ll = match ll {
                Some(n) if n <= i32::MAX as i64 => n,
                _ => return Parsed::Error("Protocol error: invalid multibulk length".into()),
            };
            if ll > 10 && self.auth_required {
                return Parsed::Error("Protocol error: unauthenticated multibulk length".into());
            }
            self.pos += newline + 2;
            if ll <= 0 {
                return Parsed::Nothing;
            }
            self.multibulklen = ll;
            self.argv = Vec::with_capacity(ll.min(1024) as usize);
        }
        while self.multibulklen > 0 {
            if self.bulklen == -1 {
                let rest = &self.buf[self.pos..];
                let Some(newline) = strchr(rest, b'\r') else {
                    if rest.len() > PROTO_INLINE_MAX_SIZE {
                        return Parsed::Error("Protocol error: too big bulk count string".into());
                    }
                    return Parsed::Incomplete;
                };
                if newline as isize > rest.len() as isize - 2 {
                    return Parsed::Incomplete;
                }
                if rest[0] != b'$' {
                    // `%c` of the byte: a NUL prints nothing, other bytes as themselves.
                    let c = rest[0];
                    let shown = if c == 0 { String::new() } else { String::from_utf8_lossy(&[c]).into_owned() };
                    return Parsed::Error(format!("Protocol error: expected '$', got '{shown}'"));
                }
                let ll = match string2ll(&rest[1..newline]) {
                    Some(n) if n >= 0 && n <= self.max_bulk_len => n,
                    _ => return Parsed::Error("Protocol error: invalid bulk length".into()),
                };
                if ll > 16384 && self.auth_required {
                    return Parsed::Error("Protocol error: unauthenticated bulk length".into());
                }
                self.pos += newline + 2;
                self.bulklen = ll;
            }
            let need = self.bulklen as usize + 2;
            if self.buf.len() - self.pos < need {
                return Parsed::Incomplete;
            }
            let arg = self.buf[self.pos..self.pos + self.bulklen as usize].to_vec();
            self.argv.push(arg);
            self.pos += need;
            self.bulklen = -1;
            self.multibulklen -= 1;
        }
        Parsed::Command(std::mem::take(&mut self.argv))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(bytes: &[u8]) -> Vec<Parsed> {
        let mut q = QueryBuffer::new();
        q.feed(bytes);
        let mut out = Vec::new();
        loop {
            match q.next_request() {
                Parsed::Incomplete => break,
                p => out.push(p),
            }
        }
        out
    }

    fn cmd(words: &[&str]) -> Parsed {
        Parsed::Command(words.iter().map(|w| w.as_bytes().to_vec()).collect())
    }

    #[test]
    fn inline_and_multibulk_mix() {
        assert_eq!(
            all(b"PING\r\n*0\r\n*-5\r\nSET a \"b c\"\n\r\n*2\r\n$3\r\nGET\r\n$1\r\na\r\n"),
            vec![
                cmd(&["PING"]),
                Parsed::Nothing,
                Parsed::Nothing,
                cmd(&["SET", "a", "b c"]),
                Parsed::Nothing,
                cmd(&["GET", "a"])
            ]
        );
    }

    #[test]
    fn bytes_after_a_bulk_are_skipped_unchecked() {
        assert_eq!(all(b"*1\r\n$4\r\nPINGxx*1\r\n$4\r\nPING\r\n"), vec![cmd(&["PING"]), cmd(&["PING"])]);
    }

    #[test]
    fn split_anywhere_gives_the_same_commands() {
        let input = b"*3\r\n$3\r\nSET\r\n$3\r\nk\x00y\r\n$5\r\nv\r\nal\r\nECHO hi\r\n";
        for cut in 0..input.len() {
            let mut q = QueryBuffer::new();
            let mut got = Vec::new();
            for part in [&input[..cut], &input[cut..]] {
                q.feed(part);
                loop {
                    match q.next_request() {
                        Parsed::Incomplete => break,
                        p => got.push(p),
                    }
                }
            }
            assert_eq!(
                got,
                vec![
                    Parsed::Command(vec![b"SET".to_vec(), b"k\x00y".to_vec(), b"v\r\nal".to_vec()]),
                    cmd(&["ECHO", "hi"])
                ],
                "cut {cut}"
            );
        }
    }

    #[test]
    fn protocol_errors() {
        let err = |b: &[u8]| match all(b).pop() {
            Some(Parsed::Error(m)) => m,
            other => panic!("{other:?}"),
        };
        assert_eq!(err(b"*2147483648\r\n"), "Protocol error: invalid multibulk length");
        assert_eq!(err(b"*abc\r\n"), "Protocol error: invalid multibulk length");
        assert_eq!(err(b"*1\r\nfoo\r\n"), "Protocol error: expected '$', got 'f'");
        assert_eq!(err(b"*1\r\n$-1\r\n"), "Protocol error: invalid bulk length");
        assert_eq!(err(b"*1\r\n$536870913\r\n"), "Protocol error: invalid bulk length");
        assert_eq!(err(b"GET \"a\r\n"), "Protocol error: unbalanced quotes in request");
        assert_eq!(err(&vec![b'x'; PROTO_INLINE_MAX_SIZE + 1]), "Protocol error: too big inline request");
        let mut big = b"*".to_vec();
        big.extend(vec![b'1'; PROTO_INLINE_MAX_SIZE + 1]);
        assert_eq!(err(&big), "Protocol error: too big mbulk count string");
        // A huge count is fine until its arguments fail to come.
        assert_eq!(all(b"*1048577\r\n"), vec![]);
    }

    #[test]
    fn a_nul_before_the_line_end_waits() {
        assert_eq!(all(b"PI\x00NG\r\n"), vec![]);
        assert_eq!(all(b"*1\r\n$4\r\nPING\r\n\x00\x01"), vec![cmd(&["PING"])]);
    }

    #[test]
    fn unauthenticated_limits() {
        let mut q = QueryBuffer { auth_required: true, ..Default::default() };
        q.feed(b"*11\r\n");
        assert_eq!(q.next_request(), Parsed::Error("Protocol error: unauthenticated multibulk length".into()));
        let mut q = QueryBuffer { auth_required: true, ..Default::default() };
        q.feed(b"*1\r\n$16385\r\n");
        assert_eq!(q.next_request(), Parsed::Error("Protocol error: unauthenticated bulk length".into()));
    }
}
