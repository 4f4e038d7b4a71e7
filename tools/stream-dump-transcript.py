#!/usr/bin/env python3
"""Writes tests/scripts/dump-streams.redis: streams built on a running redis-server 7.0.15,
DUMPed there, and RESTOREd in the transcript — then what the restored streams answer.

    redis-server --port 7421 --save '' --appendonly no --daemonize yes
    tools/stream-dump-transcript.py 7421 > tests/scripts/dump-streams.redis
    tools/record-golden.sh tests/scripts/dump-streams.redis

Every valid payload is a real DUMP. RDB_TYPE_STREAM_LISTPACKS (15, what Redis 5 and 6 wrote) is
the same stream with the 7.0 fields taken out and an RDB version 9 footer. The corrupt payloads
are real ones edited (a node rebuilt, a count changed, a PEL entry moved…) with their CRC64
recomputed, as a crafted payload would have it; which of them Redis refuses is the recording's
business, not this script's. Delivery and seen times inside the payloads are the wall clock of
the recording machine, fixed in the payload: the transcript reads them (XINFO STREAM FULL) only
before anything re-stamps them, and never asks for an idle time.
"""
import importlib.util
import os
import socket
import struct
import sys

sys.dont_write_bytecode = True  # no tools/__pycache__ from loading dump-payload.py
HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("dump_payload", os.path.join(HERE, "dump-payload.py"))
dump_payload = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dump_payload)


class Redis:
    """A RESP2 connection (bytes in, Python values out)."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.buf = b""

    def _fill(self):
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise EOFError("redis-server closed the connection")
        self.buf += chunk

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind in (b"+", b"-"):
            return rest.decode()
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self._fill()
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise ValueError(line)

    def __call__(self, *args):
        args = [a if isinstance(a, bytes) else str(a).encode() for a in args]
        self.sock.sendall(b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args))
        return self._reply()


# ---------------------------------------------------------------------------------------------
# The stream value (rdb.c rdbSaveObject), parsed into its pieces and written back
# ---------------------------------------------------------------------------------------------


def enc_len(n):
    if n < 1 << 6:
        return bytes([n])
    if n < 1 << 14:
        return bytes([0x40 | n >> 8, n & 0xFF])
    if n <= 0xFFFFFFFF:
        return b"\x80" + struct.pack(">I", n)
    return b"\x81" + struct.pack(">Q", n)


def enc_str(b):
    return enc_len(len(b)) + b


class Reader:
    def __init__(self, b, pos):
        self.b, self.p = b, pos

    def read(self, n):
        assert self.p + n <= len(self.b)
        self.p += n
        return self.b[self.p - n:self.p]

    def length(self):
        b = self.read(1)[0]
        if b >> 6 == 0:
            return b & 0x3F
        if b >> 6 == 1:
            return (b & 0x3F) << 8 | self.read(1)[0]
        if b == 0x80:
            return struct.unpack(">I", self.read(4))[0]
        if b == 0x81:
            return struct.unpack(">Q", self.read(8))[0]
        raise ValueError(b)

    def string(self):
        """A string as written (its length or encoding byte included)."""
        start = self.p
        b = self.read(1)[0]
        if b >> 6 == 3:
            kind = b & 0x3F
            if kind == 3:
                clen = self.length()
                self.length()
                self.read(clen)
            else:
                self.read({0: 1, 1: 2, 2: 4}[kind])
        else:
            self.p = start
            self.read(self.length())
        return self.b[start:self.p]


def parse(body):
    t = body[0]
    r = Reader(body, 1)
    s = {"type": t, "nodes": [], "groups": []}
    for _ in range(r.length()):
        s["nodes"].append((r.string(), r.string()))
    s["meta"] = [enc_len(r.length()) for _ in range(8 if t == 19 else 3)]
    for _ in range(r.length()):
        g = {"name": r.string(), "last": [enc_len(r.length()), enc_len(r.length())]}
        g["read"] = enc_len(r.length()) if t == 19 else None
        g["pel"] = [[r.read(16), r.read(8), enc_len(r.length())] for _ in range(r.length())]
        g["consumers"] = []
        for _ in range(r.length()):
            name, seen = r.string(), r.read(8)
            g["consumers"].append([name, seen, [r.read(16) for _ in range(r.length())]])
        s["groups"].append(g)
    assert r.p == len(body)
    return s


def write(s):
    """The value's bytes; `*_count` keys, where present, replace a count with other bytes."""
    def count(holder, name, items):
        return holder.get(name, enc_len(len(items)))

    out = bytes([s["type"]]) + count(s, "nodes_count", s["nodes"])
    for key, lp in s["nodes"]:
        out += key + lp
    out += b"".join(s["meta"]) + count(s, "groups_count", s["groups"])
    for g in s["groups"]:
        out += g["name"] + b"".join(g["last"]) + (g["read"] if s["type"] == 19 else b"")
        out += count(g, "pel_count", g["pel"])
        for rawid, time, n in g["pel"]:
            out += rawid + time + n
        out += count(g, "consumers_count", g["consumers"])
        for c in g["consumers"]:
            name, seen, ids = c[:3]
            out += name + seen + (c[3] if len(c) > 3 else enc_len(len(ids))) + b"".join(ids)
    return out


