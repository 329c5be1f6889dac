/**
 * A data-only reader of Python pickles (protocols 2 to 5, as CPython's `pickle.dump` and
 * PyTorch's C++ `torch::jit::Pickler` write them), for PyTorch's NCCL flight-recorder dumps.
 * It builds plain values (null, booleans, numbers, BigInts, strings, bytes, arrays, Maps) and
 * refuses every opcode that names or calls code (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ,
 * NEWOBJ, PERSID...): aifabric never executes a pickle. Garbage gives an InputError, never a crash.
 *
 * Opcodes and their argument encodings: python/cpython@v3.12.0 Lib/pickletools.py (the `opcodes`
 * table) and Modules/_pickle.c (`enum opcode`, load_* functions). PyTorch's writer:
 * pytorch/pytorch torch/csrc/jit/serialization/pickler.cpp (protocol 2; BINUNICODE strings
 * memoized with BINPUT; 64-bit ints as LONG1 of 8 bytes; doubles as big-endian BINFLOAT).
 */
import { InputError } from '../core/errors.js';

/** A pickled value. Tuples are frozen arrays; dicts are Maps keyed by primitive values (or tuple objects). */
export type PickleValue = null | boolean | number | bigint | string | Uint8Array | PickleValue[] | PickleDict;
export type PickleDict = Map<PickleValue, PickleValue>;

/** Limits that keep hostile input from exhausting memory (a dump has a few thousand entries). */
const MAX_MEMO = 1 << 22;
/** Longest LONG1/LONG4 integer read (bytes): flight-recorder integers are 8 bytes; a huge one is garbage. */
const MAX_LONG_BYTES = 4096;

/** Marks on the stack (MARK pushes one; the *S opcodes pop back to it). */
const MARK = Symbol('mark');
type StackItem = PickleValue | typeof MARK;

/** Opcode bytes (pickletools.py names), only those this reader knows. */
const OP = {
  PROTO: 0x80,
  FRAME: 0x95,
  STOP: 0x2e,
  MARK: 0x28,
  POP: 0x30,
  POP_MARK: 0x31,
  DUP: 0x32,
  NONE: 0x4e,
  NEWTRUE: 0x88,
  NEWFALSE: 0x89,
  BININT: 0x4a,
  BININT1: 0x4b,
  BININT2: 0x4d,
  LONG1: 0x8a,
  LONG4: 0x8b,
  BINFLOAT: 0x47,
  SHORT_BINUNICODE: 0x8c,
  BINUNICODE: 0x58,
  BINUNICODE8: 0x8d,
  SHORT_BINSTRING: 0x55,
  BINSTRING: 0x54,
  SHORT_BINBYTES: 0x43,
  BINBYTES: 0x42,
  BINBYTES8: 0x8e,
  BYTEARRAY8: 0x96,
  EMPTY_DICT: 0x7d,
  DICT: 0x64,
  SETITEM: 0x73,
  SETITEMS: 0x75,
  EMPTY_LIST: 0x5d,
  LIST: 0x6c,
  APPEND: 0x61,
  APPENDS: 0x65,
  EMPTY_TUPLE: 0x29,
  TUPLE: 0x74,
  TUPLE1: 0x85,
  TUPLE2: 0x86,
  TUPLE3: 0x87,
  EMPTY_SET: 0x8f,
  ADDITEMS: 0x90,
  FROZENSET: 0x91,
  MEMOIZE: 0x94,
  BINPUT: 0x71,
  LONG_BINPUT: 0x72,
  BINGET: 0x68,
  LONG_BINGET: 0x6a,
} as const;

