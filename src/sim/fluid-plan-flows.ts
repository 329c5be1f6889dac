/**
 * A workload plan as explicit fluid flows, with the dependency rules packet mode's workloads
 * follow (workload/):
 * - a connection streams its messages in order: each message waits for the previous one on the
 *   same connection to be sent (`sentAfter`), never sharing the connection's bandwidth with it;
 * - a ring chunk waits for its input, the previous step's chunk from the ring predecessor, to arrive;
 *   a rank's next iteration waits for the last chunk of this one into it, plus the compute phase;
 * - an alltoall rank's next iteration waits for every chunk of this one into that rank, plus compute;
 * - an incast round waits for every block of the previous round.
 * Compute phases use their mean (fluid mode has no randomness) and ride as extra latency on the
 * transfer that ends the iteration for the receiving rank, so its dependents start that much later.
 */
import type { FluidFlow } from './fluid/index.js';
import type { PlannedCollective, WorkloadPlan } from './plan/index.js';

/** A connection's path and idle latency. */
export interface FluidRoute {
  path: number[];
  latencyNs: number;
}

/** The flows of one planned workload: flows[first, last). */
export interface FluidSpan {
  name: string;
  kind: string;
  first: number;
  last: number;
}

export function planToFluidFlows(
  plan: WorkloadPlan,
  routeOf: (connection: number) => FluidRoute,
): { flows: FluidFlow[]; spans: FluidSpan[] } {
  const flows: FluidFlow[] = [];
  const add = (
    route: FluidRoute,
    sizeBytes: number,
    startTimeNs: number,
    dependsOn: number[],
    sentAfter: number[] = [],
    extraNs = 0,
  ): number => {
    const id = flows.length;
    const flow: FluidFlow = {
      id,
      path: route.path,
      sizeBytes,
      startTimeNs,
      dependsOn,
      latencyNs: route.latencyNs + extraNs,
    };
    if (sentAfter.length > 0) flow.sentAfter = sentAfter;
    flows.push(flow);
    return id;
  };
  const spans = plan.workloads.map((w): FluidSpan => {
    const first = flows.length;
    const startNs = w.startS * 1e9;
    const routes = w.connections.map((_, k) => routeOf(w.firstConnection + k));
    switch (w.kind) {
      case 'flow':
      case 'permutation':
        w.flows.forEach((f, k) => add(routes[k]!, f.sizeBytes, startNs, []));
        break;
      case 'incast': {
        let previous: number[] = [];
        for (let r = 0; r < w.rounds; r++)
          previous = routes.map((route) => add(route, w.blockBytes, startNs, previous));
        break;
      }
      case 'alltoall':
        addAllToAll(w, routes, startNs, add);
        break;
      default:
        addRing(w, routes, startNs, add);
    }
    return { name: w.name, kind: w.kind, first, last: flows.length };
  });
  return { flows, spans };
}

type Add = (
  route: FluidRoute,
  sizeBytes: number,
  startTimeNs: number,
  dependsOn: number[],
  sentAfter?: number[],
  extraNs?: number,
) => number;

/** Ring: flow (iteration, step s, rank r) on connection r waits for (s-1, r-1) to arrive and (s-1, r) to be sent. */
function addRing(w: PlannedCollective, routes: FluidRoute[], startNs: number, add: Add): void {
  const n = w.ranks.length;
  const computeNs = w.computeMeanS * 1e9;
  // last[r]: rank r's previous flow (its connection's last message so far), -1 before the first.
  let last = new Array<number>(n).fill(-1);
  for (let it = 0; it < w.iterations; it++) {
    for (let s = 0; s < w.steps; s++) {
      const next: number[] = [];
      for (let r = 0; r < n; r++) {
        const into = last[(r - 1 + n) % n]!;
        const own = last[r]!;
        // The last step into each rank carries the next iteration's compute phase.
        const extra = s === w.steps - 1 && it + 1 < w.iterations ? computeNs : 0;
        const start = it === 0 && s === 0 ? startNs + computeNs : startNs;
        next.push(add(routes[r]!, w.chunkBytes, start, into < 0 ? [] : [into], own < 0 ? [] : [own], extra));
      }
      last = next;
    }
  }
}

/**
 * Alltoall: flow (iteration, r -> d) waits for every flow of the previous iteration into r to
 * arrive (rank r has finished it and computed) and for (previous iteration, r -> d) to be sent.
 */
function addAllToAll(w: PlannedCollective, routes: FluidRoute[], startNs: number, add: Add): void {
  const n = w.ranks.length;
  const computeNs = w.computeMeanS * 1e9;
  // Connection (r, d), d != r, is index r(n-1) + (d < r ? d : d-1), in the plan's order.
  const conn = (r: number, d: number): number => r * (n - 1) + (d < r ? d : d - 1);
  let previous: number[] = [];
  for (let it = 0; it < w.iterations; it++) {
    const extra = it + 1 < w.iterations ? computeNs : 0;
    const start = it === 0 ? startNs + computeNs : startNs;
    const current: number[] = [];
    for (let r = 0; r < n; r++) {
      const into: number[] = [];
      if (previous.length > 0) for (let s = 0; s < n; s++) if (s !== r) into.push(previous[conn(s, r)]!);
      for (let d = 0; d < n; d++) {
        if (d === r) continue;
        const k = conn(r, d);
        current.push(
          add(routes[k]!, w.chunkBytes, start, into, previous.length > 0 ? [previous[k]!] : [], extra),
        );
      }
    }
    previous = current;
  }
}
