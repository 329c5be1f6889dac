/**
 * The one collective vocabulary every room shares: the ops as nccl-tests spells them (and the
 * aliases accepted for them), busbw factors and byte and element counts (NVIDIA/nccl-tests
 * src/*.cu GetCollByteCount and GetBw, doc/PERFORMANCE.md), data types and reduction operators
 * (src/common.cu test_typenames, test_opnames), NCCL's algorithm and protocol ids
 * (NVIDIA/nccl src/graph/tuning.cc ncclAlgoStr, ncclProtoStr) and the op names trace readers
 * report. It imports nothing, so the CLI can declare flags from it cheaply.
 */

/** The collectives, spelled as nccl-tests names its binaries (`all_reduce_perf`). */
export const COLLECTIVE_OPS = [
  'all_reduce',
  'all_gather',
  'reduce_scatter',
  'alltoall',
  'broadcast',
  'reduce',
  'sendrecv',
] as const;
export type CollectiveOp = (typeof COLLECTIVE_OPS)[number];

/** The order `aifabric bench tcp --op all` runs them in (and its `--op` help lists them). */
export const BENCH_OP_ORDER = [
  'all_reduce',
  'all_gather',
  'reduce_scatter',
  'broadcast',
  'reduce',
  'alltoall',
  'sendrecv',
] as const satisfies readonly CollectiveOp[];

/**
 * The compact spelling of each op (PyTorch's `allreduce`, `allgather`; the simulator's workload
 * kinds, which its results keep), accepted everywhere as an alias of the nccl-tests spelling.
 */
export const COMPACT_OP_NAMES = {
  all_reduce: 'allreduce',
  all_gather: 'allgather',
  reduce_scatter: 'reducescatter',
  alltoall: 'alltoall',
  broadcast: 'broadcast',
  reduce: 'reduce',
  sendrecv: 'sendrecv',
} as const satisfies Record<CollectiveOp, string>;
export type CompactOpName = (typeof COMPACT_OP_NAMES)[CollectiveOp];

/** Op names reported by the trace readers: the collectives plus point-to-point send and recv. */
export const TRACE_OPS = [...COLLECTIVE_OPS, 'send', 'recv'] as const;
export type TraceOp = (typeof TRACE_OPS)[number];

export function isCollectiveOp(value: string): value is CollectiveOp {
  return (COLLECTIVE_OPS as readonly string[]).includes(value);
}

/** `all_reduce` or its compact alias `allreduce` (also `all_to_all`) to the op; undefined for anything else. */
export function collectiveOpOf(name: string): CollectiveOp | undefined {
  if (isCollectiveOp(name)) return name;
  if (name === 'all_to_all') return 'alltoall';
  return COLLECTIVE_OPS.find((op) => COMPACT_OP_NAMES[op] === name);
}

/** The op a compact name stands for: `allreduce` -> `all_reduce`. */
export function opOfCompactName(name: CompactOpName): CollectiveOp {
  return COLLECTIVE_OPS.find((op) => COMPACT_OP_NAMES[op] === name)!;
}

/**
 * busbw / algbw, exactly as nccl-tests: all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall
 * (n-1)/n; broadcast, reduce, sendrecv 1. The flat-ring factor, whatever algorithm ran.
 */
export function busbwFactor(op: CollectiveOp, ranks: number): number {
  if (ranks <= 1)
    return op === 'all_reduce' || op === 'all_gather' || op === 'reduce_scatter' || op === 'alltoall' ? 0 : 1;
  switch (op) {
    case 'all_reduce':
      return (2 * (ranks - 1)) / ranks;
    case 'all_gather':
    case 'reduce_scatter':
    case 'alltoall':
      return (ranks - 1) / ranks;
    case 'broadcast':
    case 'reduce':
    case 'sendrecv':
      return 1;
  }
}

/** Whether nccl-tests sizes the op per rank (count column) and by the whole buffer times ranks (algbw): all_gather, reduce_scatter, alltoall. */
export function countsPerRank(op: CollectiveOp): boolean {
  return op === 'all_gather' || op === 'reduce_scatter' || op === 'alltoall';
}

/** Element count nccl-tests prints: all_gather, reduce_scatter and alltoall count per rank; the rest the whole buffer. */
export function elementCount(op: CollectiveOp, sizeBytes: number, ranks: number, typeBytes: number): number {
  const elements = Math.floor(sizeBytes / typeBytes);
  if (countsPerRank(op)) return Math.floor(elements / Math.max(1, ranks));
  return elements;
}

export interface CollCounts {
  /** Elements each rank sends from its send buffer. */
  sendCount: number;
  /** Elements each rank ends up with in its receive buffer. */
  recvCount: number;
  /** The count passed to the collective (the table's count column). */
  paramCount: number;
  /** In-place: send buffer = recv buffer + sendInplaceOffset * rank (elements). */
  sendInplaceOffset: number;
  /** In-place: recv buffer = base + recvInplaceOffset * rank (elements). */
  recvInplaceOffset: number;
}

