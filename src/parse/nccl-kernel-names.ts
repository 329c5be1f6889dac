/**
 * NCCL and RCCL GPU kernel names as a profiler records them, read into the project's op id and the
 * algorithm and protocol the name carries. A name says which kernel ran, not always which
 * operation: NCCL builds one kernel per collective specialised for one function (always LL for
 * collectives) and runs any other function of a batch through a table, and its `Generic` kernels
 * name no op at all. Trace readers therefore prefer PyTorch's own args (`Collective name`) and use
 * this only where the trace has none.
 *
 * Names read here, each from its source:
 * - NCCL up to 2.18: `ncclKernel_<Coll>_<ALGO>_<PROTO>_<RedOp>_<type>(...)`
 *   (NVIDIA/nccl v2.18 src/collectives/device/common.h IMPL_COLL_KERN; seen in
 *   HolisticTraceAnalysis@f4d0062 tests/data/nccl_parser_config/nccl_data.json.gz).
 * - NCCL 2.19 on: `ncclDevKernel_` + coll, redop, type, algo, proto joined by `_`, omitting the
 *   absent ones: `ncclDevKernel_SendRecv`, `ncclDevKernel_AllGather_RING_LL`,
 *   `ncclDevKernel_AllReduce_Sum_f32_RING_LL`, `ncclDevKernel_Generic`
 *   (NVIDIA/nccl@b6475625 src/device/generate.py best_kernel and kernel_funcs; seen in
 *   AMD-AGI/TraceLens@171dd74 tests/traces/b200/eager_trace.json.gz).
 * - NCCL symmetric kernels: `ncclSymkDevKernel_<Coll>_<algo>[_<red>_<type>]`
 *   (NVIDIA/nccl@ebd1e929 src/device/symmetric/generate.py kernel_cname).
 * - RCCL generic kernels: `ncclDevKernel_Generic_{1,2,4}`, `ncclDevKernelDebug_Generic_{1,2,4}`
 *   (ROCm/rccl@0e9ec984 src/device/common.h); older RCCL `ncclDevKernel_Generic`,
 *   `ncclDevKernelDebug_Generic` and `rccl_main_kernel(ncclDevComm*, unsigned long, ncclWork*)`
 *   (the latter in a rocprof kernel_stats.csv of amd/HPCTrainingExamples).
 * - RCCL specialised kernels: `ncclDevKernel_<Coll>_<ALGO>_<PROTO>_<RedOp>_<ty>[_acc<N>]_Specialized`
 *   with Coll among Broadcast, Reduce, AllGather, ReduceScatter, AllReduce, SendRecv,
 *   AlltoAllPivot, AllToAllGda (ROCm/rccl@0771bf9b src/device/generate_specialized.py).
 * - RCCL of 2022: `ncclKernel_...` and `ncclKernelDebug_...`, the NCCL form, with `AllToAllPivot`
 *   (ROCm/rccl@778ff3ac src/collectives/device/common.h and its collectives.h NCCL_KERN_NAME_DEBUG).
 * - RCCL of 2020: `nccl<Coll><Ring|Tree|CollNet><|LL|LL128>Kernel_<op>_<type>` and
 *   `nccl<SendRecv|AllToAll|Gather|Scatter>Kernel_copy_i8` (ROCm/rccl@0023b9b0 src/include/collectives.h).
 */
import type { TraceOp } from '../core/collectives.js';

export interface NcclKernelName {
  /** The project's op id (all_reduce, ..., sendrecv), or NCCL's own name where none fits ("Generic", "Gather"). */
  op: string;
  /** Algorithm and protocol as the name writes them (`RING`, `LL`), null when it has none. */
  algo: string | null;
  proto: string | null;
}

