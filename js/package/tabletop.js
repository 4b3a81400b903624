// The tabletop-js package's JavaScript: the `Tabletop` class users see,
// over the wasm-bindgen class of js/src/lib.rs. Shared by the Node and the
// browser builds: scripts/build-js.sh wraps this file as CommonJS
// (lib/tabletop.cjs) and as an ES module (lib/tabletop.mjs), each ending
// with an export of `makeTabletop`.
//
// What lives here rather than in Rust: argument checks (a wrong-typed
// argument is a TypeError before anything reaches wasm), the packing of
// bulk writes into one byte buffer, the unpacking of read answers into
// plain objects, and turning the core's errors into TabletopError.

/* eslint-disable no-bitwise */

/**
 * An error the core answered: Bigtable's status code number (`code`, as in
 * gRPC) and name (`status`, e.g. 'NOT_FOUND'), and the core's message.
 */
class TabletopError extends Error {
  constructor(code, status, message) {
    super(message);
    this.name = 'TabletopError';
    this.code = code;
    this.status = status;
  }
}

/** Sent by a packer that meets something unusual: the general path decides. */
const DECLINE = Symbol('decline');

function describe(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name}`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v).slice(0, 40)}`;
}

function requireObject(method, request) {
  if (typeof request !== 'object' || request === null || Array.isArray(request) || ArrayBuffer.isView(request)) {
    throw new TypeError(`${method}: the request must be a plain object (Bigtable's REST JSON request), got ${describe(request)}`);
  }
}

function requireString(method, text) {
  if (typeof text !== 'string') {
    throw new TypeError(`${method}: expected a string, got ${describe(text)}`);
  }
}

// ------------------------------------------------------- request objects

const NodeBuffer = typeof globalThis.Buffer === 'function' ? globalThis.Buffer : null;

function toBase64(u8) {
  if (NodeBuffer) return NodeBuffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString('base64');
  let text = '';
  for (let i = 0; i < u8.length; i += 0x8000) text += String.fromCharCode.apply(null, u8.subarray(i, i + 0x8000));
  return btoa(text);
}

/** Uint8Array (Buffer too) as base64, BigInt as decimal text. */
function replacer(key, value) {
  const original = this[key];
  if (original instanceof Uint8Array) return toBase64(original);
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/**
 * A request object as the JSON text wasm reads: one string crosses into
 * wasm instead of every key and value one by one (measured faster than
 * walking the object from wasm with serde-wasm-bindgen).
 */
function requestText(request) {
  return JSON.stringify(request, replacer);
}

// ------------------------------------------------------------ bulk writes

const encoder = new TextEncoder();

/**
 * Each UTF-16 code unit's value as a base64 digit of the standard
 * alphabet, -1 for every other unit (a table of all 65,536 units, so any
 * `charCodeAt` indexes it without a range check).
 */
const BASE64_DIGITS = (() => {
  const t = new Int8Array(0x10000).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < 64; i++) t[alphabet.charCodeAt(i)] = i;
  return t;
})();

/** A growing byte buffer in the format js/src/write.rs reads. */
class Packer {
  constructor(size) {
    this.buf = new Uint8Array(size);
    this.view = new DataView(this.buf.buffer);
    this.at = 0;
    /** The table name packRead last wrote at the start, and its end. */
    this.table = null;
    this.tableEnd = 0;
  }

  /**
   * A packer that writes into `length` bytes of `buffer` from `offset`
   * (wasm's memory), until it needs more room: it then goes on in a
   * buffer of its own.
   */
  static over(buffer, offset, length) {
    const p = new Packer(0);
    p.buf = new Uint8Array(buffer, offset, length);
    p.view = new DataView(buffer, offset, length);
    return p;
  }

  room(n) {
    if (this.at + n <= this.buf.length) return;
    let size = Math.max(this.buf.length * 2, 256);
    while (size < this.at + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.at));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v) {
    this.room(1);
    this.buf[this.at++] = v;
  }

  u32(v) {
    this.room(4);
    this.view.setUint32(this.at, v, true);
    this.at += 4;
  }

  /** A string as u32 length + UTF-8 (ASCII fast, encodeInto otherwise). */
  str(s) {
    const n = s.length;
    this.room(4 + n);
    const start = this.at + 4;
    const buf = this.buf;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) break;
      buf[start + i] = c;
    }
    if (i === n) {
      this.view.setUint32(this.at, n, true);
      this.at = start + n;
      return;
    }
    this.room(4 + 3 * n);
    const { written } = encoder.encodeInto(s, this.buf.subarray(start));
    this.view.setUint32(this.at, written, true);
    this.at = start + written;
  }

  /**
   * A bytes field: absent, raw (a Uint8Array, or base64 text this packer
   * decodes) or base64 text left for wasm to decode.
   */
  bytes(v) {
    if (v === undefined) {
      this.u8(0);
    } else if (typeof v === 'string') {
      if (this.base64(v)) return;
      this.u8(2);
      this.str(v);
    } else if (v instanceof Uint8Array) {
      const n = v.length;
      this.room(5 + n);
      const buf = this.buf;
      buf[this.at] = 1;
      this.view.setUint32(this.at + 1, n, true);
      const at = this.at + 5;
      // Short arrays (row keys) by a loop: TypedArray set's call costs
      // more than copying a few dozen bytes.
      if (n <= 64) {
        for (let i = 0; i < n; i++) buf[at + i] = v[i];
      } else {
        buf.set(v, at);
      }
      this.at = at + n;
    } else {
      throw DECLINE;
    }
  }

  /**
   * Base64 text in groups of four of the standard alphabet, with at most
   * two '=' closing the last group (what encoders write), decoded into a
   * raw bytes field: wasm then borrows the bytes without decoding or
   * copying them. False, with nothing written, for any other text, which
   * goes to wasm as text to be accepted or refused there. Bits past the
   * last byte are ignored, as the core's decoder ignores them.
   */
  base64(s) {
    const n = s.length;
    if ((n & 3) !== 0) return false;
    let pad = 0;
    if (n !== 0 && s.charCodeAt(n - 1) === 61) pad = s.charCodeAt(n - 2) === 61 ? 2 : 1;
    const len = (n >> 2) * 3 - pad;
    this.room(5 + len + pad);
    const buf = this.buf;
    const digits = BASE64_DIGITS;
    let o = this.at + 5;
    // The groups without padding, then the padded one.
    const whole = pad === 0 ? n : n - 4;
    for (let i = 0; i < whole; i += 4) {
      const a = digits[s.charCodeAt(i)];
      const b = digits[s.charCodeAt(i + 1)];
      const c = digits[s.charCodeAt(i + 2)];
      const d = digits[s.charCodeAt(i + 3)];
      if ((a | b | c | d) < 0) return false;
      const x = (a << 18) | (b << 12) | (c << 6) | d;
      buf[o] = x >> 16;
      buf[o + 1] = x >> 8;
      buf[o + 2] = x;
      o += 3;
    }
    if (pad !== 0) {
      const a = digits[s.charCodeAt(whole)];
      const b = digits[s.charCodeAt(whole + 1)];
      const c = pad === 1 ? digits[s.charCodeAt(whole + 2)] : 0;
      if ((a | b | c) < 0) return false;
      const x = (a << 18) | (b << 12) | (c << 6);
      buf[o] = x >> 16;
      if (pad === 1) buf[o + 1] = x >> 8;
    }
    buf[this.at] = 1;
    this.view.setUint32(this.at + 1, len, true);
    this.at += 5 + len;
    return true;
  }

  /** An int64 field: absent, a safe integer, or decimal text. */
  int(v) {
    if (v === undefined) {
      this.u8(0);
    } else if (typeof v === 'number' && Number.isSafeInteger(v)) {
      this.u8(1);
      this.room(8);
      this.view.setFloat64(this.at, v, true);
      this.at += 8;
    } else if (typeof v === 'string') {
      this.u8(2);
      this.str(v);
    } else {
      throw DECLINE;
    }
  }
}

function isObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function packSetCell(p, body) {
  let family, qualifier, ts, value;
  for (const k in body) {
    if (k === 'familyName') family = body[k];
    else if (k === 'columnQualifier') qualifier = body[k];
    else if (k === 'timestampMicros') ts = body[k];
    else if (k === 'value') value = body[k];
    else throw DECLINE;
  }
  if (typeof family !== 'string') throw DECLINE;
  p.u8(1);
  p.str(family);
  p.bytes(qualifier);
  p.int(ts);
  p.bytes(value);
}

function packDeleteFromColumn(p, body) {
  let family, qualifier, range;
  for (const k in body) {
    if (k === 'familyName') family = body[k];
    else if (k === 'columnQualifier') qualifier = body[k];
    else if (k === 'timeRange') range = body[k];
    else throw DECLINE;
  }
  if (typeof family !== 'string') throw DECLINE;
  p.u8(2);
  p.str(family);
  p.bytes(qualifier);
  if (range === undefined) {
    p.u8(0);
    return;
  }
  if (!isObject(range)) throw DECLINE;
  let start, end;
  for (const k in range) {
    if (k === 'startTimestampMicros') start = range[k];
    else if (k === 'endTimestampMicros') end = range[k];
    else throw DECLINE;
  }
  p.u8(1);
  p.int(start);
  p.int(end);
}

function packMutation(p, m) {
  if (!isObject(m)) throw DECLINE;
  let kind, body, n = 0;
  for (const k in m) {
    kind = k;
    body = m[k];
    n += 1;
  }
  if (n !== 1 || !isObject(body)) throw DECLINE;
  if (kind === 'setCell') {
    packSetCell(p, body);
  } else if (kind === 'deleteFromColumn') {
    packDeleteFromColumn(p, body);
  } else if (kind === 'deleteFromFamily') {
    let family, fields = 0;
    for (const k in body) {
      fields += 1;
      family = body[k];
      if (k !== 'familyName') throw DECLINE;
    }
    if (fields !== 1 || typeof family !== 'string') throw DECLINE;
    p.u8(3);
    p.str(family);
  } else if (kind === 'deleteFromRow') {
    for (const _ in body) throw DECLINE;
    p.u8(4);
  } else {
    throw DECLINE;
  }
}

function packEntry(p, entry) {
  if (!isObject(entry)) throw DECLINE;
  let key, mutations;
  for (const k in entry) {
    if (k === 'rowKey') key = entry[k];
    else if (k === 'mutations') mutations = entry[k];
    else throw DECLINE;
  }
  if (key === undefined || !Array.isArray(mutations)) throw DECLINE;
  p.bytes(key);
  p.u32(mutations.length);
  for (let i = 0; i < mutations.length; i++) packMutation(p, mutations[i]);
}

/**
 * mutateRows or mutateRow packed into `p` from its start; false when it
 * must go to the general decoder.
 */
function packWrite(p, kind, request) {
  p.at = 0;
  // The write overwrites the table name packRead may have left there.
  p.table = null;
  try {
    let table, entries, key, mutations;
    for (const k in request) {
      if (k === 'tableName') table = request[k];
      else if (kind === 1 && k === 'entries') entries = request[k];
      else if (kind === 2 && k === 'rowKey') key = request[k];
      else if (kind === 2 && k === 'mutations') mutations = request[k];
      else throw DECLINE;
    }
    if (typeof table !== 'string') throw DECLINE;
    p.u8(kind);
    p.str(table);
    if (kind === 1) {
      if (!Array.isArray(entries)) throw DECLINE;
      p.u32(entries.length);
      for (let i = 0; i < entries.length; i++) packEntry(p, entries[i]);
    } else {
      p.u32(1);
      packEntry(p, { rowKey: key, mutations });
    }
  } catch (e) {
    if (e === DECLINE) return false;
    throw e;
  }
  return true;
}

/** A range bound: 0 none, 1 closed, 2 open (js/src/request.rs). */
function packBound(p, closed, open) {
  if (closed !== undefined && open !== undefined) throw DECLINE;
  if (closed !== undefined) {
    p.u8(1);
    p.bytes(closed);
  } else if (open !== undefined) {
    p.u8(2);
    p.bytes(open);
  } else {
    p.u8(0);
  }
}

function packRange(p, range) {
  if (!isObject(range)) throw DECLINE;
  let sc, so, ec, eo;
  for (const k in range) {
    if (k === 'startKeyClosed') sc = range[k];
    else if (k === 'startKeyOpen') so = range[k];
    else if (k === 'endKeyClosed') ec = range[k];
    else if (k === 'endKeyOpen') eo = range[k];
    else throw DECLINE;
  }
  packBound(p, sc, so);
  packBound(p, ec, eo);
}

/**
 * A plain readRows (no filter) packed into `p` from its start; false when
 * it must go as JSON text.
 */
