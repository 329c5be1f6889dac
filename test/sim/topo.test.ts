import { describe, expect, it } from 'vitest';
import { buildTopology, type Topology, type TopologySpec } from '../../src/sim/topo/index.js';

function checkRoutes(topology: Topology): void {
  for (let src = 0; src < topology.hostCount; src++) {
    for (let dst = 0; dst < topology.hostCount; dst++) {
      if (src === dst) continue;
      for (const hash of [0, 1, 12345, 987654321]) {
        const route = topology.route(src, dst, hash);
        expect(topology.links[route[0]!]!.from).toBe(src);
        expect(topology.links[route.at(-1)!]!.to).toBe(dst);
        for (let i = 1; i < route.length; i++)
          expect(topology.links[route[i]!]!.from).toBe(topology.links[route[i - 1]!]!.to);
      }
    }
  }
}

const base = { linkRateBps: 100e9, linkDelayNs: 1000 };
const specs: TopologySpec[] = [
  { kind: 'star', hosts: 5, ...base },
  { kind: 'leaf-spine', hosts: 10, hostsPerLeaf: 4, spines: 3, oversubscription: 2, ...base },
  { kind: 'rail', servers: 3, gpusPerServer: 4, spines: 2, ...base },
  { kind: 'fat-tree', k: 4, ...base },
];

describe('topologies', () => {
  for (const spec of specs) {
    it(`${spec.kind}: every route is a connected path from source to destination`, () =>
      checkRoutes(buildTopology(spec)));
  }

  it('links come in cable pairs (id ^ 1 is the reverse direction)', () => {
    for (const spec of specs) {
      const t = buildTopology(spec);
      for (const link of t.links) {
        const back = t.links[link.id ^ 1]!;
        expect([back.from, back.to]).toEqual([link.to, link.from]);
      }
    }
  });

  it('a k-ary fat tree has k^3/4 hosts and 5k^2/4 switches', () => {
    const t = buildTopology({ kind: 'fat-tree', k: 8, ...base });
    expect(t.hostCount).toBe(128);
    expect(t.nodes.filter((n) => n.kind === 'switch')).toHaveLength(80);
    expect(buildTopology({ kind: 'fat-tree', k: 12, ...base }).hostCount).toBe(432);
  });

  it('leaf uplinks carry hostsPerLeaf x rate / (spines x oversubscription)', () => {
    const t = buildTopology({
      kind: 'leaf-spine',
      hosts: 8,
      hostsPerLeaf: 4,
      spines: 2,
      oversubscription: 2,
      ...base,
    });
    const uplink = t.links.find(
      (l) => t.nodes[l.from]!.name === 'leaf0' && t.nodes[l.to]!.name === 'spine1',
    )!;
    expect(uplink.rateBps).toBe(100e9);
  });

  it('ECMP spreads flows over every spine', () => {
    const t = buildTopology({
      kind: 'leaf-spine',
      hosts: 8,
      hostsPerLeaf: 4,
      spines: 4,
      oversubscription: 1,
      ...base,
    });
    const used = new Set<number>();
    for (let hash = 0; hash < 64; hash++) used.add(t.links[t.route(0, 5, hash)[1]!]!.to);
    expect(used.size).toBe(4);
  });
});
