#!/usr/bin/env python3
"""Wraps an RDB value in a DUMP payload footer, for hand-written RESTORE lines in transcripts.

    tools/dump-payload.py '\\x00\\x05hello'            # -> "\\x00\\x05hello\\n\\x00cr\\xdfve4 \\n"
    tools/dump-payload.py --version 9 '\\x01\\x01\\x01a'
    tools/dump-payload.py --crc 0 '\\x00\\x01a'         # a wrong checksum on purpose

The argument is the value as cluster.c createDumpPayload() writes it (type byte + rdbSaveObject
bytes), with C/redis-cli escapes (\\xNN, \\n, \\\\). The footer is the 2-byte RDB version (10 for
Redis 7.0) and crc64.c's CRC64 (Jones, reflected) of everything before it, both little-endian.
Prints the payload quoted as redis-cli reads a double-quoted argument.
"""
import argparse
import codecs

POLY = 0x95AC9329AC4BC9B5  # 0xad93d23594c935a9 reflected
TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ POLY if c & 1 else c >> 1
    TABLE.append(c)


def crc64(data, crc=0):
    for b in data:
        crc = TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def payload(body, version=10, crc=None):
    b = bytes(body) + bytes([version & 0xFF, version >> 8])
    c = crc64(b) if crc is None else crc
    return b + c.to_bytes(8, "little")


def quote(b):
    out = []
    for x in b:
        ch = chr(x)
        if 32 <= x < 127 and ch not in '"\\':
            out.append(ch)
        else:
            out.append("\\x%02x" % x)
    return '"' + "".join(out) + '"'


if __name__ == "__main__":
    assert crc64(b"123456789") == 0xE9C6D914C4B8D9CA
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("body")
    p.add_argument("--version", type=int, default=10)
    p.add_argument("--crc", type=lambda s: int(s, 0))
    a = p.parse_args()
    body = codecs.escape_decode(a.body.encode())[0]
    print(quote(payload(body, a.version, a.crc)))