function packRead(p, request) {
  p.at = 0;
  try {
    let table, rows, limit, reversed;
    for (const k in request) {
      if (k === 'tableName') table = request[k];
      else if (k === 'rows') rows = request[k];
      else if (k === 'rowsLimit') limit = request[k];
      else if (k === 'reversed') reversed = request[k];
      else throw DECLINE;
    }
    if (typeof table !== 'string') throw DECLINE;
    let keys = [];
    let ranges = [];
    if (rows !== undefined) {
      if (!isObject(rows)) throw DECLINE;
      for (const k in rows) {
        if (k === 'rowKeys') keys = rows[k];
        else if (k === 'rowRanges') ranges = rows[k];
        else throw DECLINE;
      }
      if (!Array.isArray(keys) || !Array.isArray(ranges)) throw DECLINE;
    }
    // The table name is at the start of every request: when it is the
    // last one this packer wrote, its bytes are still there.
    if (table === p.table) {
      p.at = p.tableEnd;
    } else {
      p.table = null;
      p.str(table);
      p.table = table;
      p.tableEnd = p.at;
    }
    p.u32(keys.length);
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] === undefined) throw DECLINE;
      p.bytes(keys[i]);
    }
    p.u32(ranges.length);
    for (let i = 0; i < ranges.length; i++) packRange(p, ranges[i]);
    p.int(limit);
    if (reversed === undefined || reversed === false) p.u8(0);
    else if (reversed === true) p.u8(1);
    else throw DECLINE;
  } catch (e) {
    if (e === DECLINE) return false;
    throw e;
  }
  return true;
}

// ------------------------------------------------------------------ reads

const latin1 = new TextDecoder('latin1');

/**
 * ASCII bytes `u8[s .. s + n]` as a string. Up to 12 bytes, one
 * `String.fromCharCode` call with one argument a byte makes the string at
 * once (measured in Node: 8 bytes about 60 ns, where adding the bytes one
 * by one took 230 ns and Buffer's latin1Slice 130 ns); longer strings
 * (long values; in browsers, row keys of a cursor's chunks) take the
 * native call in Node, Buffer's latin1Slice, and in browsers, where only
 * TextDecoder is at hand, one such call of 32 arguments up to 32 bytes.
 */
function ascii(u8, node, s, n) {
  switch (n) {
    case 0: return '';
    case 1: return String.fromCharCode(u8[s]);
    case 2: return String.fromCharCode(u8[s], u8[s + 1]);
    case 3: return String.fromCharCode(u8[s], u8[s + 1], u8[s + 2]);
    case 4: return String.fromCharCode(u8[s], u8[s + 1], u8[s + 2], u8[s + 3]);
    case 5: return String.fromCharCode(u8[s], u8[s + 1], u8[s + 2], u8[s + 3], u8[s + 4]);
    case 6: return String.fromCharCode(u8[s], u8[s + 1], u8[s + 2], u8[s + 3], u8[s + 4], u8[s + 5]);
    case 7: return String.fromCharCode(u8[s], u8[s + 1], u8[s + 2], u8[s + 3], u8[s + 4], u8[s + 5], u8[s + 6]);
    case 8: return String.fromCharCode(u8[s], u8[s + 1], u8[s + 2], u8[s + 3], u8[s + 4], u8[s + 5], u8[s + 6], u8[s + 7]);
    case 9: return String.fromCharCode(u8[s], u8[s + 1], u8[s + 2], u8[s + 3], u8[s + 4], u8[s + 5], u8[s + 6], u8[s + 7], u8[s + 8]);
    case 10: return String.fromCharCode(u8[s], u8[s + 1], u8[s + 2], u8[s + 3], u8[s + 4], u8[s + 5], u8[s + 6], u8[s + 7], u8[s + 8], u8[s + 9]);
    case 11: return String.fromCharCode(u8[s], u8[s + 1], u8[s + 2], u8[s + 3], u8[s + 4], u8[s + 5], u8[s + 6], u8[s + 7], u8[s + 8], u8[s + 9], u8[s + 10]);
    case 12: return String.fromCharCode(u8[s], u8[s + 1], u8[s + 2], u8[s + 3], u8[s + 4], u8[s + 5], u8[s + 6], u8[s + 7], u8[s + 8], u8[s + 9], u8[s + 10], u8[s + 11]);
    default:
      if (node !== null) return node.latin1Slice(s, s + n);
      // In browsers, strings up to 32 bytes (row keys of up to 24 bytes as
      // base64, timestamps) are one call of 32 arguments cut to length:
      // about 45 ns a row key in Chromium, where adding the characters one
      // by one took 870 ns and a TextDecoder 220 ns. Bytes past the end of
      // the buffer read as undefined, which becomes U+0000 before the cut.
      if (n <= 32) {
        return String.fromCharCode(u8[s], u8[s + 1], u8[s + 2], u8[s + 3], u8[s + 4], u8[s + 5], u8[s + 6], u8[s + 7],
          u8[s + 8], u8[s + 9], u8[s + 10], u8[s + 11], u8[s + 12], u8[s + 13], u8[s + 14], u8[s + 15],
          u8[s + 16], u8[s + 17], u8[s + 18], u8[s + 19], u8[s + 20], u8[s + 21], u8[s + 22], u8[s + 23],
          u8[s + 24], u8[s + 25], u8[s + 26], u8[s + 27], u8[s + 28], u8[s + 29], u8[s + 30], u8[s + 31]).slice(0, n);
      }
      // Up to 64 (row keys of up to 48 bytes as base64), one call of 64:
      // 95 to 140 ns a string in Chromium where a TextDecoder took 250 to
      // 355 (bench/js/browser-strings.mjs).
      if (n <= 64) {
        return String.fromCharCode(u8[s], u8[s + 1], u8[s + 2], u8[s + 3], u8[s + 4], u8[s + 5], u8[s + 6], u8[s + 7],
          u8[s + 8], u8[s + 9], u8[s + 10], u8[s + 11], u8[s + 12], u8[s + 13], u8[s + 14], u8[s + 15],
          u8[s + 16], u8[s + 17], u8[s + 18], u8[s + 19], u8[s + 20], u8[s + 21], u8[s + 22], u8[s + 23],
          u8[s + 24], u8[s + 25], u8[s + 26], u8[s + 27], u8[s + 28], u8[s + 29], u8[s + 30], u8[s + 31],
          u8[s + 32], u8[s + 33], u8[s + 34], u8[s + 35], u8[s + 36], u8[s + 37], u8[s + 38], u8[s + 39],
          u8[s + 40], u8[s + 41], u8[s + 42], u8[s + 43], u8[s + 44], u8[s + 45], u8[s + 46], u8[s + 47],
          u8[s + 48], u8[s + 49], u8[s + 50], u8[s + 51], u8[s + 52], u8[s + 53], u8[s + 54], u8[s + 55],
          u8[s + 56], u8[s + 57], u8[s + 58], u8[s + 59], u8[s + 60], u8[s + 61], u8[s + 62], u8[s + 63]).slice(0, n);
      }
      return latin1.decode(u8.subarray(s, s + n));
  }
}

/**
 * Byte views of a buffer (the wasm module's memory, or a chunk), made once
 * per buffer: a Uint8Array, a DataView, and in Node a Buffer (for
 * latin1Slice).
 */
