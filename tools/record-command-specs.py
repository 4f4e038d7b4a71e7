#!/usr/bin/env python3
"""Records Redis's own command metadata from a live redis-server 7.0 into src/command/specs.resp.

The engine's command table takes each command's arity, flags, key positions, ACL categories,
docs and HELP text from this file, so `COMMAND INFO`, `COMMAND DOCS` and `<CMD> HELP` answer
byte for byte as redis-server does. The file is one array of entries
`[name, COMMAND INFO entry, COMMAND DOCS body, HELP reply or nil]`, recorded over RESP3 (after
HELLO 3) so maps and sets keep their shape; the engine sends them flat to RESP2 clients, as
Redis does.

Usage: tools/record-command-specs.py PORT [NAME ...]
Re-records every name already in the file plus the NAMEs given (so adding commands never drops
anyone else's).
"""
import os, socket, sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "src", "command", "specs.resp")


def encode(args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a.encode() if isinstance(a, str) else a
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            self.buf += self.s.recv(65536)
        body, self.buf = self.buf[:n], self.buf[n + 2:]
        return body

    def read_raw(self):
        """Returns the reply's RESP bytes (verbatim) and a Python value (maps as flat lists)."""
        line = self._line()
        t, rest = line[:1], line[1:]
        if t in b"+-:,#":
            return line + b"\r\n", (rest.decode() if t != b":" else int(rest))
        if t == b"_":
            return line + b"\r\n", None
        if t in b"$=":
            n = int(rest)
            if n < 0:
                return line + b"\r\n", None
            body = self._exact(n)
            return line + b"\r\n" + body + b"\r\n", body
        if t in b"*~%>":
            n = int(rest)
            if n < 0:
                return line + b"\r\n", None
            if t == b"%":
                n *= 2
            raw, vals = line + b"\r\n", []
            for _ in range(n):
                r, v = self.read_raw()
                raw += r
                vals.append(v)
            return raw, vals
        raise ValueError(line)

    def call(self, *args):
        self.s.sendall(encode(args))
        return self.read_raw()


def split_array(raw):
    """Splits the RESP of an array into the RESP of each element."""
    conn = Conn.__new__(Conn)
    conn.buf = raw
    conn.s = None
    line = conn._line()
    items = []
    n = int(line[1:]) * (2 if line[:1] == b"%" else 1)
    for _ in range(n):
        before = len(conn.buf)
        r, _ = conn.read_raw()
        items.append(r)
    return items


def existing_names():
    if not os.path.exists(OUT):
        return []
    conn = Conn.__new__(Conn)
    conn.buf = open(OUT, "rb").read()
    conn.s = None
    _, entries = conn.read_raw()
    return [e[0].decode() for e in entries]


def main():
    port = int(sys.argv[1])
    names = existing_names() + sys.argv[2:]
    c = Conn(port)
    c.call("HELLO", "3")
    entries = []
    for name in sorted(set(n.lower() for n in names)):
        raw_info, info = c.call("COMMAND", "INFO", name)
        if not info or info[0] is None:
            sys.exit(f"redis-server does not know {name!r}")
        info_entry = split_array(raw_info)[0]
        raw_docs, docs = c.call("COMMAND", "DOCS", name)
        docs_body = split_array(raw_docs)[1]
        help_raw = b"$-1\r\n"
        if info[0][9]:  # has subcommands: record "<name> HELP"
            help_raw, _ = c.call(name, "HELP")
        name_b = name.encode()
        entries.append(b"*4\r\n$%d\r\n%s\r\n" % (len(name_b), name_b) + info_entry + docs_body + help_raw)
    with open(OUT, "wb") as f:
        f.write(b"*%d\r\n" % len(entries) + b"".join(entries))
    print(f"recorded {len(entries)} commands into {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
