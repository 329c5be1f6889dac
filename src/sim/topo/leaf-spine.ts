/** Two-tier Clos: hosts on leaves, every leaf wired to every spine, ECMP over spines by flow hash. */
import { FabricBuilder, mixHash } from './builder.js';
import type { LeafSpineSpec, Topology } from './types.js';

export function buildLeafSpine(spec: LeafSpineSpec): Topology {
  const fabric = new FabricBuilder();
  const leafCount = Math.ceil(spec.hosts / spec.hostsPerLeaf);
  for (let h = 0; h < spec.hosts; h++) fabric.addNode('host', `h${h}`);
  const leaves: number[] = [];
  const spines: number[] = [];
  for (let l = 0; l < leafCount; l++) leaves.push(fabric.addNode('switch', `leaf${l}`));
  for (let s = 0; s < spec.spines; s++) spines.push(fabric.addNode('switch', `spine${s}`));
  const leafOf = (h: number): number => leaves[Math.floor(h / spec.hostsPerLeaf)]!;
  for (let h = 0; h < spec.hosts; h++) fabric.addCable(h, leafOf(h), spec.linkRateBps, spec.linkDelayNs);
  // Oversubscription is the leaf's downlink capacity over its uplink capacity.
  const uplinkRate = (spec.hostsPerLeaf * spec.linkRateBps) / (spec.spines * spec.oversubscription);
  for (const leaf of leaves)
    for (const spine of spines) fabric.addCable(leaf, spine, uplinkRate, spec.linkDelayNs);
  return {
    spec,
    hostCount: spec.hosts,
    nodes: fabric.nodes,
    links: fabric.links,
    route(src, dst, flowHash) {
      const a = leafOf(src);
      const b = leafOf(dst);
      if (a === b) return [fabric.link(src, a), fabric.link(a, dst)];
      const spine = spines[mixHash(flowHash, 1) % spines.length]!;
      return [fabric.link(src, a), fabric.link(a, spine), fabric.link(spine, b), fabric.link(b, dst)];
    },
  };
}
