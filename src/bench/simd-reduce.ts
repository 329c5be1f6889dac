/**
 * Reductions with WebAssembly SIMD (128-bit: 4 floats, 2 doubles or 4 int32 per instruction).
 * A plain typed-array loop reduces about 0.7 GB/s of float per core here, a tenth of a memcpy, and
 * every all_reduce byte is reduced once per step: this was the ranks' largest CPU cost (measured
 * by bench/tcp-vs-openmpi.mjs; Open MPI's C loops are vectorised by the compiler). The module is
 * nine loops (sum, max, min x f32, f64, i32) over a memory the buffers of a run live in; it is
 * encoded here byte by byte (WebAssembly core spec 2.0, binary format, section 5; SIMD opcodes
 * from the fixed-width SIMD proposal's table) so the build needs no toolchain. Each loop handles
 * whole 16-byte vectors; the caller does the remaining elements with the scalar loop.
 * For min and max the operands are loaded in the order (b, a): f32x4/f64x2 `pmin(b, a)` is
 * `a < b ? a : b` and `pmax(b, a)` is `b < a ? a : b`, exactly the scalar loop's comparisons, so
 * equal values (+0 and -0) and NaN come out the same in the vector part and the scalar tail.
 */
import { DATA_TYPES, REDUCE_OPS, type DataType, type ReduceOp } from './types.js';

type Kernel = (dst: number, a: number, b: number, bytes: number) => void;

/** The part of the WebAssembly JS API used here (TypeScript declares it only in the DOM libs). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (descriptor: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

/** The SIMD instruction (after the 0xfd prefix, as unsigned LEB128) per element type and operator. */
const SIMD_OP: Record<DataType, Record<ReduceOp, number>> = {
  float: { sum: 228, min: 234, max: 235 }, // f32x4.add, f32x4.pmin, f32x4.pmax
  double: { sum: 240, min: 246, max: 247 }, // f64x2.add, f64x2.pmin, f64x2.pmax
  int32: { sum: 174, min: 182, max: 184 }, // i32x4.add, i32x4.min_s, i32x4.max_s (wrapping add, as C int32)
};

function uleb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

const name = (text: string): number[] => [...uleb(text.length), ...[...text].map((c) => c.charCodeAt(0))];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const vector = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];

/** while (bytes != 0) { store(dst, OP(load(a), load(b))); dst += 16; ...; bytes -= 16 }, or OP(load(b), load(a)). */
function loopBody(op: number, bFirst: boolean): number[] {
  const [DST, A, B, BYTES] = [0, 1, 2, 3];
  const get = (local: number): number[] => [0x20, local];
  const advance = (local: number, delta: number): number[] => [
    ...get(local),
    0x41,
    ...uleb(delta),
    delta > 0 ? 0x6a : 0x6b,
    0x21,
    local,
  ];
  const memarg = [0x00, 0x00]; // alignment hint 1 byte (views may start anywhere), offset 0
  const code = [
    0x02,
    0x40, // block
    0x03,
    0x40, // loop
    ...get(BYTES),
    0x45,
    0x0d,
    0x01, // br_if 1 when bytes == 0
    ...get(DST),
    ...get(bFirst ? B : A),
    0xfd,
    ...uleb(0x00),
    ...memarg, // v128.load
    ...get(bFirst ? A : B),
    0xfd,
    ...uleb(0x00),
    ...memarg,
    0xfd,
    ...uleb(op),
    0xfd,
    ...uleb(0x0b),
    ...memarg, // v128.store
    ...advance(DST, 16),
    ...advance(A, 16),
    ...advance(B, 16),
    ...get(BYTES),
    0x41,
    0x10,
    0x6b,
    0x21,
    BYTES, // bytes -= 16
    0x0c,
    0x00, // br 0
    0x0b,
    0x0b, // end loop, end block
    0x0b, // end function
  ];
  const body = [0x00, ...code]; // no locals
  return [...uleb(body.length), ...body];
}

const KERNELS: { type: DataType; op: ReduceOp }[] = DATA_TYPES.flatMap((type) =>
  REDUCE_OPS.map((op) => ({ type, op })),
);

function encodeModule(): Uint8Array {
  const funcType = [0x60, 0x04, 0x7f, 0x7f, 0x7f, 0x7f, 0x00];
  const bytes = [
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, vector([funcType])),
    ...section(2, vector([[...name('env'), ...name('memory'), 0x02, 0x00, 0x00]])), // memory, min 0 pages
    ...section(3, vector(KERNELS.map(() => [0x00]))),
    ...section(7, vector(KERNELS.map(({ type, op }, index) => [...name(`${type}_${op}`), 0x00, index]))),
    ...section(10, vector(KERNELS.map(({ type, op }) => loopBody(SIMD_OP[type][op], op !== 'sum')))),
  ];
  return new Uint8Array(bytes);
}

const PAGE = 65536;
/** wasm32 memories stop at 4 GiB; larger runs keep plain buffers and the scalar loops. */
const MAX_BYTES = 65536 * PAGE;
let compiled: object | null | undefined;

function module(): object | null {
  if (compiled === undefined) {
    try {
      compiled = wasm ? new wasm.Module(encodeModule()) : null;
    } catch {
      compiled = null; // No SIMD in this runtime: the scalar loops do the work.
    }
  }
  return compiled;
}

/** One memory for a run's buffers, with the SIMD kernels bound to it. */
export interface SimdArena {
  buffer: ArrayBuffer;
  /** Reduce whole 16-byte vectors of dst = a OP b (byte offsets into `buffer`); returns the bytes done. */
  reduce: (type: DataType, op: ReduceOp, dst: Uint8Array, a: Uint8Array, b: Uint8Array) => number;
}

/** An arena of at least `bytes`, or undefined when SIMD is unavailable or the size is too large. */
export function createSimdArena(bytes: number): SimdArena | undefined {
  const compiledModule = module();
  if (!compiledModule || !wasm || bytes > MAX_BYTES) return undefined;
  const pages = Math.max(1, Math.ceil(bytes / PAGE));
  let memory: { buffer: ArrayBuffer };
  try {
    memory = new wasm.Memory({ initial: pages, maximum: pages });
  } catch {
    return undefined; // No room for the memory: plain buffers and scalar loops.
  }
  const exports = new wasm.Instance(compiledModule, { env: { memory } }).exports as Record<string, Kernel>;
  const buffer = memory.buffer;
  return {
    buffer,
    reduce: (type, op, dst, a, b) => {
      if (dst.buffer !== buffer || a.buffer !== buffer || b.buffer !== buffer) return 0;
      const whole = dst.byteLength - (dst.byteLength % 16);
      if (whole > 0) exports[`${type}_${op}`]!(dst.byteOffset, a.byteOffset, b.byteOffset, whole);
      return whole;
    },
  };
}
