/**
 * What a trace reader gives for one rank: its collectives in issue order, its profiler steps and
 * the busy time of its other GPU kernels. Kineto (PyTorch profiler) traces and PyTorch's NCCL
 * flight-recorder dumps both map onto these facts; `aifabric trace` (src/trace) matches them
 * across ranks. Times are microseconds on the rank's own clock (Kineto's unit); a flight
 * recorder's nanosecond integers are converted exactly as `startNs` strings beside them.
 */

/** The trace formats the readers know. */
export type TraceFormat = 'kineto' | 'flight-recorder';

/** Where a rank number came from: the trace's own metadata, or the file name (`rank-3`, `worker3`). */
export type RankSource = 'distributedInfo' | 'flight-recorder' | 'file-name';

export interface TraceCollective {
  /**
   * Position of this collective among this rank's collectives of the same process group, from 0:
   * the key that matches it across ranks (with `group`). Flight-recorder dumps give NCCL's own
   * sequence number (collective_seq_id, or p2p_seq_id for point-to-point); Kineto traces the order.
   */
  seq: number;
  /** Process-group name ("0", "1", ...), or "default" when the trace does not say. */
  group: string;
  /** The group's description ("default_pg", "mesh_dp", ...), when the trace says. */
  groupDesc: string | null;
  /** Global ranks of the group, when the trace says. */
  groupRanks: number[] | null;
  groupSize: number | null;
  /**
   * The project's op id (all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall,
   * sendrecv, send, recv), or NCCL's own name where none fits (for example "Generic" kernels with no args).
   */
  op: string;
  /** The kernel name or profiling name as the trace wrote it. */
  name: string;
  startUs: number;
  durUs: number;
  /**
   * Bytes the way nccl-tests sizes the op (all_reduce, broadcast, reduce: the buffer; all_gather:
   * the output; reduce_scatter: the input; alltoall: the whole send buffer; sendrecv: what one rank
   * sends), or null when the trace has no element counts.
   */
  sizeBytes: number | null;
  /** Element type as the trace names it ("Float", "BFloat16", "float"...), or null. */
  dtype: string | null;
  /** NCCL algorithm and protocol read from the kernel name (`RING`, `LL`), when it carries them. */
  algo: string | null;
  proto: string | null;
  /** The ProfilerStep number it belongs to, or null when the trace has no steps or it falls outside them. */
  step: number | null;
  /**
   * Flight recorder only: how far the collective got on this rank when the dump was written.
   * 'started' or 'scheduled' means it never finished here (a hang, or the dump came mid-flight):
   * its durUs is NaN (unknown, `null` in JSON). Kineto collectives have no state (they all ran).
   */
  state?: 'completed' | 'started' | 'scheduled';
  /**
   * Flight recorder only: the absolute start as the dump wrote it, nanoseconds since the epoch
   * (time_discovered_started_ns, else time_created_ns), as an exact decimal string (~1.7e18 does
   * not fit a double). startUs = (startNs - clockBaseNs) / 1000.
   */
  startNs?: string;
}

/** One `ProfilerStep#N` window, on the GPU where the trace has it (gpu_user_annotation), else the CPU. */
export interface TraceStep {
  step: number;
  startUs: number;
  endUs: number;
}

export interface TraceRankFacts {
  format: TraceFormat;
  /** The file this rank was read from (inside a .tar.gz: `archive.tar.gz:member`). */
  file: string;
  rank: number | null;
  rankSource: RankSource | null;
  worldSize: number | null;
  /** The host the rank ran on, when the trace says (Kineto: `hostname` / trace name; flight recorder: none). */
  host: string | null;
  /** GPU model from deviceProperties, when present. */
  device: string | null;
  /** True when the trace holds GPU kernels at all (a CPU-only rank is reported as such). */
  hasGpu: boolean;
  ncclVersion: string | null;
  collectives: TraceCollective[];
  steps: TraceStep[];
  /**
   * Merged busy intervals of every non-NCCL GPU kernel, sorted, as [start0, end0, start1, end1, ...]
   * (microseconds): T_compute of an iteration is their overlap with its window.
   */
  computeBusy: number[];
  /** Counts for the reader's summary line. */
  counts: { events: number; kernels: number; ncclKernels: number };
  /** What the reader noticed but read past (a cut-off file, events that are not JSON); absent when none. */
  warnings?: string[];
  /**
   * Flight recorder only: the zero of this rank's startUs, as an exact decimal string of
   * nanoseconds since the epoch (the smallest timestamp in the dump). Ranks of one host share
   * the clock, so BigInt(a.clockBaseNs) - BigInt(b.clockBaseNs) is the exact shift between two
   * files' startUs; across hosts it also holds their clock offset. readTraceFiles puts every
   * dump it reads on the smallest base among them (shareFlightRecorderClock), so their startUs
   * compare directly and clockBaseNs is then the same on all of them.
   */
  clockBaseNs?: string;
}
