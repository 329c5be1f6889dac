/**
 * Hierarchical all_reduce as dependent chunk transfers: the model's `hierarchical` algorithm
 * (model/algorithms.ts), run on the fluid engine so that contention, placement and oversubscription
 * decide its time instead of the alpha-beta sum. With N nodes of G GPUs and S bytes per rank:
 *   A. inside every node, a ring reduce-scatter over its G GPUs (NVLink): G-1 steps of S/G;
 *   B. for every local index l, a ring all_reduce over the N GPUs of index l, one per node (the
 *      network): 2(N-1) steps of S/(G·N); the G rings of a node share its network links;
 *   C. inside every node, a ring all_gather: G-1 steps of S/G.
 * Within each ring, a chunk waits as RingStepsWorkload's do (ring.ts): for its predecessor's
 * previous chunk to arrive and for its own connection's previous chunk to be sent. Across phases,
 * a GPU's inter-node ring starts when its reduced chunk has arrived (the last step of A into it),
 * and its node's all_gather starts from it when the inter-node result has arrived (the last step of
 * B into it). On an uncontended fabric the run equals 2(G-1)(S/G/nvlink + nvlinkLatency) +
 * 2(N-1)(S/(G·N)/(network share) + networkLatency); a test holds that.
 *
 * Flows are numbered phase by phase, nothing stored per flow (16,384 GPUs: 67 million chunks):
 *   A: n·G(G-1) + s·G + l          (node n, step s, sender l; path n·G + l, to l+1 in node n)
 *   B: |A| + l·2(N-1)·N + s·N + n  (ring l, step s, sender node n; path NG + l·N + n, to node n+1)
 *   C: |A| + |B| + n·G(G-1) + s·G + l (as A, on A's paths)
 */
import type { FluidWorkload } from '../types.js';
import {
  RankPlacement,
  type BuiltWorkload,
  type CollectiveFabric,
  type CollectiveInput,
} from './placement.js';

export interface HierarchicalAllReduceOptions {
  nodes: number;
  gpusPerNode: number;
  sizeBytes: number;
  pathOffsets: Int32Array;
  pathLinkIds: Int32Array;
  latencyNsByPath: Float64Array;
}

export class HierarchicalAllReduceWorkload implements FluidWorkload {
  readonly flowCount: number;
  readonly maxDependencies = 2;
  readonly maxDependents = 1;
  readonly pathOffsets: Int32Array;
  readonly pathLinkIds: Int32Array;
  private readonly latencyNsByPath: Float64Array;
  private readonly nodes: number;
  private readonly gpus: number;
  private readonly intraSteps: number;
  private readonly interSteps: number;
  /** Flows of one node in one intra-node phase: G-1 steps of G senders. */
  private readonly perNode: number;
  /** Flows of one inter-node ring: 2(N-1) steps of N senders. */
  private readonly perRing: number;
  private readonly interBase: number;
  private readonly gatherBase: number;
  private readonly interPathBase: number;
  private readonly intraChunkBytes: number;
  private readonly interChunkBytes: number;

  constructor(o: HierarchicalAllReduceOptions) {
    this.nodes = o.nodes;
    this.gpus = o.gpusPerNode;
    this.intraSteps = o.gpusPerNode > 1 ? o.gpusPerNode - 1 : 0;
    this.interSteps = o.nodes > 1 ? 2 * (o.nodes - 1) : 0;
    this.perNode = this.intraSteps * o.gpusPerNode;
    this.perRing = this.interSteps * o.nodes;
    this.interBase = o.nodes * this.perNode;
    this.gatherBase = this.interBase + o.gpusPerNode * this.perRing;
    this.flowCount = this.gatherBase + o.nodes * this.perNode;
    this.interPathBase = o.gpusPerNode > 1 ? o.nodes * o.gpusPerNode : 0;
    this.intraChunkBytes = o.sizeBytes / o.gpusPerNode;
    this.interChunkBytes = o.sizeBytes / (o.gpusPerNode * o.nodes);
    this.pathOffsets = o.pathOffsets;
    this.pathLinkIds = o.pathLinkIds;
    this.latencyNsByPath = o.latencyNsByPath;
  }

  flowIdOf(flow: number): number {
    return flow;
  }

  pathOf(flow: number): number {
    if (flow < this.interBase) return this.intraPath(flow);
    if (flow < this.gatherBase) {
      const g = flow - this.interBase;
      return this.interPathBase + Math.floor(g / this.perRing) * this.nodes + (g % this.nodes);
    }
    return this.intraPath(flow - this.gatherBase);
  }