/** NCCL's and RCCL's collective names (camel case, as in kernel names) to the project's op ids. */
const OP_OF_COLL: Readonly<Record<string, TraceOp>> = {
  AllReduce: 'all_reduce',
  AllGather: 'all_gather',
  ReduceScatter: 'reduce_scatter',
  Broadcast: 'broadcast',
  Reduce: 'reduce',
  SendRecv: 'sendrecv',
  AllToAll: 'alltoall',
  AllToAllPivot: 'alltoall',
  AlltoAllPivot: 'alltoall',
  AllToAllGda: 'alltoall',
};

const ALGOS = 'RING|TREE|COLLNET_DIRECT|COLLNET_CHAIN|COLLNET|NVLS_TREE|NVLS|PAT';
const PROTOS = 'LL128|LL|SIMPLE';

const OLD_FORM = new RegExp(`^ncclKernel(?:Debug)?_([A-Za-z]+)_(${ALGOS})_(${PROTOS})_`);
const DEV_REDUCING = new RegExp(
  `^ncclDevKernel_([A-Za-z]+)_(?:Sum|Prod|MinMax|PreMulSum|SumPostDiv)_[a-z0-9]+_(${ALGOS})_(${PROTOS})$`,
);
const DEV_COPYING = new RegExp(`^ncclDevKernel_([A-Za-z]+)_(${ALGOS})_(${PROTOS})$`);
const RCCL_SPECIALISED = new RegExp(
  `^ncclDevKernel_([A-Za-z]+)_(${ALGOS})_(${PROTOS})_[A-Za-z]+_[a-z0-9]+(?:_acc\\d+)?_Specialized$`,
);
const GENERIC = /^(?:ncclDevKernel(?:Debug)?_Generic(?:_\d+)?|rccl_main_kernel(?:_debug)?)$/;
const SYMMETRIC = /^ncclSymkDevKernel_([A-Za-z]+)_(.+?)(?:_sum_[a-z0-9]+)?$/;
const RCCL_2020 = /^nccl([A-Za-z]+?)(Ring|Tree|CollNet)?(LL128|LL)?Kernel_[a-z]+_[a-z0-9]+$/;

/** The kernel's symbol: the name up to its parameter list. */
function symbolOf(name: string): string {
  const paren = name.indexOf('(');
  return (paren === -1 ? name : name.slice(0, paren)).trim();
}

function opOf(coll: string): string {
  return OP_OF_COLL[coll] ?? coll;
}

/** True for a GPU kernel NCCL or RCCL launched (the test HTA and TraceLens use: the name says nccl or rccl). */
export function isNcclKernelName(name: string): boolean {
  const lower = name.slice(0, 32).toLowerCase();
  return lower.startsWith('nccl') || lower.startsWith('rccl');
}

/** The op, algorithm and protocol a kernel name carries; null when it is not an NCCL/RCCL kernel. */
export function parseNcclKernelName(name: string): NcclKernelName | null {
  if (!isNcclKernelName(name)) return null;
  const symbol = symbolOf(name);
  if (GENERIC.test(symbol)) return { op: 'Generic', algo: null, proto: null };
  if (symbol === 'ncclDevKernel_SendRecv') return { op: 'sendrecv', algo: null, proto: null };
  const match =
    OLD_FORM.exec(symbol) ??
    RCCL_SPECIALISED.exec(symbol) ??
    DEV_REDUCING.exec(symbol) ??
    DEV_COPYING.exec(symbol);
  if (match) return { op: opOf(match[1]!), algo: match[2]!, proto: match[3]! };
  const symmetric = SYMMETRIC.exec(symbol);
  if (symmetric) return { op: opOf(symmetric[1]!), algo: symmetric[2]!, proto: null };
  const old = RCCL_2020.exec(symbol);
  if (old)
    return {
      op: opOf(old[1]!),
      algo: old[2] ? old[2].toUpperCase() : null,
      proto: old[2] ? (old[3] ?? 'SIMPLE') : null,
    };
  // An NCCL kernel of a form not listed above: its symbol is NCCL's own name for it.
  return { op: symbol, algo: null, proto: null };
}
