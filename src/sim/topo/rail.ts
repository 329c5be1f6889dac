/**
 * Rail-optimised fabric (NVIDIA DGX SuperPOD reference architecture): GPU g of each server sits on
 * rail switch g, so same-rail traffic crosses one switch; cross-rail traffic goes up to a spine
 * (in a real server it could also cross NVLink first, which this network-only model leaves out).
 */
import { FabricBuilder, mixHash } from './builder.js';
import type { RailSpec, Topology } from './types.js';

export function buildRail(spec: RailSpec): Topology {
  const fabric = new FabricBuilder();
  const hosts = spec.servers * spec.gpusPerServer;
  for (let s = 0; s < spec.servers; s++) {
    for (let g = 0; g < spec.gpusPerServer; g++) fabric.addNode('host', `s${s}g${g}`);
  }
  const rails: number[] = [];
  const spines: number[] = [];
  for (let g = 0; g < spec.gpusPerServer; g++) rails.push(fabric.addNode('switch', `rail${g}`));
  for (let s = 0; s < spec.spines; s++) spines.push(fabric.addNode('switch', `spine${s}`));
  const railOf = (h: number): number => rails[h % spec.gpusPerServer]!;
  for (let h = 0; h < hosts; h++) fabric.addCable(h, railOf(h), spec.linkRateBps, spec.linkDelayNs);
  // Non-blocking rail-to-spine capacity: each rail switch's downlinks are matched by its uplinks.
  const uplinkRate = (spec.servers * spec.linkRateBps) / Math.max(1, spec.spines);
  for (const rail of rails)
    for (const spine of spines) fabric.addCable(rail, spine, uplinkRate, spec.linkDelayNs);
  return {
    spec,
    hostCount: hosts,
    nodes: fabric.nodes,
    links: fabric.links,
    route(src, dst, flowHash) {
      const a = railOf(src);
      const b = railOf(dst);
      if (a === b) return [fabric.link(src, a), fabric.link(a, dst)];
      if (spines.length === 0)
        throw new Error(`rail topology without spines cannot route host ${src} to host ${dst}`);
      const spine = spines[mixHash(flowHash, 2) % spines.length]!;
      return [fabric.link(src, a), fabric.link(a, spine), fabric.link(spine, b), fabric.link(b, dst)];
    },
  };
}