/** Opcodes that import, call or build objects, or read outside the stream: refused by name. */
const REFUSED: Record<number, string> = {
  0x63: 'GLOBAL',
  0x93: 'STACK_GLOBAL',
  0x52: 'REDUCE',
  0x62: 'BUILD',
  0x69: 'INST',
  0x6f: 'OBJ',
  0x81: 'NEWOBJ',
  0x92: 'NEWOBJ_EX',
  0x50: 'PERSID',
  0x51: 'BINPERSID',
  0x82: 'EXT1',
  0x83: 'EXT2',
  0x84: 'EXT4',
  0x97: 'NEXT_BUFFER',
  0x98: 'READONLY_BUFFER',
  // Protocol 0 text opcodes: CPython never writes them at protocol 2+.
  0x49: 'INT',
  0x4c: 'LONG',
  0x46: 'FLOAT',
  0x53: 'STRING',
  0x56: 'UNICODE',
  0x70: 'PUT',
  0x67: 'GET',
};

const UTF8 = new TextDecoder('utf-8');

class Reader {
  pos = 0;
  constructor(
    readonly bytes: Uint8Array,
    readonly view: DataView,
    readonly source: string,
  ) {}

  fail(what: string, at = this.pos): never {
    throw new InputError(`${this.source}: pickle byte ${at}: ${what}`);
  }

  take(n: number | bigint, what: string): Uint8Array {
    const length = Number(n);
    if (!Number.isSafeInteger(length) || length < 0 || this.pos + length > this.bytes.length) {
      this.fail(
        `${what} of ${String(n)} bytes runs past the end (${this.bytes.length} bytes): file cut short?`,
      );
    }
    const out = this.bytes.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  u8(what: string): number {
    if (this.pos >= this.bytes.length) this.fail(`${what} runs past the end: file cut short?`);
    return this.bytes[this.pos++]!;
  }

  u16(what: string): number {
    const at = this.take(2, what).byteOffset - this.bytes.byteOffset;
    return this.view.getUint16(at, true);
  }

  u32(what: string): number {
    const at = this.take(4, what).byteOffset - this.bytes.byteOffset;
    return this.view.getUint32(at, true);
  }

  i32(what: string): number {
    const at = this.take(4, what).byteOffset - this.bytes.byteOffset;
    return this.view.getInt32(at, true);
  }

  u64(what: string): bigint {
    const at = this.take(8, what).byteOffset - this.bytes.byteOffset;
    return this.view.getBigUint64(at, true);
  }

  f64be(what: string): number {
    const at = this.take(8, what).byteOffset - this.bytes.byteOffset;
    return this.view.getFloat64(at, false);
  }
}

/** Little-endian two's complement (pickletools.py decode_long): a BigInt, or a number when it is safe. */
export function decodeLong(bytes: Uint8Array): number | bigint {
  if (bytes.length === 0) return 0;
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
  if ((bytes[bytes.length - 1]! & 0x80) !== 0) value -= 1n << BigInt(8 * bytes.length);
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}

/** A plain Uint8Array copy (a Buffer's slice would stay a Buffer). */
function copyBytes(view: Uint8Array): Uint8Array {
  return Uint8Array.from(view);
}

/** Tuples (and frozensets) are frozen arrays: APPEND onto one is refused as it is in Python. */
function tuple(items: PickleValue[]): PickleValue[] {
  Object.freeze(items);
  return items;
}

const NAME_BY_CODE = new Map<number, string>(Object.entries(OP).map(([name, code]) => [code, name]));

function opName(code: number): string {
  return NAME_BY_CODE.get(code) ?? REFUSED[code] ?? `0x${code.toString(16).padStart(2, '0')}`;
}

/**
 * Read one pickle from `bytes` up to its STOP opcode. `source` names the file in error messages.
 * Throws InputError for truncated or malformed streams and for opcodes that would run code.
 */
export function readPickle(bytes: Uint8Array, source = 'input'): PickleValue {
  const r: Reader = new Reader(bytes, new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), source);
  const stack: StackItem[] = [];
  const memo = new Map<number, PickleValue>();