function viewsOf(buffer, byteOffset = 0, byteLength = buffer.byteLength - byteOffset) {
  return {
    buffer,
    u8: new Uint8Array(buffer, byteOffset, byteLength),
    view: new DataView(buffer, byteOffset, byteLength),
    node: NodeBuffer ? NodeBuffer.from(buffer, byteOffset, byteLength) : null,
  };
}

/**
 * The first `n` elements of a scratch array as a new array of exactly that
 * length, a literal up to 6. After one large nested answer, V8 allocates
 * the row's objects in the old generation, and an array from slice
 * (always young) written into each of them made every later small answer
 * slow (nested prefix scans 1.6x main's in bench/js/pair.mjs after the
 * nested regex scan; 0.6x with literals). The scratch array is never
 * shortened (setting `length` is a call into V8's runtime): what lies past
 * `n` is left from earlier rows of the same answer.
 */
function firstOf(a, n) {
  switch (n) {
    case 1: return [a[0]];
    case 2: return [a[0], a[1]];
    case 3: return [a[0], a[1], a[2]];
    case 4: return [a[0], a[1], a[2], a[3]];
    case 5: return [a[0], a[1], a[2], a[3], a[4]];
    case 6: return [a[0], a[1], a[2], a[3], a[4], a[5]];
    default: return a.slice(0, n);
  }
}

/** Views of no buffer: what an unpacker holds when it reads nothing. */
const NO_VIEWS = viewsOf(new ArrayBuffer(0));
/** What a let-go unpacker holds instead of its arrays (never written to). */
const NOTHING = [];

/**
 * Turns the packed rows of js/src/read.rs (`at` to `end` of `views`) into
 * google.bigtable.v2.Row objects. `shared` is the dictionary the rows
 * refer to: the strings earlier answers sent (for a Tabletop object's whole
 * answers, kept from call to call) and the new entries as they come.
 */
class Unpacker {
  /**
   * Every field is set here, in one order, whatever the answer: all
   * unpackers then share one hidden class (V8's map), which `answers`
   * below keeps alive (see there).
   */
  constructor() {
    this.rawValues = false;
    this.rawKeys = false;
    this.keysApart = false;
    this.keyViews = NO_VIEWS;
    this.keyAt = 0;
    this.keysEnd = 0;
    this.keyText = '';
    this.pieceAt = 0;
    this.pieceEnd = 0;
    this.flat = false;
    this.u8 = NO_VIEWS.u8;
    this.view = NO_VIEWS.view;
    this.node = NO_VIEWS.node;
    this.end = 0;
    this.at = 0;
    this.shared = [];
    this.fams = [];
    this.cols = [];
    this.cells = [];
  }

  /**
   * Points this unpacker at the rows from `at` to `end` of `views`,
   * packed as `format` says; when the keys came apart (format bit 2),
   * their text, one after the other, is `keysAt` to `keysEnd` of
   * `keyViews`.
   */
  aim(views, at, end, { raw, flat }, format, shared, keyViews = NO_VIEWS, keysAt = 0, keysEnd = 0) {
    this.rawValues = raw;
    this.rawKeys = (format & 2) !== 0;
    this.keysApart = (format & 4) !== 0;
    this.keyViews = keyViews;
    this.keyAt = keysAt;
    this.keysEnd = keysEnd;
    this.keyText = '';
    this.pieceAt = keysAt;
    this.pieceEnd = keysAt;
    this.flat = flat;
    this.u8 = views.u8;
    this.view = views.view;
    this.node = views.node;
    this.end = end;
    this.at = at;
    this.shared = shared;
    // Scratch arrays of its own for each answer: the kept unpacker lives in
    // the old generation, and rows' objects stored into arrays there each
    // cost the young generation's collector a remembered pointer.
    this.fams = [];
    this.cols = [];
    this.cells = [];
    return this;
  }

  /**
   * Lets go of the answer's buffer, dictionary and scratch arrays once they
   * are read (allocating nothing: an unpacker let go of reads no row).
   */
  release() {
    this.keyViews = NO_VIEWS;
    this.keyText = '';
    this.u8 = NO_VIEWS.u8;
    this.view = NO_VIEWS.view;
    this.node = NO_VIEWS.node;
    this.end = 0;
    this.at = 0;
    this.shared = NOTHING;
    this.fams = NOTHING;
    this.cols = NOTHING;
    this.cells = NOTHING;
  }

  u32() {
    const v = this.view.getUint32(this.at, true);
    this.at += 4;
    return v;
  }

  /** An ASCII string, inline or from the dictionary. */
  str() {
    const word = this.u32();
    if (word >= 0x80000000) return this.shared[word - 0x80000000];
    const n = word & 0x3fffffff;
    const s = this.at;
    this.at += n;
    const text = ascii(this.u8, this.node, s, n);
    if (word >= 0x40000000) this.shared.push(text);
    return text;
  }

  done() {
    return this.at >= this.end;
  }

  /**
   * A row's key: cut from a piece of the answer's keys' text, inline
   * base64 text, or its bytes that Node writes as base64. A key cut from
   * a piece is a view of it (V8 makes a sliced string from 13 characters
   * on), so a key kept holds its piece alive: at most KEY_PIECE_BYTES
   * (more only for a key longer than that).
   */
  key() {
    if (this.keysApart) {
      const s = this.keyAt;
      const e = s + this.u32();
      this.keyAt = e;
      if (e > this.pieceEnd) this.piece(s, e);
      return this.keyText.slice(s - this.pieceAt, e - this.pieceAt);
    }
    if (!this.rawKeys) return this.str();
    const n = this.u32();
    const s = this.at;
    this.at = s + n;
    return this.node.base64Slice(s, s + n);
  }

  /** Makes the keys' text from `s` (to `e` at least) the piece keys are cut from. */
  piece(s, e) {
    const end = Math.min(this.keysEnd, Math.max(e, s + KEY_PIECE_BYTES));
    this.keyText = asciiText(this.keyViews, s, end);
    this.pieceAt = s;
    this.pieceEnd = end;
  }

  /** A cell's value: base64 text (undefined for none) or a view of its bytes. */
  value() {
    if (this.rawValues) {
      // The value's own bytes: a view into the answer's one buffer.
      const n = this.u32();
      const bytes = n === 0 ? undefined : this.u8.subarray(this.at, this.at + n);
      this.at += n;
      return bytes;
    }
    const text = this.str();
    return text === '' ? undefined : text;
  }

  /** A cell of the nested shape, in the few shapes answers have, each one literal. */
  static cell(ts, value, label) {
    if (ts !== '') {
      if (value !== undefined) return label === '' ? { timestampMicros: ts, value } : { timestampMicros: ts, value, labels: [label] };
      return label === '' ? { timestampMicros: ts } : { timestampMicros: ts, labels: [label] };
    }
    if (value !== undefined) return label === '' ? { value } : { value, labels: [label] };
    return label === '' ? {} : { labels: [label] };
  }

