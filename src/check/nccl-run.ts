/**
 * What a check reads from one nccl-tests run: the shape it ran on (nodes from the hosts in the
 * `Rank N ... on HOST` lines, GPUs per node from ranks over nodes), its large-message plateau,
 * and its small-message latency. Shared by the bandwidth and straggler rules.
 */
import { COLLECTIVE_OPS, busbwFactor, dataTypeBytes, type CollectiveOp } from '../core/collectives.js';
import { median } from '../core/stats.js';
import type { NcclTestsRow, NcclTestsTest } from '../parse/index.js';

export interface RunShape {
  nodes: number;
  gpusPerNode: number;
  hosts: string[];
  /** The GPU model named in the device lines (`NVIDIA H100 80GB HBM3`), when printed. */
  gpuName: string | null;
}

export function runShape(test: NcclTestsTest): RunShape | null {
  const hosts = [...new Set(test.devices.map((device) => device.host))].sort();
  const ranks =
    test.ranks ??
    (test.header?.nGpus != null && test.header.nThread != null
      ? test.header.nGpus * test.header.nThread
      : null);
  if (ranks === null || ranks < 1) return null;
  const nodes = Math.max(1, hosts.length);
  // Device listings are sometimes trimmed (only a few ranks printed): ranks / hosts is the better count.
  const perHost =
    ranks % nodes === 0
      ? ranks / nodes
      : Math.max(...hosts.map((host) => test.devices.filter((device) => device.host === host).length), 1);
  return { nodes, gpusPerNode: perHost, hosts, gpuName: test.devices[0]?.name ?? null };
}

export interface CollectiveGuess {
  op: CollectiveOp;
  /** How the collective was known: the log says so, the file name does, or the table's shape. */
  basis: 'log' | 'file name' | 'table';
}

/** busbw/algbw matches a factor within 2%: nccl-tests prints both to two decimals, so 0.01 GB/s rounding moves the ratio. */
const FACTOR_TOLERANCE = 0.02;

/**
 * The collective of a run: stated by the log (2.17.4+ header, command line), else named in the file
 * name, else read from the table: count x type size = size with a reduction and no root is
 * all_reduce when busbw/algbw is 2(n-1)/n, sendrecv when it is 1 (nccl-tests' busbw factors); with
 * two ranks both factors are 1 and all_reduce is assumed, the usual acceptance test.
 */
export function collectiveOp(test: NcclTestsTest, source = ''): CollectiveGuess | null {
  const stated = test.collective?.replace(/_perf(_mpi)?$/, '') ?? null;
  const fromLog = COLLECTIVE_OPS.find((op) => op === stated);
  if (fromLog) return { op: fromLog, basis: 'log' };
  const named = [...COLLECTIVE_OPS]
    .sort((a, b) => b.length - a.length)
    .find((op) => source.toLowerCase().replace(/-/g, '_').includes(op));
  if (named) return { op: named, basis: 'file name' };
  const ranks = test.ranks;
  const row = test.rows
    .filter((candidate) => candidate.sizeBytes > 0 && candidate.outOfPlace.algbwGBps > 0)
    .at(-1);
  const typeBytes = row ? dataTypeBytes(row.type) : undefined;
  if (!row || ranks === null || ranks < 2 || typeBytes === undefined) return null;
  const reduces = row.redop !== null && row.redop !== 'none';
  if (!reduces || (row.root !== null && row.root >= 0) || row.count * typeBytes !== row.sizeBytes)
    return null;
  const factor = row.outOfPlace.busbwGBps / row.outOfPlace.algbwGBps;
  const near = (value: number) => Math.abs(factor - value) <= FACTOR_TOLERANCE * value;
  if (near(busbwFactor('all_reduce', ranks))) return { op: 'all_reduce', basis: 'table' };
  if (near(busbwFactor('sendrecv', ranks))) return { op: 'sendrecv', basis: 'table' };
  return null;
}

function bestBusbw(row: NcclTestsRow): number {
  return Math.max(row.outOfPlace.busbwGBps, row.inPlace.busbwGBps);
}

export interface Plateau {
  busbwGBps: number;
  /** The rows the plateau was taken over (sizes within 8x of the largest). */
  rows: NcclTestsRow[];
  largestSizeBytes: number;
}

/**
 * The median of the best busbw (out-of-place or in-place) over the rows within 8x of the largest
 * size: at -f 2 the last four rows, where nccl-tests' curve has flattened for any sweep that ends at
 * hundreds of MB or more. The median keeps one lucky or unlucky row from deciding.
 */
export function plateau(test: NcclTestsTest): Plateau | null {
  const rows = test.rows.filter((row) => row.sizeBytes > 0 && Number.isFinite(bestBusbw(row)));
  if (rows.length === 0) return null;
  const largestSizeBytes = Math.max(...rows.map((row) => row.sizeBytes));
  const top = rows.filter((row) => row.sizeBytes * 8 >= largestSizeBytes);
  return { busbwGBps: median(top.map(bestBusbw)), rows: top, largestSizeBytes };
}

/** Out-of-place time of the smallest non-empty message: the run's latency floor. */
export function smallMessageLatency(test: NcclTestsTest): { timeUs: number; row: NcclTestsRow } | null {
  const rows = test.rows.filter((row) => row.sizeBytes > 0 && Number.isFinite(row.outOfPlace.timeUs));
  if (rows.length === 0) return null;
  const smallest = rows.reduce((best, row) => (row.sizeBytes < best.sizeBytes ? row : best));
  return { timeUs: smallest.outOfPlace.timeUs, row: smallest };
}

/** The GPU preset for a device name as nccl-tests prints it; null when unknown. */
export function gpuPresetFor(name: string | null): string | null {
  // PCIe cards lack the SXM boards' NVLink switch: the SXM presets would overstate them.
  if (!name || /PCIe|NVL\b/i.test(name)) return null;
  if (/B200/i.test(name)) return 'b200';
  if (/H200/i.test(name)) return 'h200';
  if (/H100|H800/i.test(name)) return 'h100-sxm';
  if (/A100.*40\s*GB/i.test(name)) return 'a100-40gb';
  if (/A100|A800/i.test(name)) return 'a100-80gb';
  return null;
}
