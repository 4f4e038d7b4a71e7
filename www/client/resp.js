// @ts-check
// RESP for the in-process client (client/redis.js): commands encoded as RESP requests (arrays of
// bulk strings) into one growing byte buffer, replies decoded one at a time from the bytes the
// engine returns. Pure: no wasm, no DOM (node:test imports it).
//
// Decoded as ioredis does it: status and bulk → string (or bytes when asked for), integer →
// number, nil → null, array → array, error → a ReplyError value (not thrown). RESP3 frames (after
// HELLO 3) come out as a RESP2 client sees them: map → flat array, set → array, double and big
// number → string, boolean → 1 / 0, null → null, verbatim → its text; a push frame is flagged.

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** A reply that is a Redis error: its message is Redis's text (`ERR unknown command …`). */
export class ReplyError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "ReplyError";
  }
}

/** Turns bytes into the caller's byte type: a Node Buffer (a view, no copy) where there is one. */
const NodeBuffer = /** @type {any} */ (globalThis).Buffer;

/**
 * A copy of `bytes[start, end)`: the reply buffer is reused from call to call.
 * @param {Uint8Array} bytes
 * @param {number} start
 * @param {number} end
 * @returns {Uint8Array}
 */
function bytesOf(bytes, start, end) {
  return NodeBuffer ? NodeBuffer.from(bytes.subarray(start, end)) : bytes.slice(start, end);
}

/**
 * @param {Uint8Array} b
 * @param {number} start
 * @param {number} end
 */
function text(b, start, end) {
  if (end - start < 24) {
    let s = "";
    for (let i = start; i < end; i += 1) {
      const c = b[i];
      if (c >= 0x80) return fromUtf8.decode(b.subarray(start, end));
      s += String.fromCharCode(c);
    }
    return s;
  }
  return fromUtf8.decode(b.subarray(start, end));
}

/** A command's requests, appended into one buffer that grows (the batch of one turn). */
export class RequestWriter {
  constructor(size = 4096) {
    this.buf = new Uint8Array(size);
    this.len = 0;
  }