  /**
   * The rest of a cell whose `flags` have been read, in the flat shape: the
   * cell names its family and qualifier (the shapes as in Unpacker.cell).
   */
  flatCell(flags, family, qualifier) {
    const ts = this.str();
    const value = this.value();
    const label = flags & 4 ? this.str() : '';
    if (ts !== '') {
      if (value !== undefined) return label === '' ? { family, qualifier, timestampMicros: ts, value } : { family, qualifier, timestampMicros: ts, value, labels: [label] };
      return label === '' ? { family, qualifier, timestampMicros: ts } : { family, qualifier, timestampMicros: ts, labels: [label] };
    }
    if (value !== undefined) return label === '' ? { family, qualifier, value } : { family, qualifier, value, labels: [label] };
    return label === '' ? { family, qualifier } : { family, qualifier, labels: [label] };
  }

  row() {
    const key = this.key();
    const count = this.u32();
    if (count === 0) return { key };
    // The first cell of a row always starts a family (and so a column).
    if (count === 1) {
      const flags = this.u8[this.at++];
      const name = flags & 1 ? this.str() : '';
      const qualifier = flags & 2 ? this.str() : '';
      const ts = this.str();
      const value = this.value();
      const label = flags & 4 ? this.str() : '';
      // The usual cell (a timestamp and a value, no label) is made in the
      // same literal as the rest of the row: the nested value-regex scan
      // (33,433 rows of one cell) then costs about what the flat one does,
      // where it cost 2x to 2.5x (bench/js/pair.mjs and reads.mjs). The
      // same for each column of one cell in longer rows made the nested
      // prefix scans slower alone in a process (reads.mjs), so those are
      // made cell, list, column in turn.
      if (ts !== '' && value !== undefined && label === '' && qualifier !== '') {
        return { key, families: [{ name, columns: [{ qualifier, cells: [{ timestampMicros: ts, value }] }] }] };
      }
      const cells = [Unpacker.cell(ts, value, label)];
      return { key, families: [{ name, columns: [qualifier === '' ? { cells } : { qualifier, cells }] }] };
    }
    // Arrays are made at their final size (firstOf the scratch arrays): an
    // array grown by push from empty reserves room for 17 elements, and
    // answers of many small rows then cost the garbage collector several
    // times their size. A column's object is made once its cells are all
    // read, and a family's once its columns are: an object is never
    // written to after it is made (when V8 has learnt to make them in the
    // old generation, after a large answer, writing a new object into an
    // old one costs every later young collection). A column's list of
    // one cell (the usual case) is made here rather than in firstOf: V8
    // does not inline firstOf, and with the literal here the nested
    // prefix scans cost a fifth less alone in a process (reads.mjs).
    const u8 = this.u8;
    const fams = this.fams;
    const cols = this.cols;
    const cells = this.cells;
    let families = 0;
    let columns = 0;
    let n = 0;
    let name = '';
    let qualifier = '';
    for (let i = 0; i < count; i++) {
      const flags = u8[this.at++];
      if (flags & 3) {
        if (n !== 0) {
          const list = n === 1 ? [cells[0]] : firstOf(cells, n);
          cols[columns++] = qualifier === '' ? { cells: list } : { qualifier, cells: list };
          n = 0;
        }
        if (flags & 1) {
          if (columns !== 0) {
            fams[families++] = { name, columns: firstOf(cols, columns) };
            columns = 0;
          }
          name = this.str();
        }
        if (flags & 2) qualifier = this.str();
      }
      const ts = this.str();
      const value = this.value();
      const label = flags & 4 ? this.str() : '';
      cells[n++] = Unpacker.cell(ts, value, label);
    }
    if (n !== 0) {
      const list = n === 1 ? [cells[0]] : firstOf(cells, n);
      cols[columns++] = qualifier === '' ? { cells: list } : { qualifier, cells: list };
    }
    fams[families++] = { name, columns: firstOf(cols, columns) };
    return { key, families: firstOf(fams, families) };
  }

  /**
   * A row in the flat shape: `{ key, cells }`, each cell naming its family
   * and qualifier, with timestampMicros, value and labels as in row().
   * Three objects for a one-cell row where row() makes seven.
   */
  flatRow() {
    const key = this.key();
    const count = this.u32();
    if (count === 0) return { key, cells: [] };
    if (count === 1) {
      const flags = this.u8[this.at++];
      const family = flags & 1 ? this.str() : '';
      const qualifier = flags & 2 ? this.str() : '';
      return { key, cells: [this.flatCell(flags, family, qualifier)] };
    }
    const cells = new Array(count);
    let family = '';
    let qualifier = '';
    for (let i = 0; i < count; i++) {
      const flags = this.u8[this.at++];
      if (flags & 1) family = this.str();
      if (flags & 2) qualifier = this.str();
      cells[i] = this.flatCell(flags, family, qualifier);
    }
    return { key, cells };
  }

  /** The next row in the shape asked for. */
  next() {
    return this.flat ? this.flatRow() : this.row();
  }

  rows(out) {
    if (this.flat) while (!this.done()) out.push(this.flatRow());
    else while (!this.done()) out.push(this.row());
    return out;
  }
}

/**
 * The unpacker of whole answers, reused call after call (readRows is never
 * re-entered: nothing it calls runs user code). Keeping one unpacker alive
 * for good also keeps alive the hidden class all unpackers share: when a
 * full garbage collection found no unpacker alive (between two reads, the
 * usual case), V8 dropped that class and with it the optimized code of the
 * read path that depended on it, which it then compiled again at the next
 * reads, 8 to 12 ms of CPU each time (measured with bench/js/reads.mjs and
 * `node --trace-deopt`: "deoptimization, reason: weak objects").
 */
const answers = new Unpacker();

/**
 * In a cursor's chunks, row keys come as their bytes, which Node's Buffer
 * turns into base64 text natively (faster than the packer's base64 in
 * wasm and the copy of its text here); elsewhere they come as base64 text
 * (js/src/read.rs, Format).
 */
const KEYS_AS_BYTES = NodeBuffer !== null && typeof NodeBuffer.prototype.base64Slice === 'function';

/**
 * The four sets of read options, made once (a read allocates none), each
 * with the `format` numbers wasm packs its answers by: bit 0 values as
 * bytes, bit 1 row keys as bytes, bit 2 row keys' text apart. A whole
 * answer has its keys apart: the reader makes their text into strings
 * a piece at a time and cuts each key from one. In Node, 33,433 keys of
 * 23 bytes cost 2.4 ms as one base64Slice each (a call into C++ per key)
 * and 0.7 ms as cuts, and the packer's base64 of them in wasm about
 * 0.4 ms. A cursor's chunk (`chunkFormat`) has no place for them.
 */