def copy(s):
    return {
        "type": s["type"],
        "nodes": list(s["nodes"]),
        "meta": list(s["meta"]),
        "groups": [
            dict(g, last=list(g["last"]), pel=[list(p) for p in g["pel"]],
                 consumers=[[n, t, list(ids)] for n, t, ids in g["consumers"]])
            for g in s["groups"]
        ],
    }


def as_type_15(s):
    """The stream as Redis 5/6 wrote it: no first/max-deleted IDs, entries-added, entries-read."""
    old = copy(s)
    old["type"] = 15
    old["meta"] = s["meta"][:3]
    return old


def sid(ms, seq):
    return struct.pack(">QQ", ms, seq)


# A listpack built element by element (listpack.c's encodings), for the corrupt nodes.
def lp_backlen(n):
    return bytes([n]) if n <= 127 else bytes([n >> 7, n & 127 | 128])


def lp_int(v):
    if 0 <= v <= 127:
        e = bytes([v])
    elif -4096 <= v <= 4095:
        u = v & 0x1FFF
        e = bytes([0xC0 | u >> 8, u & 0xFF])
    elif -32768 <= v <= 32767:
        e = b"\xf1" + struct.pack("<h", v)
    else:
        e = b"\xf4" + struct.pack("<q", v)
    return e + lp_backlen(len(e))


def lp_str(b):
    assert len(b) < 64
    e = bytes([0x80 | len(b)]) + b
    return e + lp_backlen(len(e))


def listpack(elements, numele=None, total_delta=0):
    body = b"".join(lp_int(e) if isinstance(e, int) else lp_str(e) for e in elements)
    n = len(elements) if numele is None else numele
    return struct.pack("<IH", 6 + len(body) + 1 + total_delta, n) + body + b"\xff"


def quote(b):
    return dump_payload.quote(b)