  const pop = (what: string, at: number): PickleValue => {
    const item = stack.pop();
    if (item === undefined || item === MARK) r.fail(`${what} found an empty stack or a MARK`, at);
    return item;
  };
  const top = (what: string, at: number): PickleValue => {
    const item = stack[stack.length - 1];
    if (item === undefined || item === MARK) r.fail(`${what} found an empty stack or a MARK`, at);
    return item;
  };
  const popToMark = (what: string, at: number): PickleValue[] => {
    const index = stack.lastIndexOf(MARK);
    if (index < 0) r.fail(`${what} without a MARK`, at);
    const items = stack.splice(index);
    return items.slice(1) as PickleValue[];
  };
  const put = (id: number, at: number): void => {
    if (memo.size >= MAX_MEMO && !memo.has(id)) r.fail('memo grew past its limit', at);
    memo.set(id, top('memo put', at));
  };
  const get = (id: number, at: number): void => {
    if (!memo.has(id)) r.fail(`memo get of missing key ${id}`, at);
    stack.push(memo.get(id) as PickleValue);
  };
  const asList = (value: PickleValue, what: string, at: number): PickleValue[] => {
    if (!Array.isArray(value) || Object.isFrozen(value))
      r.fail(`${what} onto something that is not a list`, at);
    return value;
  };
  const asDict = (value: PickleValue, what: string, at: number): PickleDict => {
    if (!(value instanceof Map)) r.fail(`${what} onto something that is not a dict`, at);
    return value;
  };
  const setItems = (dict: PickleDict, items: PickleValue[], at: number): void => {
    if (items.length % 2 !== 0) r.fail('SETITEMS with an odd number of items', at);
    for (let i = 0; i < items.length; i += 2) dict.set(items[i] as PickleValue, items[i + 1] as PickleValue);
  };

