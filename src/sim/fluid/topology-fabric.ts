/**
 * A simulated topology (sim/topo's `Topology`) as the fabric a fluid collective runs on: link
 * rates become capacities, routes become paths, and a network message's latency is the software
 * alpha plus the propagation delay of every link on its path. Typed structurally, so the fluid
 * engine depends on the shape of a topology, not on the packet simulator's module.
 */
import type { CollectiveFabric } from './workloads/placement.js';

export interface RoutedTopology {
  hostCount: number;
  links: readonly { id: number; rateBps: number; delayNs: number }[];
  route(srcHost: number, dstHost: number, flowHash: number): readonly number[];
}

export interface NodeModel {
  gpusPerNode?: number;
  nvlinkCapacityBps?: number;
  nvlinkLatencyNs?: number;
  /** Per-message software latency added to every network transfer (NCCL's alpha); default 0. */
  alphaNs?: number;
  hashSeed?: number;
}

export function fabricFromTopology(topology: RoutedTopology, node: NodeModel = {}): CollectiveFabric {
  const delayNs = new Map<number, number>(topology.links.map((link) => [link.id, link.delayNs]));
  const alphaNs = node.alphaNs ?? 0;
  return {
    links: topology.links.map((link) => ({ id: link.id, capacityBps: link.rateBps })),
    path: (src, dst, hash) => topology.route(src, dst, hash),
    hostCount: topology.hostCount,
    gpusPerNode: node.gpusPerNode,
    nvlinkCapacityBps: node.nvlinkCapacityBps,
    nvlinkLatencyNs: node.nvlinkLatencyNs,
    networkLatencyNs: (path) => path.reduce((sum, id) => sum + (delayNs.get(id) ?? 0), alphaNs),
    hashSeed: node.hashSeed,
  };
}
