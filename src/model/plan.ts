/** `plan`, `compare`, `scale`: the training-step model over one job, several fabrics, several sizes. */
import { makeResult, type ResultEnvelope } from '../core/envelope.js';
import { AifabricError } from '../core/errors.js';
import {
  applyFabricOverrides,
  fabricPresets,
  resolveFabric,
  type FabricSpec,
  type Job,
  type JobOverrides,
  type LoadedJob,
} from '../spec/index.js';
import { DEFAULT_NCCL_VERSION } from './nccl-tuning.js';
import { trainingStep, type StepBreakdown } from './training-step.js';
import {
  counterpartPreset,
  isRdmaTransport,
  ncclNetOf,
  transportSplit,
  type TransportSplit,
} from './transport-split.js';

export interface PlanMetrics extends StepBreakdown {
  fabric: string;
  nodes: number;
  transport: string;
  lineRateGbps: number;
  /** The NCCL network transport the fabric stands for: `Socket` (kernel TCP, host staging) or `IB` (verbs, RoCE too). */
  ncclNet: string;
  /** Not asked for: the same line rate over the other transport, shown beside `counterpartOf`. */
  addedAsCounterpart?: true;
  counterpartOf?: string;
}

export interface CompareOptions {
  /** Add the same-line-rate fabric of the other transport beside each one asked for (default true). */
  counterparts?: boolean;
}

export interface ScaleOptions extends CompareOptions {
  /** Hardware and NCCL overrides applied at every point (`--bandwidth`, `--set fabric.*` to every fabric); nodes come from the sweep. */
  overrides?: Omit<JobOverrides, 'nodes' | 'fabric' | 'keepBatchPerReplica'>;
}

/**
 * The hardware and NCCL overrides as the inputs record them: what was asked, not what took effect
 * (`job` shows that: `gpuDirectRdma` after the fabric's say, `ncclVersion` with its default).
 */
export function overridesRecord(overrides: JobOverrides): Record<string, unknown> {
  return {
    gpu: overrides.fields?.gpu ?? {},
    fabric: overrides.fields?.fabric ?? {},
    cluster: overrides.fields?.cluster ?? {},
    gdr: overrides.gpuDirectRdma ?? null,
    ncclVersion: overrides.ncclVersion ?? null,
    bandwidthGbps: overrides.bandwidthBps !== undefined ? overrides.bandwidthBps / 1e9 : null,
  };
}

export interface CompareMetrics {
  rows: PlanMetrics[];
  /** The first of `splits` (null with a single fabric). */
  split: TransportSplit | null;
  /** One per pair: each TCP fabric asked for against each RDMA one; without both kinds, the first against each other. */
  splits: TransportSplit[];
}

/** A requested fabric and, when counterparts are on, the one added beside it. */
interface FabricEntry {
  fabric: FabricSpec;
  requested: string;
  counterpartOf?: string;
}

/**
 * The fabrics asked for, in order, each followed by its counterpart of the same line rate over the other
 * transport (a built-in preset) unless that one is asked for or already added.
 */
function withCounterparts(
  requested: readonly FabricSpec[],
  names: readonly string[],
  counterparts: boolean,
): FabricEntry[] {
  const seen = new Set(requested.map((fabric) => fabric.id));
  const entries: FabricEntry[] = [];
  requested.forEach((fabric, index) => {
    entries.push({ fabric, requested: names[index] ?? fabric.id });
    const partner = counterparts ? counterpartPreset(fabric, fabricPresets) : undefined;
    if (partner && !seen.has(partner.id)) {
      seen.add(partner.id);
      entries.push({ fabric: partner, requested: partner.id, counterpartOf: fabric.id });
    }
  });
  return entries;
}

/** The pairs to split: every TCP fabric against every RDMA one (TCP first); failing that, the first against each other. */
export function splitPairs(fabrics: readonly FabricSpec[]): [FabricSpec, FabricSpec][] {
  const tcp = fabrics.filter((fabric) => fabric.transport === 'tcp');
  const rdma = fabrics.filter((fabric) => isRdmaTransport(fabric.transport));
  if (tcp.length > 0 && rdma.length > 0)
    return tcp.flatMap((from) => rdma.map((to): [FabricSpec, FabricSpec] => [from, to]));
  const [first, ...rest] = fabrics;
  return first
    ? rest.filter((other) => other.id !== first.id).map((other): [FabricSpec, FabricSpec] => [first, other])
    : [];
}