const READ_OPTIONS = [false, true].flatMap((flat) => [false, true].map((raw) => ({
  raw, flat, format: (raw ? 1 : 0) | 4, chunkFormat: (raw ? 1 : 0) | (KEYS_AS_BYTES ? 2 : 0),
})));

/**
 * How much of an answer's keys' text is made into one string at a time
 * (keys are cut from it): few calls, and a kept key holds at most this
 * much alive.
 */
const KEY_PIECE_BYTES = 16384;

/** Bytes `u8[s .. e]` of `views`, ASCII, as one string. */
function asciiText(views, s, e) {
  if (s === e) return '';
  return views.node !== null ? views.node.latin1Slice(s, e) : latin1.decode(views.u8.subarray(s, e));
}

/**
 * The options of readRows and readRowsIter: whether cell values come as
 * base64 text (Bigtable's REST JSON, the default) or as bytes, and whether
 * rows come in Bigtable's nested shape (the default) or flat.
 */
function readOptions(method, options) {
  if (options === undefined) return READ_OPTIONS[0];
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`${method}: options must be an object, got ${describe(options)}`);
  }
  for (const k in options) {
    if (k !== 'values' && k !== 'shape') {
      throw new TypeError(`${method}: unknown option ${JSON.stringify(k)} (the options are: values, shape)`);
    }
  }
  const v = options.values;
  if (v !== undefined && v !== 'base64' && v !== 'bytes') {
    throw new TypeError(`${method}: options.values must be 'base64' or 'bytes', got ${describe(v)}`);
  }
  const shape = options.shape;
  if (shape !== undefined && shape !== 'nested' && shape !== 'flat') {
    throw new TypeError(`${method}: options.shape must be 'nested' or 'flat', got ${describe(shape)}`);
  }
  return READ_OPTIONS[(v === 'bytes' ? 1 : 0) | (shape === 'flat' ? 2 : 0)];
}

// ------------------------------------------------------------- the class

/** Bigtable's methods the class offers by name (besides readRows and the writes). */
const GENERAL = [
  'createTable', 'getTable', 'listTables', 'deleteTable', 'modifyColumnFamilies', 'dropRowRange',
  'checkAndMutateRow', 'readModifyWriteRow', 'sampleRowKeys', 'sql',
  'compact', 'advanceClock', 'listTablets', 'explain',
];

/** Answers longer than this give their buffer back once read (js/src/read.rs's KEEP_BYTES). */
const RELEASE_BYTES = 1 << 20;

/**
 * The first size of each object's request buffer in wasm's memory. A
 * request that outgrows it is packed apart and copied in, and the buffer
 * is made larger for the next ones (bulk writes of a thousand rows take
 * about half a megabyte), up to REQUEST_MAX_BYTES: past that, requests
 * are always copied in.
 */
const REQUEST_BYTES = 4096;
const REQUEST_MAX_BYTES = 16 << 20;

/** What readRequested answers for a declined request and for a failed read (js/src/lib.rs). */
const READ_DECLINED = 0xffffffff;
const READ_FAILED = 0xfffffffe;

/**
 * The package's classes over a wasm-bindgen build `raw`. `notLoaded()`
 * answers null once its wasm is instantiated (the browser build loads it
 * in init(); Node's is loaded when required) and until then why not:
 * every way into wasm throws FAILED_PRECONDITION with that reason, rather
 * than wasm-bindgen's "Cannot read properties of undefined".
 */
