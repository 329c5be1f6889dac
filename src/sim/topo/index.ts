/** Topologies shared by the packet and fluid engines. */
import { buildFatTree } from './fat-tree.js';
import { buildLeafSpine } from './leaf-spine.js';
import { buildRail } from './rail.js';
import { buildRing } from './ring.js';
import { buildStar } from './star.js';
import type { Topology, TopologySpec } from './types.js';

export type {
  FatTreeSpec,
  LeafSpineSpec,
  RailSpec,
  RingSpec,
  StarSpec,
  TopoLink,
  TopoNode,
  Topology,
  TopologySpec,
} from './types.js';
export { mixHash } from './builder.js';
export { connectionEcmpHash } from './ecmp.js';
export { ringPaths, type RingPaths } from './ring.js';

export function buildTopology(spec: TopologySpec): Topology {
  switch (spec.kind) {
    case 'star':
      return buildStar(spec);
    case 'leaf-spine':
      return buildLeafSpine(spec);
    case 'rail':
      return buildRail(spec);
    case 'fat-tree':
      return buildFatTree(spec);
    case 'ring':
      return buildRing(spec);
  }
}