function fabricFields(fabric: FabricSpec): Pick<PlanMetrics, 'transport' | 'lineRateGbps' | 'ncclNet'> {
  return { transport: fabric.transport, lineRateGbps: fabric.lineRateGbps, ncclNet: ncclNetOf(fabric) };
}

function jobSummary(job: Job): Record<string, unknown> {
  return {
    name: job.name,
    model: job.model.id,
    nodes: job.cluster.nodes,
    gpusPerNode: job.cluster.gpusPerNode,
    nicsPerNode: job.cluster.nicsPerNode,
    gpu: job.cluster.gpu.id,
    fabric: job.cluster.fabric.id,
    topology: job.cluster.topology,
    gpuDirectRdma: job.cluster.gpuDirectRdma,
    intraNodeKind: job.cluster.intraNodeKind,
    intraNodeGBps: job.cluster.intraNodeGBps,
    ncclVersion: job.cluster.ncclVersion ?? DEFAULT_NCCL_VERSION,
    nicBandwidthGbps: job.cluster.bandwidthBps !== undefined ? job.cluster.bandwidthBps / 1e9 : null,
    parallelism: job.parallelism,
    sharding: job.sharding,
    sequenceLength: job.sequenceLength,
    microBatchSize: job.microBatchSize,
    globalBatchSize: job.globalBatchSize,
    microBatches: job.microBatches,
    precision: job.precision,
    overlap: job.overlap,
    computeEfficiency: job.computeEfficiency,
  };
}

export function planStep(job: Job): PlanMetrics {
  return {
    fabric: job.cluster.fabric.id,
    nodes: job.cluster.nodes,
    ...fabricFields(job.cluster.fabric),
    ...trainingStep(job),
  };
}

export function planJob(
  loaded: LoadedJob,
  overrides: JobOverrides = {},
  file?: string,
): ResultEnvelope<PlanMetrics> {
  const job = loaded.resolve(overrides);
  const metrics = planStep(job);
  return makeResult('plan', { file, overrides: overridesRecord(overrides), job: jobSummary(job) }, metrics, {
    warnings: metrics.warnings,
  });
}

export function compareFabrics(
  loaded: LoadedJob,
  fabrics: readonly string[],
  overrides: JobOverrides = {},
  file?: string,
  options: CompareOptions = {},
): ResultEnvelope<CompareMetrics> {
  const requested = fabrics.map((fabric) => loaded.resolve({ ...overrides, fabric }).cluster.fabric);
  const stepTimes = new Map<FabricSpec, number>();
  const rows = withCounterparts(requested, fabrics, options.counterparts ?? true).map((entry) => {
    const row: PlanMetrics = planStep(loaded.resolve({ ...overrides, fabric: entry.fabric }));
    stepTimes.set(entry.fabric, row.stepTimeMs);
    return entry.counterpartOf === undefined
      ? row
      : { ...row, addedAsCounterpart: true as const, counterpartOf: entry.counterpartOf };
  });
  const stepTimeMs = (fabric: FabricSpec): number =>
    stepTimes.get(fabric) ?? trainingStep(loaded.resolve({ ...overrides, fabric })).stepTimeMs;
  const splits = splitPairs(requested).map(([from, to]) =>
    transportSplit(from, to, stepTimeMs, fabricPresets),
  );
  const warnings = [...new Set(rows.flatMap((row) => row.warnings))];
  return makeResult(
    'compare',
    {
      file,
      fabrics,
      counterparts: options.counterparts ?? true,
      overrides: overridesRecord(overrides),
      job: jobSummary(loaded.resolve(overrides)),
    },
    { rows, split: splits[0] ?? null, splits },
    { warnings },
  );
}

export interface ScalePoint {
  nodes: number;
  gpus: number;
  stepTimeMs: number;
  tokensPerSecond: number;
  tokensPerSecondPerGpu: number;
  mfu: number;
  exposedCommShare: number;
  /** Throughput per GPU relative to the smallest node count of the sweep (weak scaling). */
  scalingEfficiency: number;
}

export interface ScaleSeries {
  fabric: string;
  transport: string;
  ncclNet?: string;
  /** Not asked for: the same line rate over the other transport, shown beside `counterpartOf`; never in the pay-off point. */
  addedAsCounterpart?: true;
  counterpartOf?: string;
  points: ScalePoint[];
}

