/**
 * Flight-recorder profiling names to the project's op ids, and the bytes of an entry sized the
 * nccl-tests way (src/parse/trace-types.ts TraceCollective.sizeBytes).
 *
 * Profiling names are those ProcessGroupNCCL passes to the recorder, `nccl:<op>[ <peer info>]`
 * (pytorch/pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp: "nccl:all_reduce",
 * "nccl:_all_gather_base", "nccl:reduce_scatter_tensor_coalesced", "nccl:send 1->2",
 * "nccl:recv 3<-0", "nccl:coalesced"; the analyser's list is tools/flight_recorder/components/types.py
 * COLLECTIVES and P2P). Dtype names are c10::toString(ScalarType) (c10/core/ScalarType.h).
 */
import type { TraceOp } from '../core/collectives.js';

const OP_BY_NAME: Readonly<Record<string, TraceOp>> = {
  all_reduce: 'all_reduce',
  allreduce: 'all_reduce',
  all_reduce_coalesced: 'all_reduce',
  allreduce_coalesced: 'all_reduce',
  all_reduce_barrier: 'all_reduce', // dist.barrier(): ProcessGroupNCCL::barrier -> allreduce_impl("nccl:all_reduce_barrier")
  all_gather: 'all_gather',
  allgather: 'all_gather',
  _all_gather_base: 'all_gather',
  _allgather_base: 'all_gather',
  all_gather_base: 'all_gather',
  all_gather_into_tensor: 'all_gather',
  all_gather_into_tensor_coalesced: 'all_gather',
  allgather_into_tensor_coalesced: 'all_gather',
  allgather_coalesced: 'all_gather',
  reduce_scatter: 'reduce_scatter',
  _reduce_scatter_base: 'reduce_scatter',
  reduce_scatter_base: 'reduce_scatter',
  reduce_scatter_tensor: 'reduce_scatter',
  reduce_scatter_tensor_coalesced: 'reduce_scatter',
  broadcast: 'broadcast',
  _broadcast_oop: 'broadcast',
  reduce: 'reduce',
  _reduce_oop: 'reduce',
  all_to_all: 'alltoall',
  alltoall: 'alltoall',
  alltoall_base: 'alltoall',
  all_to_all_single: 'alltoall',
  sendrecv: 'sendrecv',
  send: 'send',
  recv: 'recv',
};

export interface ProfilingName {
  /** The project's op id, or the recorder's own op name where none fits (gather, scatter, coalesced, barrier). */
  op: string;
  /** True for send and recv (point-to-point), read from the name. */
  p2p: boolean;
}

/** `nccl:all_reduce` -> all_reduce; `nccl:send 1->2` -> send. The backend prefix (`nccl:`) is optional. */
export function parseProfilingName(name: string): ProfilingName {
  const colon = name.indexOf(':');
  const afterBackend = colon >= 0 ? name.slice(colon + 1) : name;
  const word = afterBackend.trim().split(/\s+/)[0] ?? '';
  const key = word.toLowerCase();
  const op = OP_BY_NAME[key] ?? word;
  return { op, p2p: op === 'send' || op === 'recv' };
}

/** Bytes per element by c10 ScalarType name (c10/core/ScalarType.h), with NumPy-style aliases. */
const DTYPE_BYTES: Record<string, number> = {
  byte: 1,
  char: 1,
  bool: 1,
  uint8: 1,
  int8: 1,
  qint8: 1,
  quint8: 1,
  quint4x2: 1,
  quint2x4: 1,
  float8_e5m2: 1,
  float8_e4m3fn: 1,
  float8_e5m2fnuz: 1,
  float8_e4m3fnuz: 1,
  float8_e8m0fnu: 1,
  short: 2,
  int16: 2,
  uint16: 2,
  half: 2,
  float16: 2,
  bfloat16: 2,
  int: 4,
  int32: 4,
  uint32: 4,
  float: 4,
  float32: 4,
  qint32: 4,
  complexhalf: 4,
  long: 8,
  int64: 8,
  uint64: 8,
  double: 8,
  float64: 8,
  complexfloat: 8,
  complexdouble: 16,
};

export function dtypeBytes(dtype: string): number | undefined {
  return DTYPE_BYTES[dtype.toLowerCase()];
}

/** Sum over tensors of numel x element size, or null when a shape or dtype is missing or unknown. */
export function tensorBytes(sizes: number[][] | null, dtypes: string[] | null): number | null {
  if (!sizes || !dtypes || sizes.length === 0 || sizes.length !== dtypes.length) return null;
  let total = 0;
  for (let i = 0; i < sizes.length; i++) {
    const element = dtypeBytes(dtypes[i]!);
    if (element === undefined) return null;
    total += sizes[i]!.reduce((numel, dim) => numel * dim, 1) * element;
  }
  return Number.isSafeInteger(total) ? total : null;
}

/**
 * Bytes the way nccl-tests sizes the op: the buffer for all_reduce, broadcast, reduce (the input);
 * all_gather the output; reduce_scatter and alltoall the input (the whole send buffer); send the
 * input and recv the output (what one rank sends or receives). Other ops: the input when it has one.
 */
export function nccltestsBytes(op: string, input: number | null, output: number | null): number | null {
  switch (op) {
    case 'all_gather':
    case 'recv':
      return output;
    case 'all_reduce':
    case 'broadcast':
    case 'reduce':
      return input ?? output;
    default:
      return input;
  }
}
