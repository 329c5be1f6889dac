/**
 * `aifabric demo`: the embedded Llama-3-70B-class job on 8 x H100 nodes, compared over TCP 100G,
 * RoCE 400G and InfiniBand NDR 400G (with RoCE 100G and TCP 400G beside them, so the transport effect
 * reads apart from the line-rate one), scaled from 1 to 128 nodes, with the all_reduce curves behind it.
 */
import type { ResultEnvelope } from '../core/envelope.js';
import {
  compareFabrics,
  runCollective,
  scaleJob,
  type CollectiveMetrics,
  type CompareMetrics,
  type ScaleMetrics,
  type TransportSplit,
} from '../model/index.js';
import { parseJobYaml } from '../spec/index.js';
import { DEFAULT_JOB_FILE_NAME, DEFAULT_JOB_YAML } from './default-job.js';

export const DEMO_FABRICS = ['tcp-100g', 'roce-400g', 'ib-ndr-400g'] as const;
export const DEMO_NODES = [1, 2, 4, 8, 16, 32, 64, 128] as const;

export interface DemoResults {
  compare: ResultEnvelope<CompareMetrics>;
  scale: ResultEnvelope<ScaleMetrics>;
  collectives: ResultEnvelope<CollectiveMetrics>[];
  /** The headline: TCP 100G against RoCE 400G at the job's 8 nodes, split into line rate x transport. */
  split: TransportSplit | null;
}

export function runDemo(): DemoResults {
  const job = parseJobYaml(DEFAULT_JOB_YAML, DEFAULT_JOB_FILE_NAME);
  const cluster = job.resolve().cluster;
  const compare = compareFabrics(job, DEMO_FABRICS, {}, DEFAULT_JOB_FILE_NAME);
  return {
    compare,
    split: compare.metrics.split,
    scale: scaleJob(job, DEMO_NODES, DEMO_FABRICS, DEFAULT_JOB_FILE_NAME),
    collectives: DEMO_FABRICS.map((fabric) =>
      runCollective({
        op: 'all_reduce',
        nodes: cluster.nodes,
        gpusPerNode: cluster.gpusPerNode,
        nicsPerNode: cluster.nicsPerNode,
        gpu: cluster.gpu,
        fabric,
        algo: 'auto',
        minBytes: 8,
        maxBytes: 8 * 1024 ** 3,
        factor: 2,
      }),
    ),
  };
}

/** One result the demo writes: the file name under its output folder, and the envelope. */
export interface DemoFile {
  name: string;
  envelope: ResultEnvelope<unknown>;
}

/** The results the demo writes as JSON, in order (what `--json` prints, `--save` records and the report shows). */
export function demoFiles(results: DemoResults): DemoFile[] {
  return [
    { name: 'compare.json', envelope: results.compare },
    { name: 'scale.json', envelope: results.scale },
    ...results.collectives.map((collective) => ({
      name: `collective-${String(collective.inputs.fabric)}.json`,
      envelope: collective,
    })),
  ];
}

export const DEMO_REPORT_TITLE = 'aifabric demo';