  /** @param {number} extra */
  reserve(extra) {
    if (this.len + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  /** @param {number} n  a non-negative integer */
  number(n) {
    const b = this.buf;
    if (n < 10) {
      b[this.len++] = 48 + n;
    } else if (n < 100) {
      b[this.len++] = 48 + ((n / 10) | 0);
      b[this.len++] = 48 + (n % 10);
    } else {
      const s = String(n);
      for (let i = 0; i < s.length; i += 1) b[this.len++] = s.charCodeAt(i);
    }
  }

  /**
   * One command: `*<n>` and a bulk string per argument. Strings are sent as UTF-8, byte arrays
   * as they are.
   * @param {string} name
   * @param {ReadonlyArray<string | Uint8Array>} args
   */
  command(name, args) {
    this.reserve(16 + name.length * 3 + 16);
    this.buf[this.len++] = 42; // *
    this.number(args.length + 1);
    this.buf[this.len++] = 13;
    this.buf[this.len++] = 10;
    this.bulk(name);
    for (let i = 0; i < args.length; i += 1) this.bulk(args[i]);
  }

  /** @param {string | Uint8Array} arg */
  bulk(arg) {
    if (typeof arg !== "string") {
      this.raw(arg);
      return;
    }
    const n = arg.length;
    this.reserve(n * 3 + 16);
    // ASCII straight in as it is read; at the first other character, undone and sent through
    // TextEncoder instead.
    const start = this.len;
    this.buf[this.len++] = 36; // $
    this.number(n);
    this.buf[this.len++] = 13;
    this.buf[this.len++] = 10;
    const b = this.buf;
    let p = this.len;
    for (let i = 0; i < n; i += 1) {
      const c = arg.charCodeAt(i);
      if (c >= 0x80) {
        this.len = start;
        this.raw(utf8.encode(arg));
        return;
      }
      b[p++] = c;
    }
    b[p++] = 13;
    b[p++] = 10;
    this.len = p;
  }

  /** @param {Uint8Array} bytes */
  raw(bytes) {
    this.reserve(bytes.length + 24);
    this.buf[this.len++] = 36;
    this.number(bytes.length);
    this.buf[this.len++] = 13;
    this.buf[this.len++] = 10;
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
    this.buf[this.len++] = 13;
    this.buf[this.len++] = 10;
  }

  /** The bytes written since the last take (a view: valid until the next write). */
  take() {
    const out = this.buf.subarray(0, this.len);
    this.len = 0;
    return out;
  }
}

/**
 * Encodes whole commands as RESP requests (for tests and tools): `[["SET", "k", "v"], …]`.
 * @param {ReadonlyArray<ReadonlyArray<string | Uint8Array>>} commands
 */
export function encodeCommands(commands) {
  const w = new RequestWriter();
  for (const [name, ...args] of commands) w.command(String(name), args);
  return w.take().slice();
}

/** Reads replies one at a time from the bytes of one batch (always whole replies). */
export class ReplyReader {
  /**
   * @param {Uint8Array} bytes
   * @param {number} [end]  where the replies end (a reused buffer is longer)
   */
  constructor(bytes, end = bytes.length) {
    this.b = bytes;
    this.pos = 0;
    this.end = end;
    /** Whether the last reply read was a RESP3 push frame. */
    this.push = false;
  }

  more() {
    return this.pos < this.end;
  }

  /**
   * The next reply.
   * @param {boolean} [asBytes]  bulk strings as bytes (the `…Buffer` commands)
   * @returns {any}
   */
  next(asBytes = false) {
    this.push = this.b[this.pos] === 62; // >
    return this.value(asBytes);
  }

  /** The integer up to the next CRLF, after the type byte. */
  int() {
    const b = this.b;
    let p = this.pos + 1;
    let neg = false;
    if (b[p] === 45) {
      neg = true;
      p += 1;
    }
    let n = 0;
    while (b[p] !== 13) n = n * 10 + (b[p++] - 48);
    this.pos = p + 2;
    return neg ? -n : n;
  }

  line() {
    const b = this.b;
    let p = this.pos + 1;
    while (b[p] !== 13) p += 1;
    const s = text(b, this.pos + 1, p);
    this.pos = p + 2;
    return s;
  }

  /**
   * @param {boolean} asBytes
   * @returns {any}
   */
  value(asBytes) {
    const b = this.b;
    const type = b[this.pos];
    switch (type) {
      case 36: // $ bulk
      case 61: {
        // = verbatim
        const n = this.int();
        if (n < 0) return null;
        let start = this.pos;
        const end = start + n;
        this.pos = end + 2;
        if (type === 61) start += 4; // "txt:"
        return asBytes ? bytesOf(b, start, end) : text(b, start, end);
      }
      case 43: // + status
        return this.line();
      case 58: // : integer
        return this.int();
      case 45: // - error
        return new ReplyError(this.line());
      case 42: // * array
      case 126: // ~ set
      case 62: {
        // > push
        const n = this.int();
        if (n < 0) return null;
        const out = new Array(n);
        for (let i = 0; i < n; i += 1) out[i] = this.value(asBytes);
        return out;
      }
      case 37: {
        // % map: flat, as RESP2
        const n = this.int();
        const out = new Array(n * 2);
        for (let i = 0; i < n * 2; i += 1) out[i] = this.value(asBytes);
        return out;
      }
      case 124: {
        // | attribute: skipped, the value after it is the reply
        const n = this.int();
        for (let i = 0; i < n * 2; i += 1) this.value(asBytes);
        return this.value(asBytes);
      }
      case 95: // _ null
        this.pos += 3;
        return null;
      case 35: {
        // # boolean
        const t = b[this.pos + 1] === 116;
        this.pos += 4;
        return t ? 1 : 0;
      }
      case 44: // , double
      case 40: // ( big number
        return this.line();
      case 33: {
        // ! blob error
        const n = this.int();
        const start = this.pos;
        this.pos = start + n + 2;
        return new ReplyError(text(b, start, start + n));
      }
      default:
        throw new Error(`unexpected RESP byte ${type} at ${this.pos}`);
    }
  }
}
