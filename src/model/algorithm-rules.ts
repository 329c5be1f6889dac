/**
 * Which algorithm NCCL runs where: the algorithms that exist for each op, the shapes and versions on
 * which NCCL would refuse one (tuning.cc enable rules, enqueue.cc, nvls.cc), what `auto` weighs, and the
 * usage errors `--algo` gets. The costs are in collectives.ts.
 */
import { UsageError } from '../core/errors.js';
import type { CollectiveOp } from './busbw.js';
import { ALGORITHM_CHOICES, type AlgorithmChoice, type NcclAlgorithm } from './algorithms.js';
import { rankCount, type CollectiveShape } from './collective-shape.js';
import { NVLS_MAX_ARITY } from './nccl-tuning.js';

/** `local`: a one-rank collective, which NCCL runs as a device copy (src/enqueue.cc ncclLaunchOneRank). */
export type AlgorithmUsed = NcclAlgorithm | 'hierarchical' | 'p2p' | 'local';

/** Which algorithms exist for an op at all (NCCL src/enqueue.cc, tuning.cc). */
export const supportsAlgorithm = (op: CollectiveOp, algo: AlgorithmUsed): boolean => {
  if (op === 'alltoall' || op === 'sendrecv') return algo === 'p2p';
  switch (algo) {
    case 'ring':
      return true;
    case 'tree':
    case 'nvlstree':
    case 'collnetchain':
      return op === 'all_reduce';
    case 'nvls':
    case 'collnetdirect':
      return op === 'all_reduce' || op === 'all_gather' || op === 'reduce_scatter';
    case 'pat':
      return op === 'all_gather' || op === 'reduce_scatter';
    case 'hierarchical':
      return op === 'all_reduce' || op === 'all_gather' || op === 'reduce_scatter';
    default:
      return false;
  }
};

/**
 * Why NCCL would not run an algorithm that exists for the op on this shape, or null when it would
 * (tuning.cc enable rules, enqueue.cc, nvls.cc): tree and NVLSTree need several nodes; NVLS needs
 * NVLink SHARP, more than 2 GPUs and one node (several need CollNet); PAT needs one GPU per node.
 */
function shapeRefusal(op: CollectiveOp, algo: AlgorithmUsed, shape: CollectiveShape): string | null {
  // Name the version asked for; the tuning that applies to it may be an older encoded one.
  const version = shape.ncclVersion;
  switch (algo) {
    case 'nvls':
      if (!shape.tuning.nvls) return `NCCL ${version} has no NVLS (2.17 on)`;
      if (!shape.nvls) return 'NVLS needs NVSwitch with NVLink SHARP (H100, H200, B200, GB200)';
      if (shape.gpusPerNode <= 2) return 'NVLS needs more than 2 GPUs per node';
      if (shape.nodes > 1) return 'NVLS across nodes needs CollNet (IB SHARP); NCCL runs NVLSTree instead';
      if (op !== 'all_reduce' && rankCount(shape) > NVLS_MAX_ARITY)
        return `NVLS ${op} runs on at most ${NVLS_MAX_ARITY} ranks`;
      return null;
    case 'nvlstree':
      if (!shape.tuning.nvlsTree) return `NCCL ${version} has no NVLSTree (2.18 on)`;
      if (!shape.nvls) return 'NVLSTree needs NVSwitch with NVLink SHARP (H100, H200, B200, GB200)';
      if (shape.gpusPerNode <= 2) return 'NVLSTree needs more than 2 GPUs per node';
      if (shape.nodes <= 1) return 'NVLSTree needs more than one node';
      return null;
    case 'collnetdirect':
    case 'collnetchain':
      if (shape.nodes <= 1) return 'CollNet needs more than one node';
      if (shape.fabric && shape.fabric.transport !== 'ib') return 'CollNet needs InfiniBand SHARP switches';
      return null;
    case 'pat':
      if (!shape.tuning.pat) return `NCCL ${version} has no PAT (2.23 on)`;
      if (shape.gpusPerNode !== 1) return 'PAT runs with one GPU per node only';
      return null;
    default:
      return null;
  }
}

/** Algorithms `auto` weighs, as NCCL's tuner does: CollNet only when asked for (NCCL_COLLNET_ENABLE=1), tree across nodes only. */
export function autoCandidates(op: CollectiveOp, shape: CollectiveShape): AlgorithmUsed[] {
  const all: AlgorithmUsed[] = ['ring', 'tree', 'nvls', 'nvlstree', 'pat'];
  return all.filter(
    (algo) =>
      supportsAlgorithm(op, algo) &&
      shapeRefusal(op, algo, shape) === null &&
      !(algo === 'tree' && shape.nodes <= 1),
  );
}

/**
 * The `--algo` choices that apply to an op: NCCL runs tree, NVLSTree and CollNetChain for all_reduce
 * only; NVLS and CollNetDirect also for all_gather and reduce_scatter; PAT for all_gather and
 * reduce_scatter; the hierarchical scheme covers the three; alltoall and sendrecv are
 * point-to-point sends with no algorithm to choose (NCCL src/enqueue.cc), so only `auto` applies.
 */
export function applicableAlgorithms(op: CollectiveOp): AlgorithmChoice[] {
  return ALGORITHM_CHOICES.filter((choice) => choice === 'auto' || supportsAlgorithm(op, choice));
}

/** Throws the usage error `--algo` gets for an algorithm that does not apply to the op. */
export function checkAlgorithmApplies(op: CollectiveOp, choice: AlgorithmChoice): void {
  if (choice === 'auto' || supportsAlgorithm(op, choice)) return;
  const p2p = op === 'alltoall' || op === 'sendrecv' ? ': NCCL runs it as point-to-point sends' : '';
  throw new UsageError(
    `--algo ${choice} does not apply to ${op}${p2p} (algorithms for ${op}: ${applicableAlgorithms(op).join(', ')})`,
  );
}

/** Throws when NCCL would not run the forced algorithm on this shape, naming the ones it does run. */
export function checkAlgorithmRuns(op: CollectiveOp, choice: AlgorithmChoice, shape: CollectiveShape): void {
  checkAlgorithmApplies(op, choice);
  if (
    choice === 'auto' ||
    choice === 'hierarchical' ||
    choice === 'ring' ||
    shape.pureAlphaUs !== undefined ||
    rankCount(shape) === 1
  )
    return;
  const why = shapeRefusal(op, choice, shape);
  if (why === null) return;
  const runs = ['ring', ...autoCandidates(op, shape).filter((algo) => algo !== 'ring'), 'hierarchical'];
  throw new UsageError(
    `--algo ${choice} does not run here: ${why} (algorithms NCCL runs for ${op} on this shape: ${[...new Set(runs)].join(', ')})`,
  );
}
