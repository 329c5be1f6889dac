/**
 * The data-only pickle reader (src/parse/pickle.ts): the dumps Python's own pickle wrote for
 * protocols 2, 4 and 5 (test/fixtures/flight-recorder/make_dumps.py), hand-assembled opcode
 * streams (encodings from CPython Lib/pickletools.py), refusal of code-running opcodes, and,
 * where python3 is installed, values pickled by Python at test time.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import {
  decodeLong,
  looksLikePickle,
  readPickle,
  type PickleDict,
  type PickleValue,
} from '../../src/parse/pickle.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'flight-recorder');
const T0 = 1733011200123456789n;

function fixture(path: string): Buffer {
  return readFileSync(join(FIXTURES, path));
}

function dict(value: PickleValue): PickleDict {
  if (!(value instanceof Map)) throw new Error('not a dict');
  return value;
}

function bytes(...parts: (number | number[] | string)[]): Uint8Array {
  const out: number[] = [];
  for (const part of parts) {
    if (typeof part === 'number') out.push(part);
    else if (typeof part === 'string') out.push(...Buffer.from(part, 'utf8'));
    else out.push(...part);
  }
  return Uint8Array.from(out);
}

const PROTO2 = [0x80, 2];
const STOP = 0x2e;

describe('readPickle on dumps written by CPython pickle.dump', () => {
  it('protocol 2 (BINUNICODE, BINPUT/BINGET, LONG1, BINFLOAT, TUPLE2, APPENDS, SETITEMS)', () => {
    const buffer = fixture('straggler-p2/nccl_trace_rank_0');
    expect([...buffer.subarray(0, 2)]).toEqual([0x80, 2]);
    const dump = dict(readPickle(buffer));
    expect(dump.get('version')).toBe('2.4');
    const entries = dump.get('entries') as PickleValue[];
    expect(entries).toHaveLength(7);
    const first = dict(entries[0] as PickleValue);
    expect(first.get('time_created_ns')).toBe(T0);
    expect(first.get('time_discovered_started_ns')).toBe(T0 + 20_000n);
    expect(first.get('process_group')).toEqual(['0', 'default_pg']);
    expect(Object.isFrozen(first.get('process_group'))).toBe(true);
    expect(first.get('duration_ms')).toBe(0.2);
    expect(first.get('input_sizes')).toEqual([[1048576]]);
    expect(first.get('input_dtypes')).toEqual(['Float']);
    expect(first.get('retired')).toBe(true);
    expect(first.get('is_p2p')).toBe(false);
    expect(first.get('timeout_ms')).toBe(600000);
    const config = dict(dict(dump.get('pg_config') as PickleValue).get('1') as PickleValue);
    expect(config.get('desc')).toBe('mesh_dp');
    expect(config.get('ranks')).toBe('[0, 1, 2, 3]');
  });

  it('protocol 4 (FRAME, SHORT_BINUNICODE, MEMOIZE) and None for times not seen', () => {
    const buffer = fixture('hang-p4/nccl_trace_rank_1');
    expect([...buffer.subarray(0, 3)]).toEqual([0x80, 4, 0x95]);
    const entries = dict(readPickle(buffer)).get('entries') as PickleValue[];
    const last = dict(entries[2] as PickleValue);
    expect(last.get('state')).toBe('scheduled');
    expect(last.get('time_discovered_started_ns')).toBeNull();
    expect(last.get('time_discovered_completed_ns')).toBeNull();
    expect(last.has('duration_ms')).toBe(false);
    expect(last.get('input_sizes')).toEqual([[2048, 512]]);
  });

  it('protocol 5 keeps nanoseconds that differ in the last digit apart', () => {
    const entries = dict(readPickle(fixture('exact-p5/nccl_trace_rank_0'))).get('entries') as PickleValue[];
    const created = entries.map((entry) => dict(entry).get('time_created_ns'));
    expect(created).toEqual([T0, T0 + 1n]);
    // The same two values as doubles are one number: the reason for BigInts.
    expect(Number(T0)).toBe(Number(T0 + 1n));
  });

  it('every prefix of every dump is an InputError, never another exception', () => {
    for (const path of [
      'straggler-p2/nccl_trace_rank_0',
      'hang-p4/nccl_trace_rank_0',
      'exact-p5/nccl_trace_rank_1',
    ]) {
      const buffer = fixture(path);
      for (let n = 0; n < buffer.length; n++) {
        expect(() => readPickle(buffer.subarray(0, n), path), `${path} cut at ${n}`).toThrow(InputError);
      }
    }
  });
});

describe('readPickle opcodes', () => {
  it('integers: BININT1/2, negative BININT, LONG1 and LONG4 two’s complement', () => {
    expect(readPickle(bytes(PROTO2, 0x4b, 0xff, STOP))).toBe(255);
    expect(readPickle(bytes(PROTO2, 0x4d, 0x34, 0x12, STOP))).toBe(0x1234);
    expect(readPickle(bytes(PROTO2, 0x4a, 0xfe, 0xff, 0xff, 0xff, STOP))).toBe(-2);
    expect(readPickle(bytes(PROTO2, 0x8a, 0, STOP))).toBe(0);
    expect(readPickle(bytes(PROTO2, 0x8a, 1, 0xff, STOP))).toBe(-1);
    expect(readPickle(bytes(PROTO2, 0x8a, 2, 0xff, 0x00, STOP))).toBe(255);
    // 2**63 - 1 and -2**63 as LONG1 of 8 bytes (what torch's pushInt writes for int64).
    expect(readPickle(bytes(PROTO2, 0x8a, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, STOP))).toBe(
      2n ** 63n - 1n,
    );
    expect(readPickle(bytes(PROTO2, 0x8a, 8, 0, 0, 0, 0, 0, 0, 0, 0x80, STOP))).toBe(-(2n ** 63n));
    expect(readPickle(bytes(PROTO2, 0x8b, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, STOP))).toBe(2n ** 64n);
    expect(decodeLong(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f]))).toBe(
      Number.MAX_SAFE_INTEGER,
    );
    expect(decodeLong(Uint8Array.from([0, 0, 0, 0, 0, 0, 0x20]))).toBe(2n ** 53n);
  });

  it('floats are big-endian doubles; strings and bytes of every width', () => {
    const float = Buffer.alloc(8);
    float.writeDoubleBE(-1.5e-7);
    expect(readPickle(bytes(PROTO2, 0x47, [...float], STOP))).toBe(-1.5e-7);
    expect(readPickle(bytes(0x80, 4, 0x8c, 3, 'hé', STOP))).toBe('hé');
    expect(readPickle(bytes(PROTO2, 0x58, 2, 0, 0, 0, 'ok', STOP))).toBe('ok');
    expect(readPickle(bytes(0x80, 4, 0x8d, 1, 0, 0, 0, 0, 0, 0, 0, 'z', STOP))).toBe('z');
    expect(readPickle(bytes(0x80, 3, 0x43, 2, 1, 2, STOP))).toEqual(Uint8Array.from([1, 2]));
    expect(readPickle(bytes(0x80, 3, 0x42, 1, 0, 0, 0, 9, STOP))).toEqual(Uint8Array.from([9]));
    expect(readPickle(bytes(0x80, 5, 0x96, 1, 0, 0, 0, 0, 0, 0, 0, 7, STOP))).toEqual(Uint8Array.from([7]));
  });

  it('containers: MARK/LIST/DICT, APPEND(S), SETITEM(S), TUPLE1-3, sets, POP, DUP', () => {
    expect(readPickle(bytes(PROTO2, 0x28, 0x4b, 1, 0x4b, 2, 0x6c, STOP))).toEqual([1, 2]);
    expect(readPickle(bytes(PROTO2, 0x5d, 0x4b, 1, 0x61, 0x28, 0x4b, 2, 0x4b, 3, 0x65, STOP))).toEqual([
      1, 2, 3,
    ]);
    const d = readPickle(bytes(PROTO2, 0x28, 0x4b, 1, 0x4b, 2, 0x64, 0x4b, 3, 0x4e, 0x73, STOP));
    expect(d).toEqual(
      new Map<PickleValue, PickleValue>([
        [1, 2],
        [3, null],
      ]),
    );
    expect(readPickle(bytes(PROTO2, 0x88, 0x85, STOP))).toEqual([true]);
    expect(readPickle(bytes(PROTO2, 0x88, 0x89, 0x86, STOP))).toEqual([true, false]);
    expect(readPickle(bytes(PROTO2, 0x4e, 0x4e, 0x4e, 0x87, STOP))).toEqual([null, null, null]);
    expect(readPickle(bytes(PROTO2, 0x29, STOP))).toEqual([]);
    expect(readPickle(bytes(0x80, 4, 0x8f, 0x28, 0x4b, 5, 0x90, STOP))).toEqual([5]);
    expect(readPickle(bytes(0x80, 4, 0x28, 0x4b, 5, 0x91, STOP))).toEqual([5]);
    expect(readPickle(bytes(PROTO2, 0x4b, 1, 0x4b, 2, 0x30, STOP))).toBe(1);
    expect(readPickle(bytes(PROTO2, 0x4b, 1, 0x28, 0x4b, 2, 0x31, STOP))).toBe(1);
    expect(readPickle(bytes(PROTO2, 0x4b, 4, 0x32, 0x86, STOP))).toEqual([4, 4]);
  });

  it('memo: BINPUT/BINGET, LONG_BINPUT/LONG_BINGET and MEMOIZE share one object', () => {
    const shared = readPickle(bytes(PROTO2, 0x5d, 0x71, 7, 0x68, 7, 0x86, STOP)) as PickleValue[];
    expect(shared[0]).toBe(shared[1]);
    expect(readPickle(bytes(PROTO2, 0x4b, 9, 0x72, 0, 1, 0, 0, 0x30, 0x6a, 0, 1, 0, 0, STOP))).toBe(9);
    expect(readPickle(bytes(0x80, 4, 0x4b, 3, 0x94, 0x4b, 4, 0x94, 0x30, 0x30, 0x68, 1, STOP))).toBe(4);
    expect(() => readPickle(bytes(PROTO2, 0x68, 3, STOP))).toThrow(/memo get of missing key 3/);
  });

  it('refuses opcodes that import or call code, naming the opcode and its byte', () => {
    const global = bytes(PROTO2, 0x63, 'os\nsystem\n', 0x58, 2, 0, 0, 0, 'ls', 0x85, 0x52, STOP);
    expect(() => readPickle(global, 'evil.pkl')).toThrow(InputError);
    expect(() => readPickle(global, 'evil.pkl')).toThrow('evil.pkl: pickle byte 2: opcode GLOBAL (0x63)');
    expect(() => readPickle(bytes(0x80, 4, 0x93, STOP))).toThrow(/byte 2: opcode STACK_GLOBAL/);
    expect(() => readPickle(bytes(PROTO2, 0x4e, 0x29, 0x52, STOP))).toThrow(/byte 4: opcode REDUCE/);
    expect(() => readPickle(bytes(PROTO2, 0x7d, 0x7d, 0x62, STOP))).toThrow(/opcode BUILD/);
    expect(() => readPickle(bytes(PROTO2, 0x29, 0x81, STOP))).toThrow(/opcode NEWOBJ/);
    // Python's own pickle of an OrderedDict (GLOBAL collections OrderedDict + REDUCE).
    expect(() => readPickle(fixture('refused/nccl_trace_rank_0'), 'refused')).toThrow(
      /refused: pickle byte \d+: opcode GLOBAL/,
    );
  });

  it('malformed streams are InputErrors', () => {
    expect(() => readPickle(bytes(PROTO2))).toThrow(/without STOP/);
    expect(() => readPickle(bytes(PROTO2, STOP))).toThrow(/STOP found an empty stack/);
    expect(() => readPickle(bytes(0x80, 9, 0x4e, STOP))).toThrow(/protocol 9/);
    expect(() => readPickle(bytes(PROTO2, 0x4b, 1, 0x61, STOP))).toThrow(
      /APPEND found an empty stack|not a list/,
    );
    expect(() => readPickle(bytes(PROTO2, 0x29, 0x4b, 1, 0x61, STOP))).toThrow(/not a list/);
    expect(() => readPickle(bytes(PROTO2, 0x65, STOP))).toThrow(/without a MARK/);
    expect(() => readPickle(bytes(PROTO2, 0x58, 0xff, 0xff, 0xff, 0xff, STOP))).toThrow(/runs past the end/);
    expect(() => readPickle(bytes(PROTO2, 0xff))).toThrow(/unknown opcode 0xff/);
    expect(looksLikePickle(bytes(PROTO2))).toBe(true);
    expect(looksLikePickle(Buffer.from('{"entries": []}'))).toBe(false);
  });
});

function hasPython(): boolean {
  try {
    execFileSync('python3', ['-c', 'import pickle'], { timeout: 10_000, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!hasPython())('readPickle against python3 at test time', () => {
  it('reads what pickle.dumps writes for protocols 2 to 5', () => {
    const script = [
      'import pickle, sys',
      'v = {"i": [0, 1, -1, 255, 256, 65535, 65536, -2**31, 2**31 - 1, 2**31, 2**53, -2**63, 2**64 + 7, 10**30],',
      '     "f": [0.1, -2.5e-300, 1e308], "s": ["", "é", "x" * 300], "b": b"\\x00\\xff", "t": (1, (2, 3), ()),',
      '     "n": None, "bool": [True, False], 7: "int key", "nested": [[{"k": [1]}]]}',
      'for p in (2, 3, 4, 5):',
      '    w = {k: x for k, x in v.items() if p > 2 or k != "b"}  # protocol 2 pickles bytes through GLOBAL _codecs.encode',
      '    sys.stdout.write(pickle.dumps(w, protocol=p).hex() + "\\n")',
    ].join('\n');
    const lines = execFileSync('python3', ['-c', script], { timeout: 20_000, encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(lines).toHaveLength(4);
    for (const hex of lines) {
      const value = dict(readPickle(Buffer.from(hex, 'hex')));
      expect(value.get('i')).toEqual([
        0,
        1,
        -1,
        255,
        256,
        65535,
        65536,
        -(2 ** 31),
        2 ** 31 - 1,
        2 ** 31,
        2n ** 53n,
        -(2n ** 63n),
        2n ** 64n + 7n,
        10n ** 30n,
      ]);
      expect(value.get('f')).toEqual([0.1, -2.5e-300, 1e308]);
      expect(value.get('s')).toEqual(['', 'é', 'x'.repeat(300)]);
      if (value.has('b')) expect(value.get('b')).toEqual(Uint8Array.from([0, 255]));
      else expect(hex.startsWith('8002')).toBe(true);
      expect(value.get('t')).toEqual([1, [2, 3], []]);
      expect(value.get('n')).toBeNull();
      expect(value.get('bool')).toEqual([true, false]);
      expect(value.get(7)).toBe('int key');
      expect(value.get('nested')).toEqual([[new Map([['k', [1]]])]]);
    }
  });
});
