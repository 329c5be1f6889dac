/** One switch with every host on it: the incast testbed of Chen et al. (WREN 2009). */
import { FabricBuilder } from './builder.js';
import type { StarSpec, Topology } from './types.js';

export function buildStar(spec: StarSpec): Topology {
  const fabric = new FabricBuilder();
  for (let h = 0; h < spec.hosts; h++) fabric.addNode('host', `h${h}`);
  const tor = fabric.addNode('switch', 'sw0');
  const uplinkRate = spec.uplinkRateBps ?? spec.linkRateBps;
  const htb = spec.ports === 'htb';
  const hops = new Set(spec.faultHops ?? []);
  // Each host's links towards sw0 and from it: one cable, or through its fault hop q{h}.
  const ups: number[][] = [];
  const downs: number[][] = [];
  for (let h = 0; h < spec.hosts; h++) {
    if (!hops.has(h)) {
      const cable = fabric.addCable(h, tor, uplinkRate, spec.linkDelayNs, spec.linkRateBps);
      if (htb) fabric.links[cable + 1]!.chargedAfter = true;
      ups.push([cable]);
      downs.push([cable + 1]);
      continue;
    }
    const hop = fabric.addNode('switch', `q${h}`);
    // The host's cable keeps the delay; the hop's veth pair inside the switch adds none.
    const cable = fabric.addCable(h, hop, uplinkRate, spec.linkDelayNs, spec.linkRateBps);
    const inner = fabric.addCable(hop, tor, spec.linkRateBps, 0, uplinkRate);
    if (htb) {
      fabric.links[cable + 1]!.chargedAfter = true;
      fabric.links[inner]!.chargedAfter = true;
    }
    ups.push([cable, inner]);
    downs.push([inner + 1, cable + 1]);
  }
  return {
    spec,
    hostCount: spec.hosts,
    nodes: fabric.nodes,
    links: fabric.links,
    route: (src, dst) => [...ups[src]!, ...downs[dst]!],
  };
}
