/**
 * The nccl-tests corpus (test/fixtures/nccl-tests-corpus.json): what each log ran on, how its rows are read
 * (out-of-place, less the transients), and how the model predicts it. Pure: the caller reads the files
 * (bench/model-validation.mjs, test/model/calibration.test.ts); validation.ts scores the predictions.
 */
import { resolveFabric, type FabricSpec, type GpuSpec } from '../spec/index.js';
import type { AlgorithmChoice } from './algorithms.js';
import type { ProtocolChoice } from './nccl-tuning.js';
import { estimateCollective } from './collectives.js';
import { shapeFor } from './predict.js';
import type { CorpusLog, LogPredictor } from './validation.js';

/** What a corpus log ran on (test/fixtures/nccl-tests-corpus.json `hardware`). */
export interface CorpusHardware {
  gpu: string | GpuSpec;
  nodes: number;
  gpusPerNode: number;
  nicsPerNode: number;
  fabric: string;
  /** Fields of the fabric preset that differ on this system (a 50G EFA, a 9001-byte MTU). */
  fabricOverrides?: Partial<FabricSpec>;
  gpuDirectRdma?: boolean;
  ncclVersion?: string;
  algo?: AlgorithmChoice;
  proto?: ProtocolChoice;
  intraNode?: 'nvlink' | 'pcie';
  /** GPUs per nccl-tests thread (-g), from the log's `# nThread N nGpus G` header; 1 without one. */
  gpusPerThread?: number;
  /** Timed iterations per size (nccl-tests -n), from the log's header (`iters: N`); 20 without one. */
  iterations?: number;
  /** The GPU reaches its NIC through the CPU's host bridge: NCCL's topology log shows path PHB or SYS. */
  gdrViaCpu?: boolean;
}

export interface CorpusEntry extends CorpusLog {
  hardware: CorpusHardware;
  /** Why the log is kept but not scored (a run that is not a steady-state measurement). */
  excluded?: string;
  /** Rows left out of the score as transients (see TRANSIENT_RATIO). */
  transients?: TransientRow[];
}

/**
 * A row whose out-of-place time is more than this many times the in-place time of the same size,
 * in the same run, is a transient (a warm-up, a one-off stall of the host or the fabric), not the
 * steady state of the fabric: nccl-tests times both halves back to back on the same buffers' size,
 * so a healthy run gives two times within a few per cent of each other.
 */
export const TRANSIENT_RATIO = 2;

export interface TransientRow {
  sizeBytes: number;
  outOfPlaceUs: number;
  inPlaceUs: number;
}

function isTransient(outOfPlaceUs: number, inPlaceUs: number | undefined): boolean {
  return (
    inPlaceUs !== undefined &&
    Number.isFinite(inPlaceUs) &&
    inPlaceUs > 0 &&
    outOfPlaceUs > TRANSIENT_RATIO * inPlaceUs
  );
}

/** Predicts a corpus log as the model would for its hardware, with its forced NCCL_ALGO / NCCL_PROTO. */
export const corpusPredictor: LogPredictor<CorpusEntry> = (log, constants) => {
  const hw = log.hardware;
  const fabric = hw.fabricOverrides
    ? { ...resolveFabric(hw.fabric), ...hw.fabricOverrides }
    : resolveFabric(hw.fabric);
  const shape = shapeFor({
    nodes: hw.nodes,
    gpusPerNode: hw.gpusPerNode,
    nicsPerNode: hw.nicsPerNode,
    fabric,
    gpu: hw.gpu,
    ...(hw.gpuDirectRdma !== undefined ? { gpuDirectRdma: hw.gpuDirectRdma } : {}),
    ...(hw.ncclVersion !== undefined ? { ncclVersion: hw.ncclVersion } : {}),
    ...(hw.intraNode !== undefined ? { intraNodeKind: hw.intraNode } : {}),
    ...(hw.gpusPerThread !== undefined ? { gpusPerThread: hw.gpusPerThread } : {}),
    ...(hw.iterations !== undefined ? { iterations: hw.iterations } : {}),
    ...(hw.gdrViaCpu !== undefined ? { gdrViaCpu: hw.gdrViaCpu } : {}),
    constants,
  });
  return (sizeBytes) => estimateCollective(log.op, sizeBytes, shape, hw.algo ?? 'auto', hw.proto ?? 'auto');
};

interface CorpusFile {
  logs: (Omit<CorpusEntry, 'cluster' | 'rows'> & { system: string })[];
}

/**
 * The corpus as the bench and the test read it: each log parsed by aifabric's nccl-tests parser (its
 * out-of-place rows, less the transients), its cluster the system at one node count. `readLog` returns a log's text from
 * its `file` entry (`shared:` for ../shared/data/samples/).
 */
export function corpusFromJson(
  json: string,
  readLog: (file: string) => string,
  parse: (text: string) => {
    facts: {
      tests: {
        header: { nGpus: number | null; iters: number | null } | null;
        rows: {
          sizeBytes: number;
          outOfPlace: { timeUs: number; busbwGBps: number };
          inPlace?: { timeUs: number };
        }[];
      }[];
    };
  },
): (CorpusEntry & { system: string; source: string })[] {
  const corpus = JSON.parse(json) as CorpusFile;
  return corpus.logs.map((entry) => {
    const test = parse(readLog(entry.file)).facts.tests.find((candidate) => candidate.rows.length > 0);
    const valid = (test?.rows ?? []).filter((row) => row.sizeBytes > 0 && row.outOfPlace.timeUs > 0);
    const transients = valid
      .filter((row) => isTransient(row.outOfPlace.timeUs, row.inPlace?.timeUs))
      .map((row) => ({
        sizeBytes: row.sizeBytes,
        outOfPlaceUs: row.outOfPlace.timeUs,
        inPlaceUs: row.inPlace!.timeUs,
      }));
    const rows = valid
      .filter((row) => !isTransient(row.outOfPlace.timeUs, row.inPlace?.timeUs))
      .map((row) => ({
        sizeBytes: row.sizeBytes,
        timeUs: row.outOfPlace.timeUs,
        busbwGBps: row.outOfPlace.busbwGBps,
      }));
    const hw = entry.hardware;
    const gpusPerThread = hw.gpusPerThread ?? test?.header?.nGpus ?? undefined;
    const iterations = hw.iterations ?? test?.header?.iters ?? undefined;
    const hardware = {
      ...hw,
      ...(gpusPerThread !== undefined ? { gpusPerThread } : {}),
      ...(iterations !== undefined ? { iterations } : {}),
    };
    return {
      ...(entry as CorpusEntry & { system: string; source: string }),
      hardware,
      cluster: `${entry.system} ${hw.nodes}x${hw.gpusPerNode}`,
      rows,
      ...(transients.length > 0 ? { transients } : {}),
    };
  });
}