  sizeBytesOf(flow: number): number {
    return flow >= this.interBase && flow < this.gatherBase ? this.interChunkBytes : this.intraChunkBytes;
  }

  latencyNsOf(flow: number): number {
    return this.latencyNsByPath[this.pathOf(flow)]!;
  }

  startTimeNsOf(): number {
    return 0;
  }

  dependencyCountOf(flow: number): number {
    if (flow < this.interBase) return flow % this.perNode < this.gpus ? 0 : 2;
    if (flow < this.gatherBase) {
      const firstStep = (flow - this.interBase) % this.perRing < this.nodes;
      return firstStep ? (this.gpus > 1 ? 1 : 0) : 2;
    }
    return (flow - this.gatherBase) % this.perNode < this.gpus ? 1 : 2;
  }

  /** The next step into the receiver, or the next phase's first step out of it. */
  dependentsOf(flow: number, out: Int32Array): number {
    const G = this.gpus;
    const N = this.nodes;
    if (flow < this.interBase || flow >= this.gatherBase) {
      const gather = flow >= this.gatherBase;
      const base = gather ? this.gatherBase : 0;
      const f = flow - base;
      const node = Math.floor(f / this.perNode);
      const step = Math.floor((f % this.perNode) / G);
      const receiver = ((f % G) + 1) % G;
      if (step < this.intraSteps - 1) {
        out[0] = base + node * this.perNode + (step + 1) * G + receiver;
        return 1;
      }
      if (gather) return 0;
      // The reduced chunk of GPU `receiver` is complete: its inter-node ring (or, on one node, its
      // all_gather) may start.
      out[0] =
        N > 1
          ? this.interBase + receiver * this.perRing + node
          : this.gatherBase + node * this.perNode + receiver;
      return 1;
    }
    const g = flow - this.interBase;
    const ring = Math.floor(g / this.perRing);
    const step = Math.floor((g % this.perRing) / N);
    const receiver = ((g % N) + 1) % N;
    if (step < this.interSteps - 1) {
      out[0] = this.interBase + ring * this.perRing + (step + 1) * N + receiver;
      return 1;
    }
    if (G === 1) return 0;
    out[0] = this.gatherBase + receiver * this.perNode + ring;
    return 1;
  }

  /** The next message on the same connection (same phase), which waits for this one to be sent. */
  sentDependentsOf(flow: number, out: Int32Array): number {
    if (flow < this.interBase || flow >= this.gatherBase) {
      const f = flow - (flow >= this.gatherBase ? this.gatherBase : 0);
      if (Math.floor((f % this.perNode) / this.gpus) >= this.intraSteps - 1) return 0;
      out[0] = flow + this.gpus;
      return 1;
    }
    if (Math.floor(((flow - this.interBase) % this.perRing) / this.nodes) >= this.interSteps - 1) return 0;
    out[0] = flow + this.nodes;
    return 1;
  }

  private intraPath(f: number): number {
    return Math.floor(f / this.perNode) * this.gpus + (f % this.gpus);
  }
}

/** Hierarchical all_reduce of `sizeBytes` per rank over `fabric.gpusPerNode`-GPU nodes. */
export function buildHierarchicalAllReduce(
  fabric: CollectiveFabric,
  collective: CollectiveInput,
): BuiltWorkload<HierarchicalAllReduceWorkload> {
  const placement = new RankPlacement(fabric, collective);
  const gpusPerNode = fabric.gpusPerNode ?? 1;
  const nodes = placement.ranks / gpusPerNode;
  if (gpusPerNode > 1) {
    for (let node = 0; node < nodes; node++)
      for (let l = 0; l < gpusPerNode; l++)
        placement.intern(node * gpusPerNode + l, node * gpusPerNode + ((l + 1) % gpusPerNode));
  }
  if (nodes > 1) {
    for (let l = 0; l < gpusPerNode; l++)
      for (let node = 0; node < nodes; node++)
        placement.intern(node * gpusPerNode + l, ((node + 1) % nodes) * gpusPerNode + l);
  }
  const { pathOffsets, pathLinkIds, latencyNsByPath } = placement.paths();
  const workload = new HierarchicalAllReduceWorkload({
    nodes,
    gpusPerNode,
    sizeBytes: collective.sizeBytes,
    pathOffsets,
    pathLinkIds,
    latencyNsByPath,
  });
  return { links: placement.links, workload };
}