function makeTabletop(raw, notLoaded = () => null) {
  const Raw = raw.Tabletop;

  function requireLoaded(what) {
    const reason = notLoaded();
    if (reason !== null) throw new TabletopError(9, 'FAILED_PRECONDITION', `${what}: ${reason}`);
  }

  /**
   * Views of the wasm module's memory, remade when the memory has grown
   * (growing replaces its ArrayBuffer and detaches the views of the old
   * one). Fetched when first needed: a browser build has no memory until
   * init() has loaded the module.
   */
  let memory = null;
  let views = null;
  function memoryViews() {
    // A grown memory detaches the old buffer, whose views then have no
    // bytes (cheaper to check than fetching `memory.buffer` each read).
    if (views === null || views.u8.byteLength === 0) {
      memory ??= Raw.memory();
      views = viewsOf(memory.buffer);
    }
    return views;
  }

  function convert(e) {
    if (e !== null && typeof e === 'object' && !(e instanceof Error) && typeof e.status === 'string') {
      return new TabletopError(e.code, e.status, e.message);
    }
    return e;
  }

  /**
   * A Bigtable instance in memory. It starts empty, its clock at 0 (moved
   * only by `advanceClock`), so tests repeat exactly.
   */
  class Tabletop {
    #raw;
    #broken = null;
    /**
     * The strings whole readRows answers sent as dictionary entries, in
     * order: later answers refer to them by index (js/src/read.rs).
     */
    #shared = [];
    /**
     * Where this object's request buffer starts in wasm's memory (0 until
     * first asked for) and the packer over it (see #requestPacker).
     */
    #requestAt = 0;
    #request = null;
    /** The request buffer's size. */
    #requestBytes = REQUEST_BYTES;

    /**
     * `options.engine`: 'default' (the playground's engine thresholds:
     * small memtables and tablets, so flushes and splits show in small
     * tables) or 'bulk' (big memtables and tablets, for loading large data
     * sets fast, as the core's own benchmark does).
     * `options.emulatorParity`: true to answer as Google's Bigtable
     * emulator does where it differs from production (the CLI's
     * --emulator-parity); false (the default) answers as production.
     */
    constructor(options) {
      if (options instanceof Raw) {
        this.#raw = options;
        return;
      }
      requireLoaded('new Tabletop()');
      if (options === undefined) {
        this.#raw = new Raw();
        return;
      }
      if (typeof options !== 'object' || options === null || Array.isArray(options)) {
        throw new TypeError(`Tabletop: options must be an object, got ${describe(options)}`);
      }
      for (const k in options) {
        if (k !== 'engine' && k !== 'emulatorParity') {
          throw new TypeError(`Tabletop: unknown option ${JSON.stringify(k)} (the options are: engine, emulatorParity)`);
        }
      }
      const engine = options.engine ?? 'default';
      if (engine !== 'default' && engine !== 'bulk') {
        throw new TypeError(`Tabletop: options.engine must be 'default' or 'bulk', got ${describe(engine)}`);
      }
      const parity = options.emulatorParity ?? false;
      if (typeof parity !== 'boolean') {
        throw new TypeError(`Tabletop: options.emulatorParity must be true or false, got ${describe(parity)}`);
      }
      this.#raw = engine === 'default' ? new Raw() : Raw.withEngine(engine);
      this.#raw.emulatorParity = parity;
    }

    /**
     * Whether this object answers as Google's emulator does where it
     * differs from production (the `emulatorParity` option; a snapshot
     * keeps it).
     */
    get emulatorParity() {
      return this.#run((r) => r.emulatorParity);
    }

    /** Runs `fn(raw)`, turning the core's errors into TabletopError. */
    #run(fn) {
      if (this.#broken) throw this.#broken;
      try {
        return fn(this.#raw);
      } catch (e) {
        throw this.#failure(e);
      }
    }

    /**
     * What to throw for an error from wasm: a failure of the wasm code
     * itself leaves this object unusable.
     */
    #failure(e) {
      if (e instanceof WebAssembly.RuntimeError) {
        this.#broken = new TabletopError(13, 'INTERNAL',
          `the wasm code failed (${e.message}); this Tabletop object can no longer be used, create a new one`);
        return this.#broken;
      }
      return convert(e);
    }

    /**
     * A readRows answer packed in wasm's memory (js/src/read.rs); answers
     * its length. A plain read is packed (js/src/request.rs) straight into
     * this object's request buffer in wasm's memory, unless it outgrows
     * it; anything else goes as JSON text. #run's work spelled out, with
     * no closure per read.
     */
    #readPacked(request, format, known) {
      if (this.#broken) throw this.#broken;
      const raw = this.#raw;
      try {
        const p = this.#requestPacker();
        let length = READ_DECLINED;
        if (packRead(p, request)) {
          length = p.buf.buffer === memoryViews().buffer
            ? raw.readRequested(p.at, format, known)
            : raw.readPackedRequest(p.buf.subarray(0, p.at), format, known) ?? READ_DECLINED;
        }
        if (length === READ_FAILED) throw raw.takeFailure();
        if (length === READ_DECLINED) length = raw.readPacked(requestText(request), format, known);
        return length;
      } catch (e) {
        throw this.#failure(e);
      }
    }

    /**
     * The packer over this object's request buffer in wasm's memory,
     * remade when the memory has grown (its view is then of the old
     * buffer) or a request outgrew it (the buffer then grows to the
     * request's size, within REQUEST_MAX_BYTES).
     */
    #requestPacker() {
      let p = this.#request;
      const { buffer } = memoryViews();
      if (p === null || p.buf.buffer !== buffer) {
        // Twice the size a request outgrew it to, so that requests of about
        // that size (a load's batches) fit from then on: a buffer
        // reallocated again and again amid a load's growing tables leaves
        // holes in wasm's memory, which then grows further.
        const wanted = p === null ? 0 : Math.min(2 * p.buf.length, REQUEST_MAX_BYTES);
        if (wanted > this.#requestBytes) {
          this.#requestBytes = wanted;
          this.#requestAt = 0;
        }
        if (this.#requestAt === 0) this.#requestAt = this.#raw.requestBuffer(this.#requestBytes);
        // requestBuffer may have grown the memory.
        p = Packer.over(memoryViews().buffer, this.#requestAt, this.#requestBytes);
        this.#request = p;
      }
      return p;
    }

    /** Runs any method of the protocol by name on a request object. */
    call(method, request) {
      requireString('call', method);
      requireObject(method, request);
      // A read's answer is built the packed way, never as one JSON tree.
      if (method === 'readRows') return this.readRows(request);
      const text = requestText(request);
      return this.#run((r) => r.call(method, text));
    }

    /**
     * A mutateRow (kind 2) or mutateRows (1) run the packed way: what
     * writePacked answers (js/src/lib.rs), `undefined` when the request
     * must go to the general decoder. The request is packed straight into
     * the request buffer in wasm's memory, or apart and copied in when it
     * outgrew it.
     */
    #writePacked(kind, request) {
      const p = this.#requestPacker();
      if (!packWrite(p, kind, request)) return undefined;
      if (p.buf.buffer === memoryViews().buffer) return this.#run((r) => r.writeRequested(p.at));
      const packed = p.buf.subarray(0, p.at);
      return this.#run((r) => r.writePacked(packed));
    }

    mutateRow(request) {
      requireObject('mutateRow', request);
      if (this.#writePacked(2, request) === null) return {};
      const text = requestText(request);
      return this.#run((r) => r.call('mutateRow', text));
    }

    mutateRows(request) {
      requireObject('mutateRows', request);
      const failed = this.#writePacked(1, request);
      if (failed === undefined) {
        const text = requestText(request);
        return this.#run((r) => r.call('mutateRows', text));
      }
      const entries = new Array(request.entries.length);
      for (let i = 0; i < entries.length; i++) entries[i] = { index: i, status: { code: 0 } };
      for (let i = 0; i < failed.length; i += 3) {
        entries[failed[i]] = { index: failed[i], status: { code: failed[i + 1], message: failed[i + 2] } };
      }
      return entries.length ? { entries } : {};
    }

    /**
     * The rows of a readRows request. `options.values`: 'base64' (the
     * default, Bigtable's REST JSON) or 'bytes' (each cell's value a
     * Uint8Array, a view into one buffer shared by the answer).
     * `options.shape`: 'nested' (the default, Bigtable's families, columns
     * and cells) or 'flat' (each row `{ key, cells }`, each cell naming its
     * family and qualifier).
     */
    readRows(request, options) {
      requireObject('readRows', request);
      const opts = readOptions('readRows', options);
      const shared = this.#shared;
      const length = this.#readPacked(request, opts.format, shared.length);
      // The answer is read where wasm packed it, before any other call
      // into wasm (which may reuse that buffer or grow the memory). Raw
      // values stay views into the answer, so that answer is copied first.
      const at = this.#raw.answerAt;
      const keysAt = this.#raw.answerKeysAt;
      const keyViews = memoryViews();
      const keysEnd = keysAt + keyViews.view.getUint32(at + 8, true);
      let views = keyViews;
      let start = at;
      if (opts.raw) {
        views = viewsOf(views.u8.slice(at, at + length).buffer);
        start = 0;
      }
      // stats_len:u32 base:u32 keys_len:u32, the rows, then stats_len
      // bytes of requestStats JSON; the rows' keys' text (keys_len bytes)
      // is apart, at answerKeysAt. `base` is how many dictionary entries
      // the answer builds on: the entries past it (sent by answers that
      // failed or were dropped) are forgotten.
      const statsLength = views.view.getUint32(start, true);
      const base = views.view.getUint32(start + 4, true);
      if (base > shared.length) {
        throw new TabletopError(13, 'INTERNAL', `readRows: the answer refers to ${base} strings, this object holds ${shared.length}`);
      }
      // (Setting an array's length is a call into V8's runtime, even to
      // the length it has.)
      if (shared.length !== base) shared.length = base;
      const end = start + length - statsLength;
      let rows;
      try {
        rows = answers.aim(views, start + 12, end, opts, opts.format, shared, keyViews, keysAt, keysEnd).rows([]);
      } finally {
        answers.release();
      }
      const answer = { rows };
      if (statsLength > 0) {
        answer.requestStats = JSON.parse(new TextDecoder().decode(views.u8.subarray(end, start + length)));
      }
      if (length > RELEASE_BYTES) this.#raw.releaseAnswer();
      return answer;
    }

    /**
     * The rows of a readRows request one at a time, read a chunk at a time
     * and made one at a time (never the whole answer at once); the options
     * are readRows'. Errors in the request throw here; leaving the loop
     * early (`break`) closes the read.
     */
    readRowsIter(request, options) {
      requireObject('readRowsIter', request);
      const opts = readOptions('readRowsIter', options);
      const text = requestText(request);
      const id = this.#run((r) => r.openRows(text, opts.chunkFormat));
      const next = () => this.#run((r) => r.nextRows(id));
      const close = () => {
        if (!this.#broken) this.#raw.closeRows(id);
      };
      // The chunk being read; its dictionary grows as its rows are made.
      let chunk = null;
      let over = false;
      const fill = () => {
        const bytes = next();
        if (bytes === undefined) {
          over = true;
          chunk = null;
        } else {
          chunk = new Unpacker().aim(viewsOf(bytes.buffer, bytes.byteOffset, bytes.byteLength), 0, bytes.length, opts, opts.chunkFormat, []);
        }
      };
      try {
        fill();
      } catch (e) {
        close();
        throw e;
      }
      return {
        [Symbol.iterator]() {
          return this;
        },
        next() {
          while (!over && chunk.done()) fill();
          if (!over) return { value: chunk.next(), done: false };
          return { value: undefined, done: true };
        },
        return() {
          over = true;
          chunk = null;
          close();
          return { value: undefined, done: true };
        },
      };
    }

    /** The whole instance as bytes, for `restore`. */
    snapshot() {
      return this.#run((r) => r.snapshot());
    }

    /**
     * Puts this object back to the state `bytes` (from `snapshot()`) hold;
     * this also revives an object that a wasm failure left unusable.
     */
    restore(bytes) {
      if (!(bytes instanceof Uint8Array)) throw new TypeError(`restore: expected a Uint8Array, got ${describe(bytes)}`);
      let next;
      try {
        next = Raw.restore(bytes);
      } catch (e) {
        throw convert(e);
      }
      if (this.#broken) {
        // The old object may still be borrowed by the failed call: leave it.
        next.maxAnswerBytes = 256 * 1024 * 1024;
      } else {
        next.maxAnswerBytes = this.#raw.maxAnswerBytes;
        this.#raw.free();
      }
      this.#raw = next;
      this.#broken = null;
      this.#shared = [];
      this.#requestAt = 0;
      this.#request = null;
    }

    /** A new object holding the instance `bytes` (from `snapshot()`) describe. */
    static restore(bytes) {
      requireLoaded('Tabletop.restore');
      if (!(bytes instanceof Uint8Array)) throw new TypeError(`restore: expected a Uint8Array, got ${describe(bytes)}`);
      try {
        return new Tabletop(Raw.restore(bytes));
      } catch (e) {
        throw convert(e);
      }
    }

    /**
     * Makes sure `bytes` bytes of the module's memory (shared by every
     * Tabletop object) are free in one block, growing it now, at most once,
     * if they are not; answers the memory's size in bytes afterwards
     * (`reserveMemory(0)` only answers it). Throws RESOURCE_EXHAUSTED if
     * the memory cannot grow that much (the objects stay usable).
     *
     * Why: while a write makes the memory grow, V8 counts each new size as
     * memory held outside its heap, and in Node 20, once that has grown by
     * about 64 MiB since its last full collection, it runs one: a walk of
     * the whole JavaScript heap. Loading 100,000 rows (775,000 cells) from
     * 200 MB of request objects grows the memory to about 75 MiB and costs
     * two such collections, over half of the load's CPU time. Reserved
     * early, while the heap is small, the same load grows nothing.
     */
    static reserveMemory(bytes) {
      requireLoaded('Tabletop.reserveMemory');
      if (!Number.isInteger(bytes) || bytes < 0 || bytes > 0xffffffff) {
        throw new TypeError(`reserveMemory: expected an integer from 0 to 4294967295, got ${describe(bytes)}`);
      }
      if (!Raw.reserveMemory(bytes)) {
        throw new TabletopError(8, 'RESOURCE_EXHAUSTED', `reserveMemory: the module's memory cannot grow to hold ${bytes} more bytes`);
      }
      memory ??= Raw.memory();
      return memory.buffer.byteLength;
    }

    /** The most bytes one readRows answer may take before RESOURCE_EXHAUSTED. */
    get maxAnswerBytes() {
      return this.#run((r) => r.maxAnswerBytes);
    }

    set maxAnswerBytes(bytes) {
      if (!Number.isInteger(bytes) || bytes < 1024 || bytes > 0xffffffff) {
        throw new TypeError(`maxAnswerBytes: expected an integer from 1024 to 4294967295, got ${describe(bytes)}`);
      }
      this.#run((r) => {
        r.maxAnswerBytes = bytes;
      });
    }

    /** One line of the JSON protocol in, one answer line out (as before the package). */
    handle(line) {
      requireString('handle', line);
      return this.#run((r) => r.handle(line));
    }

    handleTraced(line) {
      requireString('handleTraced', line);
      return this.#run((r) => r.handleTraced(line));
    }

    /** One cbt command line in; what cbt prints out. */
    cbt(line) {
      requireString('cbt', line);
      return this.#run((r) => r.cbt(line));
    }

    cbtOutcome(line) {
      requireString('cbtOutcome', line);
      return this.#run((r) => r.cbtOutcome(line));
    }

    cbtTraced(line) {
      requireString('cbtTraced', line);
      return this.#run((r) => r.cbtTraced(line));
    }

    /** Frees the wasm memory of this object now (it is also freed when collected). */
    free() {
      if (this.#raw) this.#raw.free();
      this.#broken = new TabletopError(9, 'FAILED_PRECONDITION', 'this Tabletop object was freed');
    }

    static methods() {
      requireLoaded('Tabletop.methods');
      return Raw.methods();
    }

    static cbtCommands() {
      requireLoaded('Tabletop.cbtCommands');
      return Raw.cbtCommands();
    }
  }

  for (const method of GENERAL) {
    Object.defineProperty(Tabletop.prototype, method, {
      value: function general(request) {
        requireObject(method, request);
        return this.call(method, request);
      },
      writable: true,
      configurable: true,
    });
  }

  return { Tabletop, TabletopError };
}
