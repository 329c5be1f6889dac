/**
 * Where ranks live and how two ranks reach each other: ranks fill nodes of `gpusPerNode` GPUs in
 * order (rank r on node floor(r / gpusPerNode)); two ranks on one node talk over NVLink, modelled
 * as one egress and one ingress link per GPU (an NVSwitch node gives each GPU its full bandwidth
 * both ways); ranks on different nodes take the network path between their nodes.
 * Paths are interned per rank pair, so a workload with millions of chunks keeps one path per
 * connection, as a real connection keeps one ECMP path (same 5-tuple, same hash). The hash is the
 * simulator's one connection hash (topo's connectionEcmpHash) of the path's index, the order in
 * which the workload opens its connections.
 */
import { InputError } from '../../../core/errors.js';
import { connectionEcmpHash } from '../../topo/index.js';
import type { FluidLink, FluidWorkload, PathFn } from '../types.js';

export interface CollectiveFabric {
  /** Network links (ids must not collide with the NVLink ids added after the largest one). */
  links: readonly FluidLink[];
  /** Network path between two nodes (hosts of the topology). */
  path: PathFn;
  /** Number of hosts the path function knows, to reject ranks beyond it (optional). */
  hostCount?: number;
  /** GPUs per node; default 1 (every rank is a host and every hop crosses the network). */
  gpusPerNode?: number;
  /** Per-GPU NVLink bandwidth each way, bits per second; required when gpusPerNode > 1. */
  nvlinkCapacityBps?: number;
  /** Per-message latency of an NVLink transfer; default 0. */
  nvlinkLatencyNs?: number;
  /** Per-message latency of a network transfer (alpha + propagation), or a function of its path. */
  networkLatencyNs?: number | ((path: readonly number[]) => number);
  /** Seed of each connection's ECMP hash (connectionEcmpHash); default 0. */
  hashSeed?: number;
}

export interface CollectiveInput {
  ranks: number;
  /** Per-rank buffer, as nccl-tests' size: all_reduce S, all_gather output S, alltoall send S. */
  sizeBytes: number;
}

/** A built workload with the links it runs on (the fabric's plus any NVLink links): a FluidInput. */
export interface BuiltWorkload<W extends FluidWorkload> {
  links: FluidLink[];
  workload: W;
}

export class RankPlacement {
  readonly ranks: number;
  readonly links: FluidLink[];
  private readonly gpusPerNode: number;
  private readonly nvlinkBase: number;
  private readonly fabric: CollectiveFabric;
  private readonly offsets: number[] = [0];
  private readonly linkIds: number[] = [];
  private readonly latencies: number[] = [];

  constructor(fabric: CollectiveFabric, collective: CollectiveInput) {
    const { ranks, sizeBytes } = collective;
    const gpusPerNode = fabric.gpusPerNode ?? 1;
    if (!Number.isInteger(ranks) || ranks < 1)
      throw new InputError(`ranks: ${ranks} is not a positive integer`);
    if (!(Number.isFinite(sizeBytes) && sizeBytes >= 0))
      throw new InputError(`sizeBytes: ${sizeBytes} is not a finite number >= 0`);
    if (!Number.isInteger(gpusPerNode) || gpusPerNode < 1)
      throw new InputError(`gpusPerNode: ${gpusPerNode} is not a positive integer`);
    if (ranks % gpusPerNode !== 0)
      throw new InputError(`ranks: ${ranks} is not a whole number of ${gpusPerNode}-GPU nodes`);
    const nodes = ranks / gpusPerNode;
    if (fabric.hostCount !== undefined && nodes > fabric.hostCount) {
      throw new InputError(
        `ranks: ${ranks} ranks need ${nodes} nodes but the fabric has ${fabric.hostCount} hosts`,
      );
    }
    this.ranks = ranks;
    this.gpusPerNode = gpusPerNode;
    this.fabric = fabric;
    this.links = [...fabric.links];
    this.nvlinkBase = fabric.links.reduce((max, link) => Math.max(max, link.id), -1) + 1;
    if (gpusPerNode > 1) {
      const capacityBps = fabric.nvlinkCapacityBps;
      if (capacityBps === undefined || !(capacityBps > 0 && Number.isFinite(capacityBps))) {
        throw new InputError(
          `nvlinkCapacityBps: ${capacityBps} (a positive rate is required when gpusPerNode > 1)`,
        );
      }
      for (let gpu = 0; gpu < ranks; gpu++) {
        this.links.push({ id: this.nvlinkOut(gpu), capacityBps }, { id: this.nvlinkIn(gpu), capacityBps });
      }
    }
  }

  nodeOf(rank: number): number {
    return Math.floor(rank / this.gpusPerNode);
  }

  /** Appends the path from rank src to a different rank dst and returns its index. */
  intern(src: number, dst: number): number {
    const srcNode = this.nodeOf(src);
    const dstNode = this.nodeOf(dst);
    let path: readonly number[];
    let latencyNs: number;
    if (srcNode === dstNode) {
      path = [this.nvlinkOut(src), this.nvlinkIn(dst)];
      latencyNs = this.fabric.nvlinkLatencyNs ?? 0;
    } else {
      // Connection k of the workload (its k-th interned path) hashes as packet mode's connection k.
      path = this.fabric.path(
        srcNode,
        dstNode,
        connectionEcmpHash(this.latencies.length, this.fabric.hashSeed ?? 0),
      );
      const latency = this.fabric.networkLatencyNs ?? 0;
      latencyNs = typeof latency === 'number' ? latency : latency(path);
    }
    if (!(Number.isFinite(latencyNs) && latencyNs >= 0)) {
      throw new InputError(
        `latency ${latencyNs} ns from rank ${src} to rank ${dst} is not a finite number >= 0`,
      );
    }
    for (const id of path) this.linkIds.push(id);
    this.offsets.push(this.linkIds.length);
    this.latencies.push(latencyNs);
    return this.latencies.length - 1;
  }

  paths(): { pathOffsets: Int32Array; pathLinkIds: Int32Array; latencyNsByPath: Float64Array } {
    return {
      pathOffsets: Int32Array.from(this.offsets),
      pathLinkIds: Int32Array.from(this.linkIds),
      latencyNsByPath: Float64Array.from(this.latencies),
    };
  }

  private nvlinkOut(gpu: number): number {
    return this.nvlinkBase + 2 * gpu;
  }

  private nvlinkIn(gpu: number): number {
    return this.nvlinkBase + 2 * gpu + 1;
  }
}