export interface ScaleMetrics {
  fabrics: ScaleSeries[];
  rdmaPaysOffFromNodes: number | null;
  rdmaPaysOffStatement: string;
  /** The ratio TCP step time / RDMA step time that counts as "pays off": RDMA at least 10% faster. */
  paysOffRatio: number;
  /** The headline pair (as `compare`'s first split) at the largest node count both reach; null without a pair. */
  split: TransportSplit | null;
  /** The headline pair split at every node count both fabrics reach. */
  splitsByNodes: { nodes: number; split: TransportSplit }[];
}

export const PAYS_OFF_RATIO = 1.1;

function bestAt(
  points: Map<string, Map<number, StepBreakdown>>,
  fabrics: string[],
  nodes: number,
): { fabric: string; stepTimeMs: number } | undefined {
  let best: { fabric: string; stepTimeMs: number } | undefined;
  for (const fabric of fabrics) {
    const step = points.get(fabric)?.get(nodes);
    if (step && (!best || step.stepTimeMs < best.stepTimeMs)) best = { fabric, stepTimeMs: step.stepTimeMs };
  }
  return best;
}

function isSkippable(error: unknown): boolean {
  return error instanceof AifabricError && error.exitCode === 2;
}

/** The preset a --fabrics entry names with the fabric overrides on, or undefined when it names none (scale then skips it with warnings). */
function lookUpFabric(name: string, fields: Record<string, unknown>): FabricSpec | undefined {
  try {
    return applyFabricOverrides(resolveFabric(name), fields, { tcpWhereTcp: true });
  } catch (error) {
    if (isSkippable(error)) return undefined;
    throw error;
  }
}