# ---------------------------------------------------------------------------------------------


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 7421
    r = Redis(port)
    assert r("INFO", "server").split(b"redis_version:")[1].startswith(b"7.0.15"), "redis-server 7.0.15 wanted"
    lines = []
    out = lines.append

    def reset():
        r("FLUSHALL")
        for k, v in [("stream-node-max-bytes", "4096"), ("stream-node-max-entries", "100"),
                     ("rdbcompression", "yes")]:
            r("CONFIG", "SET", k, v)

    def build(*cmds):
        reset()
        for c in cmds:
            rep = r(*c)
            assert not (isinstance(rep, str) and rep.startswith("ERR")), (c, rep)
        p = r("DUMP", "k")
        assert p is not None
        return p

    def body(p):
        return parse(p[:-10])

    def payload(s, version=None):
        version = version or (10 if s["type"] == 19 else 9)
        return dump_payload.payload(write(s), version)

    def restore(key, p):
        out(f"RESTORE {key} 0 {quote(p)}")

    many = lambda n, first=1: [("XADD", "k", f"{i}-1", "field", str(i)) for i in range(first, n + 1)]

    out("# RESTORE of streams: payloads redis-server 7.0.15's DUMP wrote (RDB_TYPE_STREAM_LISTPACKS_2;")
    out("# RDB_TYPE_STREAM_LISTPACKS as Redis 5 and 6 wrote it is the same stream without the 7.0")
    out("# fields), then what the restored stream answers: its entries both ways, XINFO STREAM FULL,")
    out("# groups, PELs and consumers, encoding and MEMORY USAGE, DUMP again, and the commands that go")
    out("# on from the restored IDs and counters. Then corrupt payloads (real ones edited, CRC64")
    out("# recomputed), under sanitize-dump-payload yes as the engine always checks. Made by")
    out("# tools/stream-dump-transcript.py; delivery and seen times are the recording machine's clock,")
    out("# fixed in the payloads, and read only before a command re-stamps them.")
    out("CONFIG SET sanitize-dump-payload yes")

    out("# One entry.")
    restore("s1", build(("XADD", "k", "1-1", "f", "v")))
    for c in ["TYPE s1", "OBJECT ENCODING s1", "XLEN s1", "XRANGE s1 - +", "XINFO STREAM s1 FULL",
              "MEMORY USAGE s1", "DUMP s1", "XADD s1 1-1 f v", "XADD s1 1-* g w", "XRANGE s1 - +",
              "MEMORY USAGE s1"]:
        out(c)
    restore("s1", build(("XADD", "k", "1-1", "f", "v")))
    out("RESTORE s1 0 " + quote(dump_payload.payload(bytes([0, 1]) + b"a", 10)) + " REPLACE")
    out("TYPE s1")

    out("# Fields that change from entry to entry, values of every integer width, the largest ID.")
    p = build(
        ("XADD", "k", "1-0", "a", "1", "b", "-4096", "c", "x"),
        ("XADD", "k", "1-1", "a", "2", "b", "32768", "c", "9223372036854775807"),
        ("XADD", "k", "2-0", "other", "y" * 70),
        ("XADD", "k", "3-0", "a", "01", "b", "-0", "c", "1.5"),
        ("XADD", "k", "18446744073709551615-0", "a", "-9223372036854775808", "b", "", "c", "z"),
    )
    restore("s2", p)
    for c in ["XRANGE s2 - +", "XREVRANGE s2 + -", "XREVRANGE s2 + - COUNT 2", "XINFO STREAM s2 FULL",
              "MEMORY USAGE s2", "DUMP s2", "XADD s2 * f v", "XADD s2 18446744073709551615-* f v"]:
        out(c)

    out("# Many nodes (100 entries each), some deleted, then trimmed: tombstones, max-deleted-entry-id.")
    p = build(*many(1000), ("XDEL", "k", "3-1", "250-1", "999-1", "1000-1"), ("XTRIM", "k", "MAXLEN", "900"))
    restore("s3", p)
    for c in ["XLEN s3", "XINFO STREAM s3", "XRANGE s3 - + COUNT 3", "XREVRANGE s3 + - COUNT 3",
              "XRANGE s3 248-1 252-1", "XRANGE s3 (996-1 +", "MEMORY USAGE s3", "MEMORY USAGE s3 SAMPLES 0",
              "XADD s3 998-2 field x", "XADD s3 1001-1 field 1001", "XREVRANGE s3 + - COUNT 2",
              "XTRIM s3 MAXLEN = 500", "XLEN s3", "XRANGE s3 - + COUNT 2", "XINFO STREAM s3",
              "XDEL s3 600-1 601-1", "XTRIM s3 MINID 700-1", "XINFO STREAM s3", "MEMORY USAGE s3"]:
        out(c)

    out("# Nodes cut by stream-node-max-bytes, their listpacks LZF-compressed in the payload.")
    reset()
    r("CONFIG", "SET", "stream-node-max-bytes", "300")
    for i in range(1, 41):
        r("XADD", "k", f"{i}-0", "payload", "abcd" * 10, "n", str(i))
    p = r("DUMP", "k")
    assert any(lp[0] == 0xC3 for _, lp in body(p)["nodes"]), "a compressed node"
    out("CONFIG SET stream-node-max-bytes 300")
    restore("s4", p)
    for c in ["XLEN s4", "XINFO STREAM s4", "XRANGE s4 19-0 21-0", "MEMORY USAGE s4", "XADD s4 41-0 payload x n 41",
              "XINFO STREAM s4", "CONFIG SET stream-node-max-bytes 4096"]:
        out(c)

    out("# Empty streams restore (unlike every other type): the last ID stays, XADD goes on from it.")
    restore("e1", build(("XADD", "k", "5-5", "f", "v"), ("XDEL", "k", "5-5")))
    for c in ["EXISTS e1", "XLEN e1", "XINFO STREAM e1 FULL", "MEMORY USAGE e1", "DUMP e1",
              "XADD e1 5-5 f v", "XADD e1 5-* f v", "XRANGE e1 - +"]:
        out(c)
    restore("e2", build(("XGROUP", "CREATE", "k", "g", "$", "MKSTREAM")))
    for c in ["XINFO STREAM e2 FULL", "XINFO GROUPS e2", "MEMORY USAGE e2"]:
        out(c)

    out("# XSETID's counters; a last ID in the future, so XADD * goes on from it.")
    restore("x1", build(("XADD", "k", "1-1", "f", "v"),
                        ("XSETID", "k", "99999999999999-3", "ENTRIESADDED", "50", "MAXDELETEDID", "7-7")))
    for c in ["XINFO STREAM x1", "XADD x1 * f w", "XADD x1 * f w", "XINFO STREAM x1"]:
        out(c)

    out("# Groups without consumers: last IDs, entries-read given or not, lag.")
    restore("g1", build(*many(20), ("XGROUP", "CREATE", "k", "g2", "0"), ("XGROUP", "CREATE", "k", "g1", "$"),
                        ("XGROUP", "CREATE", "k", "a", "5-1", "ENTRIESREAD", "3")))
    for c in ["XINFO GROUPS g1", "XINFO STREAM g1 FULL COUNT 2", "XREADGROUP GROUP g2 c COUNT 2 STREAMS g1 >",
              "XINFO GROUPS g1", "MEMORY USAGE g1"]:
        out(c)

    out("# Groups, consumers and PELs (acknowledged, claimed with a retry count, an idle consumer).")
    groups = build(
        *many(120),
        ("XGROUP", "CREATE", "k", "g", "0"),
        ("XGROUP", "CREATE", "k", "h", "0"),
        ("XREADGROUP", "GROUP", "g", "alice", "COUNT", "70", "STREAMS", "k", ">"),
        ("XREADGROUP", "GROUP", "g", "bob", "COUNT", "20", "STREAMS", "k", ">"),
        ("XREADGROUP", "GROUP", "h", "carol", "NOACK", "COUNT", "5", "STREAMS", "k", ">"),
        ("XGROUP", "CREATECONSUMER", "k", "g", "idle"),
        ("XACK", "k", "g", "1-1", "2-1", "50-1"),
        ("XCLAIM", "k", "g", "bob", "0", "3-1", "4-1", "RETRYCOUNT", "300"),
        ("XDEL", "k", "5-1"),
    )
    restore("p1", groups)
    for c in ["XINFO STREAM p1 FULL COUNT 3", "XINFO GROUPS p1", "XPENDING p1 g", "XPENDING p1 h",
              "MEMORY USAGE p1", "DUMP p1",
              "XREADGROUP GROUP h carol COUNT 3 STREAMS p1 >", "XINFO GROUPS p1",
              "XREADGROUP GROUP g bob COUNT 2 STREAMS p1 0", "XACK p1 g 3-1 4-1 6-1 7-1", "XPENDING p1 g",
              "XAUTOCLAIM p1 g dave 0 0-0 COUNT 3 JUSTID", "XCLAIM p1 g erin 0 60-1 61-1 JUSTID",
              "XPENDING p1 g", "XGROUP DELCONSUMER p1 g bob", "XPENDING p1 g", "XINFO GROUPS p1",
              "XGROUP DESTROY p1 h", "XADD p1 121-1 field 121", "XINFO GROUPS p1", "MEMORY USAGE p1"]:
        out(c)

    out("# The Redis 5/6 form (RDB_TYPE_STREAM_LISTPACKS, RDB version 9): entries-added is the length,")
    out("# the first ID the first live entry's, each group's entries-read estimated.")
    restore("o1", payload(as_type_15(body(groups))))
    for c in ["XINFO STREAM o1 FULL COUNT 1", "XINFO GROUPS o1", "XPENDING o1 g", "DUMP o1"]:
        out(c)
    restore("o2", payload(as_type_15(body(build(("XADD", "k", "5-5", "f", "v"), ("XDEL", "k", "5-5"))))))
    out("XINFO STREAM o2 FULL")
    out("XADD o2 5-6 f v")
    out("XINFO STREAM o2")
    restore("o3", payload(as_type_15(body(build(*many(10), ("XDEL", "k", "1-1", "2-1"),
                                                 ("XGROUP", "CREATE", "k", "g", "2-1"),
                                                 ("XGROUP", "CREATE", "k", "h", "0"))))))
    out("XINFO STREAM o3")
    out("XINFO GROUPS o3")

    # ------------------------------------------------------------------------------------------
    out("# Corrupt payloads. A small stream with a group and two consumers, edited.")
    good = body(build(("XADD", "k", "1-1", "f", "a"), ("XADD", "k", "2-1", "f", "b"), ("XADD", "k", "3-1", "f", "c"),
                      ("XGROUP", "CREATE", "k", "g", "0"),
                      ("XREADGROUP", "GROUP", "g", "alice", "COUNT", "2", "STREAMS", "k", ">"),
                      ("XREADGROUP", "GROUP", "g", "bob", "COUNT", "1", "STREAMS", "k", ">")))
    g = good["groups"][0]
    assert len(good["nodes"]) == 1 and [len(c[2]) for c in g["consumers"]] == [2, 1]
    key = good["nodes"][0][0]
    master = [3, 0, 1, b"f", 0]
    entries = [2, 0, 0, b"a", 4, 2, 1, 0, b"b", 4, 2, 2, 0, b"c", 4]
    assert good["nodes"][0][1] == enc_str(listpack(master + entries)), "the node as rebuilt here"

    def variant(comment, edit):
        s = copy(good)
        edit(s)
        out(f"# {comment}")
        out(f"RESTORE c 0 {quote(payload(s))} REPLACE")

    def node(elements, **kw):
        return lambda s: s["nodes"].__setitem__(0, (key, enc_str(listpack(elements, **kw))))

    variant("the payload unedited", lambda s: None)
    out("XINFO STREAM c FULL")
    full = write(good)
    for cut, what in [(2, "in a node key"), (25, "in a listpack"), (len(full) - 120, "in the metadata or group"),
                      (len(full) - 60, "in the PEL"), (len(full) - 20, "in a consumer"), (len(full) - 1, "at the end")]:
        out(f"# truncated {what}")
        out(f"RESTORE c 0 {quote(dump_payload.payload(full[:cut], 10))} REPLACE")
    variant("a node key of 15 bytes", lambda s: s["nodes"].__setitem__(0, (enc_str(b"\x00" * 15), s["nodes"][0][1])))
    variant("a node key that is an integer", lambda s: s["nodes"].__setitem__(0, (b"\xc0\x05", s["nodes"][0][1])))
    variant("a listpack whose byte count is off", node(master + entries, total_delta=1))
    variant("a listpack of no elements", node([]))
    variant("a node of the master entry alone, no entries (accepted, as by Redis)", node([0, 0, 1, b"f", 0]))
    out("XLEN c")
    out("XRANGE c - +")
    variant("the entry count one more than the entries", node([4, 0, 1, b"f", 0] + entries))
    variant("the entry count one less than the entries", node([2, 0, 1, b"f", 0] + entries))
    variant("a master entry not ended by 0", node([3, 0, 1, b"f", 1] + entries))
    variant("a master field count past the end", node([3, 0, 90, b"f", 0] + entries))
    variant("an lp-count that is wrong", node(master + entries[:-1] + [5]))
    variant("an entry's flags not an integer", node(master + [b"x"] + entries[1:]))
    variant("an entry count written as a string (accepted)", node([b"3", 0, 1, b"f", 0] + entries))
    out("XRANGE c - +")
    variant("an entry without SAMEFIELDS, its own fields (accepted)",
            node(master + [0, 0, 0, 1, b"f", b"a", 6] + entries[5:]))
    out("XRANGE c - +")
    variant("the listpack header's element count wrong (accepted: Redis checks only the bytes)",
            node(master + entries, numele=7))
    out("XRANGE c - +")
    out("XADD c 4-1 f d")
    out("XRANGE c - +")
    variant("a trailing element after the last entry", node(master + entries + [0]))
    variant("two nodes with the same key", lambda s: s["nodes"].append(s["nodes"][0]))
    variant("a length without nodes", lambda s: s["nodes"].clear())
    variant("a length of 0 with nodes (accepted)", lambda s: s["meta"].__setitem__(0, enc_len(0)))
    out("XLEN c")
    out("XRANGE c - +")
    variant("an unknown length encoding for the length (accepted: read as 2^64-1)",
            lambda s: s["meta"].__setitem__(0, b"\x85"))
    out("XLEN c")
    out("XINFO STREAM c")
    variant("an unknown length encoding for the last ID's ms (accepted)",
            lambda s: s["meta"].__setitem__(1, b"\xbf"))
    out("XINFO STREAM c")
    variant("an unknown length encoding for a group's entries-read (accepted, unknown)",
            lambda s: s["groups"][0].__setitem__("read", b"\x9a"))
    out("XINFO GROUPS c")
    variant("an unknown length encoding for the number of groups",
            lambda s: s.__setitem__("groups_count", b"\x90"))
    variant("two groups of the same name", lambda s: s["groups"].append(s["groups"][0]))
    variant("a PEL entry twice in the group's PEL", lambda s: s["groups"][0]["pel"].append(s["groups"][0]["pel"][0]))
    variant("a consumer's entry not in the group's PEL",
            lambda s: s["groups"][0]["consumers"][1][2].__setitem__(0, sid(9, 9)))
    variant("a PEL entry no consumer owns (the deep check)", lambda s: s["groups"][0]["consumers"][1][2].clear())
    variant("two consumers of the same name",
            lambda s: s["groups"][0]["consumers"][1].__setitem__(0, s["groups"][0]["consumers"][0][0]))
    variant("a group PEL count past its entries", lambda s: s["groups"][0].__setitem__("pel_count", enc_len(4)))
    variant("a group PEL count of 2^64-1", lambda s: s["groups"][0].__setitem__("pel_count", enc_len(2**64 - 1)))
    variant("a consumer PEL count past its entries", lambda s: s["groups"][0]["consumers"][1].append(enc_len(5)))
    variant("a consumer count past the consumers", lambda s: s["groups"][0].__setitem__("consumers_count", enc_len(3)))
    variant("a node count past the nodes", lambda s: s.__setitem__("nodes_count", enc_len(2)))
    variant("an LZF-compressed listpack that does not decompress",
            lambda s: s["nodes"].__setitem__(0, (key, b"\xc3\x05\x1d\x1fzzzzz")))
    out("# a stream type in a payload of RDB version 9 (the footer's version is all RESTORE checks)")
    out(f"RESTORE c 0 {quote(dump_payload.payload(write(good), 9))} REPLACE")
    out("XLEN c")
    out("EXISTS c")

    print("\n".join(lines))


if __name__ == "__main__":
    main()
