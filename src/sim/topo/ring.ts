/**
 * A ring of switches with hosts on each: the smallest fabric with a cyclic buffer dependency, the
 * shape of the deadlock examples of Hu et al., "Deadlocks in Datacenter Networks: Why Do They Form,
 * and How to Avoid Them" (HotNets 2016). Host index = switch x hostsPerSwitch + port. Cable i joins
 * switch i and switch i+1 (mod N); `failedCables` names cables that are down.
 *
 * Routing between switches:
 *  - clockwise: always i -> i+1 -> ...; a failed cable on the way leaves no route.
 *  - shortest: breadth-first over the surviving cables, ties going clockwise.
 *  - up-down: Autonet's up*\/down* rule (Schroeder et al., IEEE JSAC 9(8), 1991): links are
 *    oriented by breadth-first level from switch 0 on the intact ring (lower level, or the same
 *    level and a lower index, is "up"), and a route may never go up after going down, which breaks
 *    every cycle of buffer dependencies. The orientation is the design's, fixed before any failure
 *    (as the tiers of a Clos are), so a failure may leave a pair with no legal route.
 */
import { FabricBuilder } from './builder.js';
import type { RingSpec, Topology } from './types.js';

/** Switch-level path (switch indices, ends included) from a to b, or null if the routing has none. */
export type RingPaths = (a: number, b: number) => number[] | null;

export function ringPaths(spec: Pick<RingSpec, 'switches' | 'routing' | 'failedCables'>): RingPaths {
  const n = spec.switches;
  const failed = new Set<number>();
  for (const [x, y] of spec.failedCables) failed.add(cableIndex(n, x, y));
  const alive = (x: number, y: number): boolean => !failed.has(cableIndex(n, x, y));
  const cw = (x: number): number => (x + 1) % n;
  const ccw = (x: number): number => (x + n - 1) % n;
  const neighbours = (x: number): number[] =>
    (n === 2 ? [cw(x)] : [cw(x), ccw(x)]).filter((y) => y !== x && alive(x, y));
  // Levels on the intact ring: distance from switch 0.
  const level = (x: number): number => Math.min(x, n - x);
  const isUp = (x: number, y: number): boolean => level(y) < level(x) || (level(y) === level(x) && y < x);
  const cache = new Map<number, number[] | null>();
  const search = (a: number, b: number): number[] | null => {
    if (a === b) return [a];
    if (spec.routing === 'clockwise') {
      const path = [a];
      for (let x = a; x !== b; x = cw(x)) {
        if (!alive(x, cw(x))) return null;
        path.push(cw(x));
      }
      return path;
    }
    // Breadth-first over (switch, gone down yet); 'shortest' never sets the second part.
    const upDown = spec.routing === 'up-down';
    const key = (x: number, down: boolean): number => 2 * x + (down ? 1 : 0);
    const parent = new Map<number, number>([[key(a, false), -1]]);
    let frontier = [key(a, false)];
    while (frontier.length > 0) {
      const next: number[] = [];
      for (const state of frontier) {
        const x = state >> 1;
        const down = (state & 1) === 1;
        for (const y of neighbours(x)) {
          const up = isUp(x, y);
          if (upDown && down && up) continue;
          const s = key(y, upDown && (down || !up));
          if (parent.has(s)) continue;
          parent.set(s, state);
          if (y === b) {
            const path: number[] = [];
            for (let at = s; at >= 0; at = parent.get(at)!) path.push(at >> 1);
            return path.reverse();
          }
          next.push(s);
        }
      }
      frontier = next;
    }
    return null;
  };
  return (a, b) => {
    const k = a * n + b;
    if (!cache.has(k)) cache.set(k, search(a, b));
    return cache.get(k) ?? null;
  };
}

function cableIndex(n: number, x: number, y: number): number {
  // Cable i joins i and i+1 (mod n).
  return (x + 1) % n === y ? x : y;
}

export function buildRing(spec: RingSpec): Topology {
  const fabric = new FabricBuilder();
  const n = spec.switches;
  const m = spec.hostsPerSwitch;
  const hosts = n * m;
  for (let h = 0; h < hosts; h++) fabric.addNode('host', `h${h}`);
  const switches: number[] = [];
  for (let s = 0; s < n; s++) switches.push(fabric.addNode('switch', `s${s}`));
  for (let h = 0; h < hosts; h++)
    fabric.addCable(h, switches[Math.floor(h / m)]!, spec.linkRateBps, spec.linkDelayNs);
  const failed = new Set(spec.failedCables.map(([x, y]) => cableIndex(n, x, y)));
  const cables = n === 2 ? 1 : n;
  for (let i = 0; i < cables; i++) {
    if (!failed.has(i))
      fabric.addCable(switches[i]!, switches[(i + 1) % n]!, spec.linkRateBps, spec.linkDelayNs);
  }
  const paths = ringPaths(spec);
  return {
    spec,
    hostCount: hosts,
    nodes: fabric.nodes,
    links: fabric.links,
    route(src, dst) {
      const a = Math.floor(src / m);
      const b = Math.floor(dst / m);
      const path = paths(a, b);
      if (!path) throw new Error(`no ${spec.routing} route from s${a} to s${b}`);
      const route = [fabric.link(src, switches[a]!)];
      for (let i = 1; i < path.length; i++)
        route.push(fabric.link(switches[path[i - 1]!]!, switches[path[i]!]!));
      route.push(fabric.link(switches[b]!, dst));
      return route;
    },
  };
}
