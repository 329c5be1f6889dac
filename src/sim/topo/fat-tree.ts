/**
 * k-ary fat tree (Al-Fares, Loukissas, Vahdat, SIGCOMM 2008): k pods of k/2 edge and k/2
 * aggregation switches, (k/2)^2 cores, k^3/4 hosts. The topology htsim's incast and permutation
 * benchmarks use (k=8: 128 hosts; k=12: 432 hosts). ECMP picks the aggregation and core by hash.
 */
import { FabricBuilder, mixHash } from './builder.js';
import type { FatTreeSpec, Topology } from './types.js';

export function buildFatTree(spec: FatTreeSpec): Topology {
  const k = spec.k;
  const half = k / 2;
  const fabric = new FabricBuilder();
  const hosts = (k * k * k) / 4;
  for (let h = 0; h < hosts; h++) fabric.addNode('host', `h${h}`);
  const edge: number[] = [];
  const agg: number[] = [];
  const core: number[] = [];
  for (let p = 0; p < k; p++)
    for (let e = 0; e < half; e++) edge.push(fabric.addNode('switch', `edge${p}.${e}`));
  for (let p = 0; p < k; p++)
    for (let a = 0; a < half; a++) agg.push(fabric.addNode('switch', `agg${p}.${a}`));
  for (let c = 0; c < half * half; c++) core.push(fabric.addNode('switch', `core${c}`));
  const rate = spec.linkRateBps;
  const delay = spec.linkDelayNs;
  const edgeOf = (h: number): number => edge[Math.floor(h / half)]!;
  for (let h = 0; h < hosts; h++) fabric.addCable(h, edgeOf(h), rate, delay);
  for (let p = 0; p < k; p++) {
    for (let e = 0; e < half; e++) {
      for (let a = 0; a < half; a++) fabric.addCable(edge[p * half + e]!, agg[p * half + a]!, rate, delay);
    }
    // Aggregation switch a of every pod connects to cores a*half .. a*half+half-1.
    for (let a = 0; a < half; a++) {
      for (let c = 0; c < half; c++) fabric.addCable(agg[p * half + a]!, core[a * half + c]!, rate, delay);
    }
  }
  const podOf = (h: number): number => Math.floor(h / (half * half));
  return {
    spec,
    hostCount: hosts,
    nodes: fabric.nodes,
    links: fabric.links,
    route(src, dst, flowHash) {
      const e1 = edgeOf(src);
      const e2 = edgeOf(dst);
      if (e1 === e2) return [fabric.link(src, e1), fabric.link(e1, dst)];
      const a = mixHash(flowHash, 3) % half;
      const p1 = podOf(src);
      const p2 = podOf(dst);
      const a1 = agg[p1 * half + a]!;
      if (p1 === p2)
        return [fabric.link(src, e1), fabric.link(e1, a1), fabric.link(a1, e2), fabric.link(e2, dst)];
      const c = core[a * half + (mixHash(flowHash, 4) % half)]!;
      const a2 = agg[p2 * half + a]!;
      return [
        fabric.link(src, e1),
        fabric.link(e1, a1),
        fabric.link(a1, c),
        fabric.link(c, a2),
        fabric.link(a2, e2),
        fabric.link(e2, dst),
      ];
    },
  };
}