export function scaleJob(
  loaded: LoadedJob,
  nodeCounts: readonly number[],
  fabrics: readonly string[],
  file?: string,
  options: ScaleOptions = {},
): ResultEnvelope<ScaleMetrics> {
  const overrides = options.overrides ?? {};
  const sortedNodes = [...new Set(nodeCounts)].sort((a, b) => a - b);
  const warnings: string[] = [];
  const steps = new Map<string, Map<number, StepBreakdown>>();
  const transports = new Map<string, string>();
  const known = fabrics.map((name) => ({ name, fabric: lookUpFabric(name, overrides.fields?.fabric ?? {}) }));
  const requested = known.flatMap((entry) => (entry.fabric ? [entry.fabric] : []));
  const added = withCounterparts(
    requested,
    requested.map((fabric) => fabric.id),
    options.counterparts ?? true,
  ).filter((entry) => entry.counterpartOf !== undefined);
  // Each asked-for name in order, its counterpart (if any) right after it.
  const entries: { key: string; fabric: string | FabricSpec; spec?: FabricSpec; counterpartOf?: string }[] =
    known.flatMap(({ name, fabric }) => [
      { key: name, fabric: name, ...(fabric ? { spec: fabric } : {}) },
      ...added
        .filter((entry) => entry.counterpartOf === fabric?.id)
        .map((entry) => ({
          key: entry.fabric.id,
          fabric: entry.fabric,
          spec: entry.fabric,
          counterpartOf: entry.counterpartOf,
        })),
    ]);
  const seenKeys = new Set<string>();
  const series: ScaleSeries[] = [];
  for (const entry of entries) {
    if (entry.counterpartOf !== undefined && seenKeys.has(entry.key)) continue;
    seenKeys.add(entry.key);
    const perNodes = new Map<number, StepBreakdown>();
    for (const nodes of sortedNodes) {
      try {
        const job = loaded.resolve({ ...overrides, fabric: entry.fabric, nodes, keepBatchPerReplica: true });
        transports.set(entry.key, job.cluster.fabric.transport);
        perNodes.set(nodes, trainingStep(job));
      } catch (error) {
        if (!isSkippable(error)) throw error;
        warnings.push(
          `${entry.key} at ${nodes} node(s) skipped: ${error instanceof Error ? (error.message.split('\n')[0] ?? '') : ''}`,
        );
      }
    }
    steps.set(entry.key, perNodes);
    const baseline = [...perNodes.values()][0];
    const points: ScalePoint[] = [...perNodes.entries()].map(([nodes, step]) => ({
      nodes,
      gpus: step.gpus,
      stepTimeMs: step.stepTimeMs,
      tokensPerSecond: step.tokensPerSecond,
      tokensPerSecondPerGpu: step.tokensPerSecondPerGpu,
      mfu: step.mfu,
      exposedCommShare: step.exposedCommShare,
      scalingEfficiency: baseline ? step.tokensPerSecondPerGpu / baseline.tokensPerSecondPerGpu : Number.NaN,
    }));
    series.push({
      fabric: entry.key,
      transport: transports.get(entry.key) ?? entry.spec?.transport ?? 'unknown',
      ...(entry.spec ? { ncclNet: ncclNetOf(entry.spec) } : {}),
      ...(entry.counterpartOf !== undefined
        ? { addedAsCounterpart: true as const, counterpartOf: entry.counterpartOf }
        : {}),
      points,
    });
  }
  // The pay-off point looks at the fabrics asked for only; the counterparts are there to read beside them.
  const tcpFabrics = fabrics.filter((fabric) => transports.get(fabric) === 'tcp');
  const rdmaFabrics = fabrics.filter((fabric) => isRdmaTransport(transports.get(fabric) ?? ''));
  let paysOff: number | null = null;
  let statement: string;
  if (tcpFabrics.length === 0 || rdmaFabrics.length === 0) {
    statement =
      'the pay-off point needs at least one TCP and one RDMA (RoCE or InfiniBand) fabric in --fabrics';
  } else {
    // The smallest node count from which the best RDMA fabric stays at least 10% faster per step than the best TCP one.
    for (let index = sortedNodes.length - 1; index >= 0; index--) {
      const nodes = sortedNodes[index] ?? 0;
      const tcp = bestAt(steps, tcpFabrics, nodes);
      const rdma = bestAt(steps, rdmaFabrics, nodes);
      if (!tcp || !rdma) continue;
      if (tcp.stepTimeMs >= PAYS_OFF_RATIO * rdma.stepTimeMs) paysOff = nodes;
      else break;
    }
    const range = `${sortedNodes[0]}..${sortedNodes[sortedNodes.length - 1]} nodes`;
    if (paysOff === null) {
      statement = `RDMA is never at least 10% faster per step than TCP in ${range}`;
    } else {
      const tcp = bestAt(steps, tcpFabrics, paysOff);
      const rdma = bestAt(steps, rdmaFabrics, paysOff);
      const speedup = tcp && rdma ? tcp.stepTimeMs / rdma.stepTimeMs : Number.NaN;
      statement = `RDMA pays off from ${paysOff} node${paysOff === 1 ? '' : 's'}: ${rdma?.fabric ?? ''} is ${speedup.toFixed(2)}x faster per step than ${tcp?.fabric ?? ''} there, and stays at least 10% faster up to ${sortedNodes[sortedNodes.length - 1]} nodes`;
    }
  }
  const splitsByNodes = headlineSplits(loaded, overrides, requested, sortedNodes, (fabric, nodes) => {
    const key = entries.find((entry) => entry.spec === fabric)?.key;
    return key === undefined ? undefined : steps.get(key)?.get(nodes)?.stepTimeMs;
  });
  return makeResult(
    'scale',
    {
      file,
      nodes: sortedNodes,
      fabrics,
      counterparts: options.counterparts ?? true,
      overrides: overridesRecord(overrides),
      job: jobSummary(loaded.resolve(overrides)),
    },
    {
      fabrics: series,
      rdmaPaysOffFromNodes: paysOff,
      rdmaPaysOffStatement: statement,
      paysOffRatio: PAYS_OFF_RATIO,
      split: splitsByNodes[splitsByNodes.length - 1]?.split ?? null,
      splitsByNodes,
    },
    { warnings },
  );
}

/** The first pair of `splitPairs` split at each node count; a count where any of the three fabrics cannot run is left out. */
function headlineSplits(
  loaded: LoadedJob,
  overrides: JobOverrides,
  requested: readonly FabricSpec[],
  nodeCounts: readonly number[],
  known: (fabric: FabricSpec, nodes: number) => number | undefined,
): { nodes: number; split: TransportSplit }[] {
  const pair = splitPairs(requested)[0];
  if (!pair) return [];
  const [from, to] = pair;
  return nodeCounts.flatMap((nodes) => {
    try {
      const stepTimeMs = (fabric: FabricSpec): number =>
        known(fabric, nodes) ??
        trainingStep(loaded.resolve({ ...overrides, fabric, nodes, keepBatchPerReplica: true })).stepTimeMs;
      return [{ nodes, split: transportSplit(from, to, stepTimeMs, fabricPresets) }];
    } catch (error) {
      if (isSkippable(error)) return [];
      throw error;
    }
  });
}
