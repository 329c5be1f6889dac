/**
 * Max-min fair rates of a set of routes by progressive filling (Bertsekas and Gallager, Data
 * Networks, 6.5.2), in bits per second of line rate. Used to tell a PFC victim (slowed although
 * its own bottleneck is not congested) from a flow that merely shares a congested link.
 */
import type { Topology } from './topo/types.js';

/** A link with less than this fraction of its rate left is full (chosen: absorbs the rounding of the repeated subtractions). */
const SATURATED_FRACTION = 1e-6;

/** Line-rate share in bits per second of each route when all are active at once. */
export function maxMinFairShares(topology: Topology, routes: ArrayLike<number>[]): Float64Array {
  const n = routes.length;
  const rate = new Float64Array(n);
  const frozen = new Uint8Array(n);
  const capacity = new Float64Array(topology.links.length);
  const users = new Int32Array(topology.links.length);
  for (const link of topology.links) capacity[link.id] = link.rateBps;
  for (const route of routes) for (let i = 0; i < route.length; i++) users[route[i]!] = users[route[i]!]! + 1;
  let active = n;
  while (active > 0) {
    let step = Infinity;
    for (let l = 0; l < capacity.length; l++) {
      const u = users[l]!;
      if (u > 0) step = Math.min(step, capacity[l]! / u);
    }
    if (!Number.isFinite(step)) break;
    for (let f = 0; f < n; f++) if (frozen[f] === 0) rate[f] = rate[f]! + step;
    for (let l = 0; l < capacity.length; l++) capacity[l] = capacity[l]! - step * users[l]!;
    for (let f = 0; f < n; f++) {
      if (frozen[f] === 1) continue;
      const route = routes[f]!;
      let saturated = false;
      for (let i = 0; i < route.length; i++)
        if (capacity[route[i]!]! <= SATURATED_FRACTION * (topology.links[route[i]!]?.rateBps ?? 1))
          saturated = true;
      if (!saturated) continue;
      frozen[f] = 1;
      active--;
      for (let i = 0; i < route.length; i++) users[route[i]!] = users[route[i]!]! - 1;
    }
  }
  return rate;
}
