/**
 * Where each parallel group's ranks sit, and the collective shape that follows. Ranks are laid out
 * tensor-parallel fastest, then context, then data, then pipeline (Megatron-LM's default order), so
 * a TP group stays inside a node while it fits, and DP groups stride across nodes.
 */
import type { Cluster, Parallelism } from '../spec/index.js';
import { buildShape, type CollectiveShape } from './collective-shape.js';

export type GroupKind = 'tp' | 'cp' | 'dp' | 'ep' | 'pp';

/** Members of a group of `size` ranks with stride `stride` that share one node. */
function membersPerNode(size: number, stride: number, gpusPerNode: number): number {
  if (stride >= gpusPerNode) return 1;
  return Math.max(1, Math.min(size, Math.floor(gpusPerNode / stride)));
}

export function groupLayout(
  kind: GroupKind,
  parallelism: Parallelism,
  gpusPerNode: number,
): { size: number; perNode: number } {
  const { tp, cp, dp, ep, pp } = parallelism;
  switch (kind) {
    case 'tp':
      return { size: tp, perNode: membersPerNode(tp, 1, gpusPerNode) };
    case 'cp':
      return { size: cp, perNode: membersPerNode(cp, tp, gpusPerNode) };
    case 'dp':
      return { size: dp, perNode: membersPerNode(dp, tp * cp, gpusPerNode) };
    case 'ep':
      // Experts are spread over data-parallel ranks (ep divides dp x cp).
      return { size: ep, perNode: membersPerNode(ep, tp, gpusPerNode) };
    case 'pp':
      return { size: pp, perNode: membersPerNode(pp, tp * cp * dp, gpusPerNode) };
  }
}

/**
 * The shape one group's collective runs on: its nodes, its members per node, and its share of each
 * node's NICs (all groups of a kind run at once, so each gets members/gpusPerNode of the NICs).
 */
export function groupShape(
  kind: GroupKind,
  parallelism: Parallelism,
  cluster: Cluster,
): CollectiveShape | undefined {
  const { size, perNode } = groupLayout(kind, parallelism, cluster.gpusPerNode);
  if (size <= 1) return undefined;
  const nodes = Math.ceil(size / perNode);
  return buildShape({
    nodes,
    gpusPerNode: perNode,
    nicsPerNode: (cluster.nicsPerNode * perNode) / cluster.gpusPerNode,
    fabric: cluster.fabric,
    gpu: cluster.gpu,
    gpuDirectRdma: cluster.gpuDirectRdma,
    topology: cluster.topology,
    intraNodeGBps: cluster.intraNodeGBps,
    intraNodeKind: cluster.intraNodeKind,
    ...(cluster.ncclVersion !== undefined ? { ncclVersion: cluster.ncclVersion } : {}),
    ...(cluster.bandwidthBps !== undefined ? { bandwidthBps: cluster.bandwidthBps } : {}),
    // Every group of this kind runs at once on the node: each gets its share of host memory too.
    hostMemoryBandwidthGBps: (cluster.hostMemoryBandwidthGBps * perNode) / cluster.gpusPerNode,
  });
}
