/**
 * The facts the nccl-tests parser extracts. Field names carry units (GB = 1e9 bytes, as nccl-tests
 * prints); numbers are exactly what the file printed, never rounded again.
 */
import type { ParseWarning } from './types.js';

/** One half of a result row: the out-of-place or the in-place measurement. */
export interface NcclTestsMeasurement {
  timeUs: number;
  algbwGBps: number;
  busbwGBps: number;
  /** `#wrong` (2.13+); null when the file printed `N/A` or when the layout has an `error` column instead. */
  wrong: number | null;
  /** Only in the pre-2.13 layout: the `error` column (max absolute deviation); null for `N/A`. */
  maxError?: number | null;
  /** Only with `-I 1` (2.19.2+): per-iteration statistics printed after `#wrong`. */
  perIteration?: NcclTestsPerIteration;
}

/**
 * `-I 1` statistics over the timed iterations (NVIDIA/nccl-tests@0fdb00a src/util.cu
 * computeIterStats / writePerIterReport; i_* is the max over processes for each iteration). The
 * text table prints min, max, p99 and cv; the -J report adds the rest, each iteration's time included.
 */
export interface NcclTestsPerIteration {
  minUs: number;
  maxUs: number;
  p99Us: number;
  /** Coefficient of variation, stdev / mean x 100. */
  cvPct: number;
  /** -J only: `avg_us`, `p50_us`, `p95_us`, `stdev_us` (population stdev). */
  avgUs?: number;
  p50Us?: number;
  p95Us?: number;
  stdevUs?: number;
  /** -J only: `times_us`, every timed iteration in order. */
  timesUs?: number[];
  /** -J only, several processes: `per_process_max_times_us`, per process, each iteration's time. */
  perProcessTimesUs?: number[][];
  /** -J only (later releases): `skipped_iterations` left out of the statistics (--per_iter_skip). */
  skippedIterations?: number;
}

export interface NcclTestsRow {
  sizeBytes: number;
  count: number;
  type: string;
  /** null when the layout has no redop column or the file left it blank (old all_gather, alltoall). */
  redop: string | null;
  /** null when the layout has no root column (pre-2.13 all_reduce, all_gather, ...). */
  root: number | null;
  outOfPlace: NcclTestsMeasurement;
  inPlace: NcclTestsMeasurement;
  /** With the timestamp column: the printed local time, `YYYY-MM-DD hh:mm:ss`. */
  timestamp?: string;
  /** 1-based line of the row in the input (0 for the -J JSON file, which has no rows by line). */
  line: number;
}

/** The `# nThread 1 nGpus 8 minBytes ...` line, with the fields each version prints. */
export interface NcclTestsHeader {
  nThread: number | null;
  nGpus: number | null;
  minBytes: number | null;
  maxBytes: number | null;
  /** `step: 2(factor)`: the multiplication factor; null when stepping by bytes. */
  stepFactor: number | null;
  /** `step: 1048576(bytes)`: the increment; null when stepping by a factor. */
  stepBytes: number | null;
  warmupIters: number | null;
  iters: number | null;
  aggIters: number | null;
  validation: number | null;
  graph: number | null;
  /** 2.18+: `unalign: N`. */
  unalign: number | null;
  blocking: boolean;
  perIterationReport: boolean;
  parallelInit: boolean;
}

export interface NcclTestsDevice {
  rank: number;
  group: number | null;
  pid: number | null;
  host: string;
  device: number;
  /** `0000:06:00` (2.13+) or `0x00` (older). */
  pciBusId: string | null;
  name: string;
}

/** `nccl-1.x`: the NCCL 1 test programs (`bytes N type op time algbw busbw res`), time printed in ms. */
export type NcclTestsLayoutName = 'nccl-1.x' | 'pre-2.13' | '2.13+' | 'unknown';

export interface NcclTestsLayout {
  name: NcclTestsLayoutName;
  hasRedop: boolean;
  hasRoot: boolean;
  /** `#wrong` (a count, 2.13+) or `error` (a max deviation, older). */
  checkColumn: 'wrong' | 'error';
  perIteration: boolean;
  timestamps: boolean;
  /** `-C 1`: the time columns are CPU time (header `cputime`). */
  cpuTime: boolean;
  /** false when no column header survived and the layout was inferred from the rows. */
  fromHeader: boolean;
}

export interface NcclTestsTest {
  /** `all_reduce`, `sendrecv`, ... when the file says (`# Collective test starting`, or a command line naming the binary). */
  collective: string | null;
  collectiveSource: 'header' | 'command-line' | 'json-args' | null;
  /** `# nccl-tests version 2.17.9 ...` (2.17.4+). */
  ncclTestsVersion: string | null;
  /** NCCL_VERSION_CODE the tests were built against and the library found at run time (2.17.4+). */
  ncclHeadersCode: number | null;
  ncclLibraryCode: number | null;
  /** `NCCL version 2.26.2+cuda12.4` as printed by the library, when present. */
  ncclVersion: string | null;
  header: NcclTestsHeader | null;
  /** max(rank) + 1 over the device lines (ranks may be trimmed from the listing); null without devices. */
  ranks: number | null;
  devices: NcclTestsDevice[];
  layout: NcclTestsLayout | null;
  rows: NcclTestsRow[];
  /** `# Avg bus bandwidth : X` as printed; null when the line is absent. */
  avgBusbwGBps: number | null;
  /** `OK` or `FAILED` after the average when NCCL_TESTS_MIN_BW was set; null otherwise. */
  avgBusbwCheck: 'OK' | 'FAILED' | null;
  /** Highest busbw of any complete row, out-of-place or in-place; null without rows. */
  peakBusbwGBps: number | null;
  /** `# Out of bounds values : N OK|FAILED`; null when the line is absent. */
  outOfBounds: { count: number; ok: boolean } | null;
  /** `# error: ...` lines and the -J file's `errors`. */
  errors: string[];
  /** true when the test reached its footer (`Out of bounds`, `Avg bus bandwidth` or `Collective test concluded`). */
  complete: boolean;
  startLine: number;
  endLine: number;
  warnings: ParseWarning[];
}

export interface NcclTestsFacts {
  format: 'text' | 'json';
  tests: NcclTestsTest[];
}
