/**
 * What `aifabric trace` does once its flags are read: read the traces (src/parse), build the model
 * the flags ask for (src/trace's modelFor: a job file, or a fabric and GPU preset), and analyse
 * (src/trace's analyseTrace). Loaded lazily so `aifabric --help` imports no reader.
 */
import type { ResultEnvelope } from '../../core/envelope.js';
import type { TraceRankFacts } from '../../parse/index.js';
import type { TraceMetrics } from '../../trace/index.js';
import type { TraceOptions } from './trace.js';

/** The flags that choose what is read and the model beside it; the output flags are the caller's. */
export type TraceRunOptions = Pick<TraceOptions, 'job' | 'fabric' | 'gpu' | 'steps'>;

/**
 * The cluster shape the traces describe: one node per host named (ranks whose trace names no host
 * count as one host), and the world size, when the traces give it, spread over those nodes.
 */
export function traceShape(ranks: readonly TraceRankFacts[]): { nodes: number; gpusPerNode: number } {
  const hosts = new Map<string, number>();
  for (const rank of ranks) hosts.set(rank.host ?? '', (hosts.get(rank.host ?? '') ?? 0) + 1);
  const nodes = Math.max(1, hosts.size);
  const worldSize = ranks.reduce<number | null>((found, rank) => found ?? rank.worldSize, null);
  const tracedPerNode = Math.max(1, ...hosts.values());
  const gpusPerNode =
    worldSize !== null && worldSize > 0
      ? Math.max(tracedPerNode, Math.ceil(worldSize / nodes))
      : tracedPerNode;
  return { nodes, gpusPerNode };
}

export async function runTrace(
  paths: readonly string[],
  options: TraceRunOptions,
): Promise<ResultEnvelope<TraceMetrics>> {
  // Presets and the job file are checked before any trace is read: a typo fails in milliseconds.
  const { resolveFabric, resolveGpu } = await import('../../spec/index.js');
  if (options.fabric !== undefined) resolveFabric(options.fabric);
  if (options.gpu !== undefined) resolveGpu(options.gpu);
  const loaded =
    options.job !== undefined ? (await import('../../spec/index.js')).loadJobFile(options.job) : undefined;

  const { readTraceFiles } = await import('../../parse/index.js');
  const { analyseTrace, modelFor } = await import('../../trace/index.js');
  const ranks = await readTraceFiles([...paths]);
  const shape = { ...traceShape(ranks), device: ranks.find((rank) => rank.device !== null)?.device ?? null };
  // --fabric and --gpu, given with --job, override the job file's (as `plan --fabric` does).
  const model =
    loaded !== undefined || options.fabric !== undefined
      ? modelFor(options.fabric, options.gpu, shape, loaded)
      : undefined;
  const inputs: Record<string, unknown> = {
    paths: [...paths],
    steps: options.steps ?? null,
    ...(options.job !== undefined ? { job: options.job } : {}),
    ...(model !== undefined ? { fabric: model.fabric, gpu: model.gpu } : {}),
  };
  return analyseTrace(ranks, {
    ...(options.steps !== undefined ? { steps: options.steps } : {}),
    ...(model !== undefined ? { model } : {}),
    inputs,
  });
}