/** nccl-tests' GetCollByteCount: the buffers of one call for `count` elements of the whole message. */
export function collCounts(op: CollectiveOp, count: number, nranks: number): CollCounts {
  const perRank = Math.floor(count / nranks);
  switch (op) {
    case 'all_reduce':
    case 'broadcast':
    case 'reduce':
    case 'sendrecv':
      return {
        sendCount: count,
        recvCount: count,
        paramCount: count,
        sendInplaceOffset: 0,
        recvInplaceOffset: 0,
      };
    case 'all_gather':
      return {
        sendCount: perRank,
        recvCount: perRank * nranks,
        paramCount: perRank,
        sendInplaceOffset: perRank,
        recvInplaceOffset: 0,
      };
    case 'reduce_scatter':
      return {
        sendCount: perRank * nranks,
        recvCount: perRank,
        paramCount: perRank,
        sendInplaceOffset: 0,
        recvInplaceOffset: perRank,
      };
    case 'alltoall':
      return {
        sendCount: perRank * nranks,
        recvCount: perRank * nranks,
        paramCount: perRank,
        sendInplaceOffset: 0,
        recvInplaceOffset: 0,
      };
  }
}

/** Bytes that define algbw: paramCount x elementBytes, times nranks for the gather/scatter family. */
export function algBytes(op: CollectiveOp, paramCount: number, elementBytes: number, nranks: number): number {
  const base = paramCount * elementBytes;
  return countsPerRank(op) ? base * nranks : base;
}

/** Whether the op applies a reduction operator (nccl-tests' redop column shows it) or not ("none"). */
export function usesRedOp(op: CollectiveOp): boolean {
  return op === 'all_reduce' || op === 'reduce_scatter' || op === 'reduce';
}

/** Whether the op has a root (nccl-tests' root column shows it) or not (-1). */
export function usesRoot(op: CollectiveOp): boolean {
  return op === 'broadcast' || op === 'reduce';
}

/** Reduction operators as nccl-tests names them (`-o`). */
export const REDUCTION_OPS = ['sum', 'prod', 'max', 'min', 'avg'] as const;
export type ReductionOp = (typeof REDUCTION_OPS)[number];

/** nccl-tests' element types (`-d`) as its tables print them. */
export const DATA_TYPE_NAMES = [
  'int8',
  'uint8',
  'int32',
  'uint32',
  'int64',
  'uint64',
  'half',
  'float',
  'double',
  'bfloat16',
  'f8e4m3',
  'f8e5m2',
] as const;
export type DataTypeName = (typeof DATA_TYPE_NAMES)[number];

/**
 * What `aifabric bench tcp` implements of those (`-d`, `-o`) and its all_reduce schedules (`--algo`):
 * here, import-free, so the CLI declares the flags without loading bench; src/bench/types.ts names them.
 */
export const BENCH_DATA_TYPES = ['float', 'double', 'int32'] as const satisfies readonly DataTypeName[];
export const BENCH_REDUCE_OPS = ['sum', 'max', 'min'] as const satisfies readonly ReductionOp[];
export const BENCH_ALGOS = ['auto', 'ring', 'halving-doubling'] as const;

/** Bytes per element of nccl-tests' types and of the other names tables and logs use for them. */
const TYPE_BYTES: Readonly<Record<string, number>> = {
  int8: 1,
  uint8: 1,
  char: 1,
  f8e4m3: 1,
  f8e5m2: 1,
  fp8_e4m3: 1,
  fp8_e5m2: 1,
  half: 2,
  float16: 2,
  bfloat16: 2,
  bf16: 2,
  fp16: 2,
  int32: 4,
  uint32: 4,
  int: 4,
  float: 4,
  float32: 4,
  int64: 8,
  uint64: 8,
  double: 8,
  float64: 8,
};

/** Bytes per element of a type name (any case), or undefined for a name nccl-tests does not use. */
export function dataTypeBytes(type: string): number | undefined {
  const key = type.toLowerCase();
  return Object.prototype.hasOwnProperty.call(TYPE_BYTES, key) ? TYPE_BYTES[key] : undefined;
}

/**
 * The algorithm ids the model and `--algo` use: NCCL_ALGO's names in lower case (NVIDIA/nccl
 * src/graph/tuning.cc ncclAlgoStr: Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT),
 * plus `auto` (what NCCL would pick) and `hierarchical` (NVLink then network, the textbook scheme).
 */
export const ALGORITHM_IDS = [
  'ring',
  'tree',
  'collnetdirect',
  'collnetchain',
  'nvls',
  'nvlstree',
  'pat',
] as const;
export type NcclAlgorithm = (typeof ALGORITHM_IDS)[number];
export const ALGORITHM_CHOICES = ['auto', ...ALGORITHM_IDS, 'hierarchical'] as const;
export type AlgorithmChoice = (typeof ALGORITHM_CHOICES)[number];

/** NCCL's protocols as ncclProtoStr spells them, and the lower-case ids `--proto` takes. */
export type NcclProtocol = 'LL' | 'LL128' | 'Simple';
export const PROTOCOLS: readonly NcclProtocol[] = ['LL', 'LL128', 'Simple'];
export const PROTOCOL_IDS = ['ll', 'll128', 'simple'] as const;
export type ProtocolId = (typeof PROTOCOL_IDS)[number];
export const PROTOCOL_CHOICES = ['auto', ...PROTOCOL_IDS] as const;
export type ProtocolChoice = (typeof PROTOCOL_CHOICES)[number];
export const protocolOfId = (id: ProtocolId): NcclProtocol =>
  id === 'll' ? 'LL' : id === 'll128' ? 'LL128' : 'Simple';
