/** `plan`, `compare`, `scale`: the training-step model over one job, several fabrics, several sizes. */
import { makeResult, type ResultEnvelope } from '../core/envelope.js';
import { AifabricError } from '../core/errors.js';
import type { LoadedJob } from '../spec/load.js';
import type { Job, JobOverrides } from '../spec/resolve.js';
import { trainingStep, type StepBreakdown } from './training-step.js';

export interface PlanMetrics extends StepBreakdown {
  fabric: string;
  nodes: number;
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
  return { fabric: job.cluster.fabric.id, nodes: job.cluster.nodes, ...trainingStep(job) };
}

export function planJob(loaded: LoadedJob, overrides: JobOverrides = {}, file?: string): ResultEnvelope<PlanMetrics> {
  const job = loaded.resolve(overrides);
  const metrics = planStep(job);
  return makeResult('plan', { file, job: jobSummary(job) }, metrics, { warnings: metrics.warnings });
}

export function compareFabrics(loaded: LoadedJob, fabrics: readonly string[], overrides: JobOverrides = {}, file?: string): ResultEnvelope<{ rows: PlanMetrics[] }> {
  const rows = fabrics.map((fabric) => planStep(loaded.resolve({ ...overrides, fabric })));
  const warnings = [...new Set(rows.flatMap((row) => row.warnings))];
  return makeResult('compare', { file, fabrics, job: jobSummary(loaded.resolve(overrides)) }, { rows }, { warnings });
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

export interface ScaleMetrics {
  fabrics: { fabric: string; transport: string; points: ScalePoint[] }[];
  rdmaPaysOffFromNodes: number | null;
  rdmaPaysOffStatement: string;
  /** The ratio TCP step time / RDMA step time that counts as "pays off": RDMA at least 10% faster. */
  paysOffRatio: number;
}

export const PAYS_OFF_RATIO = 1.1;

function bestAt(points: Map<string, Map<number, StepBreakdown>>, fabrics: string[], nodes: number): { fabric: string; stepTimeMs: number } | undefined {
  let best: { fabric: string; stepTimeMs: number } | undefined;
  for (const fabric of fabrics) {
    const step = points.get(fabric)?.get(nodes);
    if (step && (!best || step.stepTimeMs < best.stepTimeMs)) best = { fabric, stepTimeMs: step.stepTimeMs };
  }
  return best;
}

export function scaleJob(loaded: LoadedJob, nodeCounts: readonly number[], fabrics: readonly string[], file?: string): ResultEnvelope<ScaleMetrics> {
  const sortedNodes = [...new Set(nodeCounts)].sort((a, b) => a - b);
  const warnings: string[] = [];
  const steps = new Map<string, Map<number, StepBreakdown>>();
  const transports = new Map<string, string>();
  for (const fabric of fabrics) {
    const perNodes = new Map<number, StepBreakdown>();
    for (const nodes of sortedNodes) {
      try {
        const job = loaded.resolve({ fabric, nodes, keepBatchPerReplica: true });
        transports.set(fabric, job.cluster.fabric.transport);
        perNodes.set(nodes, trainingStep(job));
      } catch (error) {
        if (!(error instanceof AifabricError) || error.exitCode !== 2) throw error;
        warnings.push(`${fabric} at ${nodes} node(s) skipped: ${error.message.split('\n')[0] ?? ''}`);
      }
    }
    steps.set(fabric, perNodes);
  }
  const series = fabrics.map((fabric) => {
    const perNodes = steps.get(fabric) ?? new Map<number, StepBreakdown>();
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
    return { fabric, transport: transports.get(fabric) ?? 'unknown', points };
  });
  const tcpFabrics = fabrics.filter((fabric) => transports.get(fabric) === 'tcp');
  const rdmaFabrics = fabrics.filter((fabric) => transports.get(fabric) === 'roce' || transports.get(fabric) === 'ib');
  let paysOff: number | null = null;
  let statement: string;
  if (tcpFabrics.length === 0 || rdmaFabrics.length === 0) {
    statement = 'the pay-off point needs at least one TCP and one RDMA (RoCE or InfiniBand) fabric in --fabrics';
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
  return makeResult(
    'scale',
    { file, nodes: sortedNodes, fabrics, job: jobSummary(loaded.resolve({})) },
    { fabrics: series, rdmaPaysOffFromNodes: paysOff, rdmaPaysOffStatement: statement, paysOffRatio: PAYS_OFF_RATIO },
    { warnings },
  );
}
