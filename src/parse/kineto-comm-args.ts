/**
 * The communication args recent PyTorch writes on NCCL kernels and on `record_param_comms` CPU ops
 * of a Kineto trace (`Collective name`, `In msg nelems`, `Out msg nelems`, `Group size`, `dtype`,
 * `Process Group Name`, `Process Group Description`, `Process Group Ranks`), read into typed
 * values, and the op id and byte size nccl-tests would give them. The names are PyTorch's
 * RECORD_PARAM_COMMS_DATA calls (pytorch/pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:
 * "allreduce", "allreduce_coalesced", "broadcast", "reduce", "allgather", "_allgather_base",
 * "reduce_scatter", "_reduce_scatter_base", "all_to_all", "alltoall_base", "send", "recv", ...),
 * as the traces in ../shared/data/traces show them.
 */
import type { TraceOp } from '../core/collectives.js';

export interface CommArgs {
  collectiveName: string | null;
  inNelems: number | null;
  outNelems: number | null;
  groupSize: number | null;
  dtype: string | null;
  groupName: string | null;
  groupDesc: string | null;
  groupRanks: number[] | null;
}

function finiteNonNegative(value: unknown): number | null {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number >= 0 ? number : null;
}

function text(value: unknown): string | null {
  if (typeof value === 'string') return shared(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/**
 * Strings and rank lists repeat on every kernel of a group: one shared copy each keeps a trace of
 * 10^5 collectives small. The shared rank arrays are read-only by contract.
 */
const SHARED_LIMIT = 4096;
const sharedStrings = new Map<string, string>();
const sharedRanks = new Map<string, number[] | null>();

export function shared(value: string): string {
  const known = sharedStrings.get(value);
  if (known !== undefined) return known;
  if (sharedStrings.size < SHARED_LIMIT) sharedStrings.set(value, value);
  return value;
}

/** `Process Group Ranks` is written as a string ("[0, 1]"); accept an array too. */
function ranksOf(value: unknown): number[] | null {
  if (typeof value === 'string') {
    const known = sharedRanks.get(value);
    if (known !== undefined) return known;
    const ranks = parseRanks(value);
    if (sharedRanks.size < SHARED_LIMIT) sharedRanks.set(value, ranks);
    return ranks;
  }
  return parseRanks(value);
}

function parseRanks(value: unknown): number[] | null {
  let list: unknown = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value);
    } catch {
      return null;
    }
  }
  if (!Array.isArray(list)) return null;
  const ranks = list.filter(
    (rank): rank is number => typeof rank === 'number' && Number.isSafeInteger(rank) && rank >= 0,
  );
  return ranks.length === list.length ? ranks : null;
}

/** The comm args of an event's args object, or null when it names no collective and no count. */
export function readCommArgs(args: Record<string, unknown>): CommArgs | null {
  const collectiveName = text(args['Collective name']);
  const inNelems = finiteNonNegative(args['In msg nelems']);
  const outNelems = finiteNonNegative(args['Out msg nelems']);
  if (collectiveName === null && inNelems === null && outNelems === null) return null;
  return {
    collectiveName,
    inNelems,
    outNelems,
    groupSize: finiteNonNegative(args['Group size']),
    dtype: text(args.dtype),
    groupName: text(args['Process Group Name']),
    groupDesc: text(args['Process Group Description']),
    groupRanks: ranksOf(args['Process Group Ranks']),
  };
}

/**
 * PyTorch's collective names to the project's op ids, after dropping leading underscores and the
 * `_base`, `_coalesced`, `_into_tensor` and `_tensor` variants; null for names that are not a
 * data-moving collective the project knows (barrier, gather, scatter, wait, init).
 */
export function opOfCollectiveName(name: string): TraceOp | null {
  let base = name.toLowerCase().replace(/^_+/, '');
  for (let previous = ''; previous !== base;) {
    previous = base;
    base = base.replace(/_(base|coalesced|into_tensor|tensor)$/, '');
  }
  switch (base) {
    case 'allreduce':
    case 'all_reduce':
      return 'all_reduce';
    case 'allgather':
    case 'all_gather':
      return 'all_gather';
    case 'reduce_scatter':
    case 'reducescatter':
      return 'reduce_scatter';
    case 'broadcast':
      return 'broadcast';
    case 'reduce':
      return 'reduce';
    case 'all_to_all':
    case 'alltoall':
    case 'all_to_allv':
    case 'alltoallv':
      return 'alltoall';
    case 'send':
      return 'send';
    case 'recv':
    case 'recvanysource':
      return 'recv';
    default:
      return null;
  }
}

/**
 * Element sizes in bytes of c10's ScalarType names as PyTorch writes `dtype` ("Float", "BFloat16";
 * c10/core/ScalarType.h), and of the C++ spellings Kineto writes in `Input type` ("float",
 * "c10::BFloat16").
 */
const DTYPE_BYTES: Record<string, number> = {
  float: 4,
  float32: 4,
  double: 8,
  float64: 8,
  half: 2,
  float16: 2,
  bfloat16: 2,
  'c10::half': 2,
  'c10::bfloat16': 2,
  int: 4,
  int32: 4,
  long: 8,
  int64: 8,
  short: 2,
  int16: 2,
  char: 1,
  int8: 1,
  byte: 1,
  uint8: 1,
  bool: 1,
  uint16: 2,
  uint32: 4,
  uint64: 8,
  float8_e4m3fn: 1,
  float8_e5m2: 1,
  float8_e4m3fnuz: 1,
  float8_e5m2fnuz: 1,
  complexhalf: 4,
  complexfloat: 8,
  complexdouble: 16,
  qint8: 1,
  quint8: 1,
  qint32: 4,
  'signed char': 1,
  'unsigned char': 1,
  int8_t: 1,
  uint8_t: 1,
  int32_t: 4,
  int64_t: 8,
};

export function dtypeBytes(dtype: string | null): number | null {
  if (dtype === null) return null;
  return DTYPE_BYTES[dtype.trim().toLowerCase()] ?? null;
}

/**
 * Bytes the way nccl-tests sizes the op (src/parse/trace-types.ts): the buffer for all_reduce,
 * broadcast and reduce; the output for all_gather; the input for reduce_scatter; the whole send
 * buffer for alltoall; what one rank sends for sendrecv and send; what it receives for recv.
 */
export function sizeBytesOf(op: string, args: CommArgs | null): number | null {
  if (!args) return null;
  const element = dtypeBytes(args.dtype);
  if (element === null) return null;
  const nelems =
    op === 'all_gather' || op === 'recv'
      ? (args.outNelems ?? args.inNelems)
      : (args.inNelems ?? args.outNelems);
  return nelems === null ? null : nelems * element;
}
