/**
 * Real dumps are written by PyTorch's C++ pickler, not CPython's. This test emits a dump the way
 * pytorch/pytorch torch/csrc/jit/serialization/pickler.cpp does for FlightRecorder's pickle_str
 * (Pickler(writer, nullptr, nullptr, nullptr, nullptr, tag_aggregates=false)): PROTO 2; pushInt as
 * BININT1 / BININT2 / BININT / LONG1 of 8 bytes by range; pushString as BINUNICODE memoized with
 * BINPUT and repeated with BINGET; pushDict as EMPTY_DICT MARK ... SETITEMS; pushGenericList as
 * EMPTY_LIST MARK ... APPENDS; pushTuple as TUPLE2; pushDouble as big-endian BINFLOAT; STOP.
 */
import { describe, expect, it } from 'vitest';
import { readFlightRecorder } from '../../src/parse/flight-recorder.js';

type IValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | IValue[]
  | { tuple: IValue[] }
  | { double: number }
  | Map<string, IValue>;

/** A minimal port of torch::jit::Pickler's encodings (the ones the flight recorder reaches). */
class TorchPickler {
  private out: number[] = [];
  private memo = new Map<string, number>();
  private nextMemo = 0;

  private u32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.out.push(...b);
  }

  private int(n: bigint): void {
    if (n >= 0n && n <= 255n) this.out.push(0x4b, Number(n));
    else if (n >= 0n && n <= 65535n) this.out.push(0x4d, Number(n) & 0xff, Number(n) >> 8);
    else if (n >= -(2n ** 31n) && n < 2n ** 31n) {
      const b = Buffer.alloc(4);
      b.writeInt32LE(Number(n));
      this.out.push(0x4a, ...b);
    } else {
      const b = Buffer.alloc(8);
      b.writeBigInt64LE(n);
      this.out.push(0x8a, 8, ...b);
    }
  }

  private binPut(): number {
    const id = this.nextMemo++;
    if (id <= 255) this.out.push(0x71, id);
    else {
      this.out.push(0x72);
      this.u32(id);
    }
    return id;
  }

  private string(s: string): void {
    const seen = this.memo.get(s);
    if (seen !== undefined) {
      if (seen <= 255) this.out.push(0x68, seen);
      else {
        this.out.push(0x6a);
        this.u32(seen);
      }
      return;
    }
    const bytes = Buffer.from(s, 'utf8');
    this.out.push(0x58);
    this.u32(bytes.length);
    this.out.push(...bytes);
    this.memo.set(s, this.binPut());
  }

  push(v: IValue): void {
    if (v === null) this.out.push(0x4e);
    else if (typeof v === 'boolean') this.out.push(v ? 0x88 : 0x89);
    else if (typeof v === 'number') this.int(BigInt(v));
    else if (typeof v === 'bigint') this.int(v);
    else if (typeof v === 'string') this.string(v);
    else if (Array.isArray(v)) {
      this.out.push(0x5d, 0x28);
      v.forEach((item) => this.push(item));
      this.out.push(0x65);
    } else if (v instanceof Map) {
      this.out.push(0x7d, 0x28);
      for (const [key, value] of v) {
        this.push(key);
        this.push(value);
      }
      this.out.push(0x75);
    } else if ('tuple' in v) {
      v.tuple.forEach((item) => this.push(item));
      this.out.push(0x86);
    } else {
      const b = Buffer.alloc(8);
      b.writeDoubleBE(v.double);
      this.out.push(0x47, ...b);
    }
  }

  dump(v: IValue): Buffer {
    this.out = [0x80, 2];
    this.push(v);
    this.out.push(0x2e);
    return Buffer.from(this.out);
  }
}

const T = 1733011200987654321n;

function entry(
  id: number,
  seq: number,
  created: bigint,
  started: bigint | null,
  completed: bigint | null,
  durationMs: number | null,
): Map<string, IValue> {
  const e = new Map<string, IValue>([
    ['record_id', id],
    ['pg_id', 0],
    ['process_group', { tuple: ['0', 'default_pg'] }],
    ['collective_seq_id', seq],
    ['p2p_seq_id', 0],
    ['op_id', seq],
    ['profiling_name', 'nccl:all_reduce'],
    ['time_created_ns', created],
  ]);
  if (durationMs !== null) e.set('duration_ms', { double: durationMs });
  e.set('input_sizes', [[8192, 1024]]);
  e.set('input_dtypes', ['BFloat16']);
  e.set('output_sizes', [[8192, 1024]]);
  e.set('output_dtypes', ['BFloat16']);
  e.set('state', completed !== null ? 'completed' : started !== null ? 'started' : 'scheduled');
  e.set('time_discovered_started_ns', started);
  e.set('time_discovered_completed_ns', completed);
  e.set('retired', completed !== null);
  e.set('timeout_ms', 600000);
  e.set('is_p2p', false);
  return e;
}

describe('a dump as torch::jit::Pickler writes it', () => {
  const dump = new Map<string, IValue>([
    ['version', '2.4'],
    [
      'pg_config',
      new Map<string, IValue>([
        [
          '0',
          new Map<string, IValue>([
            ['name', '0'],
            ['desc', 'default_pg'],
            ['ranks', '[0, 1, 2, 3, 4, 5, 6, 7]'],
          ]),
        ],
      ]),
    ],
    ['comm_lib_version', '2.21.5'],
    [
      'pg_status',
      new Map<string, IValue>([
        [
          '0',
          new Map<string, IValue>([
            ['last_enqueued_collective', 3],
            ['last_started_collective', 3],
            ['last_completed_collective', 2],
          ]),
        ],
      ]),
    ],
    [
      'entries',
      [
        entry(0, 1, T, T + 40_000n, T + 1_040_000n, 0.9875),
        entry(1, 2, T + 5_000_000n, T + 5_040_000n, T + 6_040_000n, 0.99),
        entry(2, 3, T + 10_000_000n, T + 10_040_001n, null, null),
      ],
    ],
  ]);
  const bytes = new TorchPickler().dump(dump);

  it('uses the writer’s opcodes: LONG1 of 8 bytes for ns, BINGET for repeated keys', () => {
    expect([...bytes.subarray(0, 3)]).toEqual([0x80, 2, 0x7d]);
    expect(bytes.includes(Buffer.from([0x8a, 8]))).toBe(true);
    expect(bytes.includes(Buffer.from([0x68]))).toBe(true);
  });

  it('reads into facts with exact nanoseconds', () => {
    const facts = readFlightRecorder(bytes, '/tmp/nccl_trace_rank_6');
    expect(facts).toMatchObject({ rank: 6, worldSize: 8, ncclVersion: '2.21.5', clockBaseNs: T.toString() });
    expect(facts.collectives.map((c) => [c.seq, c.op, c.state, c.startUs, c.sizeBytes, c.groupSize])).toEqual(
      [
        [1, 'all_reduce', 'completed', 40, 8192 * 1024 * 2, 8],
        [2, 'all_reduce', 'completed', 5040, 8192 * 1024 * 2, 8],
        [3, 'all_reduce', 'started', 10040.001, 8192 * 1024 * 2, 8],
      ],
    );
    expect(facts.collectives[0]?.durUs).toBeCloseTo(987.5, 9);
    expect(facts.collectives[2]?.startNs).toBe((T + 10_040_001n).toString());
  });
});
