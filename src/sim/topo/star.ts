/** One switch with every host on it: the incast testbed of Chen et al. (WREN 2009). */
import { FabricBuilder } from './builder.js';
import type { StarSpec, Topology } from './types.js';

export function buildStar(spec: StarSpec): Topology {
  const fabric = new FabricBuilder();
  for (let h = 0; h < spec.hosts; h++) fabric.addNode('host', `h${h}`);
  const tor = fabric.addNode('switch', 'sw0');
  for (let h = 0; h < spec.hosts; h++) {
    const cable = fabric.addCable(
      h,
      tor,
      spec.uplinkRateBps ?? spec.linkRateBps,
      spec.linkDelayNs,
      spec.linkRateBps,
    );
    if (spec.ports === 'htb') fabric.links[cable + 1]!.chargedAfter = true;
  }
  const up = (h: number): number => 2 * h;
  const down = (h: number): number => 2 * h + 1;
  return {
    spec,
    hostCount: spec.hosts,
    nodes: fabric.nodes,
    links: fabric.links,
    route: (src, dst) => [up(src), down(dst)],
  };
}