  for (;;) {
    const at = r.pos;
    if (at >= bytes.length) r.fail('ends without STOP: file cut short?');
    const code = r.u8('opcode');
    switch (code) {
      case OP.PROTO: {
        const version = r.u8('PROTO version');
        if (version > 5) r.fail(`protocol ${version} (this reader knows 2 to 5)`, at);
        break;
      }
      case OP.FRAME:
        r.u64('FRAME length'); // frames only group bytes for buffered readers; the opcodes follow inline
        break;
      case OP.STOP: {
        const value = pop('STOP', at);
        return value;
      }
      case OP.MARK:
        stack.push(MARK);
        break;
      case OP.POP:
        if (stack.pop() === undefined) r.fail('POP of an empty stack', at);
        break;
      case OP.POP_MARK:
        popToMark('POP_MARK', at);
        break;
      case OP.DUP:
        stack.push(top('DUP', at));
        break;
      case OP.NONE:
        stack.push(null);
        break;
      case OP.NEWTRUE:
        stack.push(true);
        break;
      case OP.NEWFALSE:
        stack.push(false);
        break;
      case OP.BININT:
        stack.push(r.i32('BININT'));
        break;
      case OP.BININT1:
        stack.push(r.u8('BININT1'));
        break;
      case OP.BININT2:
        stack.push(r.u16('BININT2'));
        break;
      case OP.LONG1:
        stack.push(decodeLong(r.take(r.u8('LONG1 length'), 'LONG1')));
        break;
      case OP.LONG4: {
        const length = r.i32('LONG4 length');
        if (length < 0 || length > MAX_LONG_BYTES)
          r.fail(`LONG4 of ${length} bytes (at most ${MAX_LONG_BYTES} read)`, at);
        stack.push(decodeLong(r.take(length, 'LONG4')));
        break;
      }
      case OP.BINFLOAT:
        stack.push(r.f64be('BINFLOAT'));
        break;
      case OP.SHORT_BINUNICODE:
        stack.push(UTF8.decode(r.take(r.u8('SHORT_BINUNICODE length'), 'SHORT_BINUNICODE')));
        break;
      case OP.BINUNICODE:
        stack.push(UTF8.decode(r.take(r.u32('BINUNICODE length'), 'BINUNICODE')));
        break;
      case OP.BINUNICODE8:
        stack.push(UTF8.decode(r.take(r.u64('BINUNICODE8 length'), 'BINUNICODE8')));
        break;
      case OP.SHORT_BINSTRING:
        stack.push(UTF8.decode(r.take(r.u8('SHORT_BINSTRING length'), 'SHORT_BINSTRING')));
        break;
      case OP.BINSTRING: {
        const length = r.i32('BINSTRING length');
        if (length < 0) r.fail('BINSTRING with a negative length', at);
        stack.push(UTF8.decode(r.take(length, 'BINSTRING')));
        break;
      }
      case OP.SHORT_BINBYTES:
        stack.push(copyBytes(r.take(r.u8('SHORT_BINBYTES length'), 'SHORT_BINBYTES')));
        break;
      case OP.BINBYTES:
        stack.push(copyBytes(r.take(r.u32('BINBYTES length'), 'BINBYTES')));
        break;
      case OP.BINBYTES8:
      case OP.BYTEARRAY8:
        stack.push(copyBytes(r.take(r.u64('BINBYTES8 length'), opName(code))));
        break;
      case OP.EMPTY_DICT:
        stack.push(new Map());
        break;
      case OP.DICT: {
        const dict: PickleDict = new Map();
        setItems(dict, popToMark('DICT', at), at);
        stack.push(dict);
        break;
      }
      case OP.SETITEM: {
        const value = pop('SETITEM', at);
        const key = pop('SETITEM', at);
        asDict(top('SETITEM', at), 'SETITEM', at).set(key, value);
        break;
      }
      case OP.SETITEMS: {
        const items = popToMark('SETITEMS', at);
        setItems(asDict(top('SETITEMS', at), 'SETITEMS', at), items, at);
        break;
      }
      case OP.EMPTY_LIST:
      case OP.EMPTY_SET:
        stack.push([]);
        break;
      case OP.LIST:
        stack.push(popToMark('LIST', at));
        break;
      case OP.APPEND: {
        const value = pop('APPEND', at);
        asList(top('APPEND', at), 'APPEND', at).push(value);
        break;
      }
      case OP.APPENDS:
      case OP.ADDITEMS: {
        const items = popToMark(opName(code), at);
        const list = asList(top(opName(code), at), opName(code), at);
        for (const item of items) list.push(item);
        break;
      }
      case OP.FROZENSET:
        stack.push(tuple(popToMark('FROZENSET', at)));
        break;
      case OP.EMPTY_TUPLE:
        stack.push(tuple([]));
        break;
      case OP.TUPLE:
        stack.push(tuple(popToMark('TUPLE', at)));
        break;
      case OP.TUPLE1:
      case OP.TUPLE2:
      case OP.TUPLE3: {
        const n = code - OP.TUPLE1 + 1;
        const items: PickleValue[] = [];
        for (let i = 0; i < n; i++) items.unshift(pop(opName(code), at));
        stack.push(tuple(items));
        break;
      }
      case OP.MEMOIZE:
        put(memo.size, at);
        break;
      case OP.BINPUT:
        put(r.u8('BINPUT key'), at);
        break;
      case OP.LONG_BINPUT:
        put(r.u32('LONG_BINPUT key'), at);
        break;
      case OP.BINGET:
        get(r.u8('BINGET key'), at);
        break;
      case OP.LONG_BINGET:
        get(r.u32('LONG_BINGET key'), at);
        break;
      default: {
        const refused = REFUSED[code];
        if (refused !== undefined)
          r.fail(
            `opcode ${refused} (0x${code.toString(16)}) names or runs code (aifabric reads plain data only and never runs a pickle)`,
            at,
          );
        r.fail(`unknown opcode 0x${code.toString(16).padStart(2, '0')}`, at);
      }
    }
  }
}

/** True when the bytes start like a protocol 2+ pickle (PROTO opcode 0x80, then a version 2 to 5). */
export function looksLikePickle(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === OP.PROTO && bytes[1]! >= 2 && bytes[1]! <= 5;
}
