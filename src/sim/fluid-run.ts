/**
 * Fluid mode for a scenario: the same topology and workloads as packet mode, expressed as flows
 * with dependencies for the flow-level engine (src/sim/fluid, max-min fair sharing). Capacities
 * are payload rates (line rate less the transport's headers) and each transfer carries the idle
 * path's latency (cable delays plus one packet's store-and-forward per switch), so both modes
 * describe the same network. No queues, losses, PFC or congestion control: those need packets.
 * Compute phases use their mean (fluid mode has no randomness).
 */
import type { Series } from '../core/envelope.js';
import { buildRingAllGather, buildRingAllReduce, simulateFluid, type FluidFlow } from './fluid/index.js';
import { roceWireBytes, tcpWireBytes } from './net/wire.js';
import { buildWorkloads } from './packet-run.js';
import type { FlowsWorkload } from './workload/flows.js';
import type { Scenario } from './scenario-schema.js';
import type { Topology } from './topo/types.js';
import { fluidRingFastPath } from './work-estimate.js';

export interface FluidRun {
  metrics: Record<string, unknown>;
  series: Series[];
  warnings: string[];
}

export function runFluidScenario(scenario: Scenario, topology: Topology, seed: number): FluidRun {
  const kinds = new Set(scenario.workloads.map((w) => w.transport ?? scenario.transport.kind));
  // One payload fraction for the whole fabric: the transport the workloads use (the smaller if mixed).
  const fraction = Math.min(
    ...[...kinds].map((k) => (k === 'tcp' ? scenario.transport.tcp.mss / tcpWireBytes(scenario.transport.tcp.mss) : scenario.transport.roce.mtu / roceWireBytes(scenario.transport.roce.mtu))),
  );
  const wire = Math.max(...[...kinds].map((k) => (k === 'tcp' ? tcpWireBytes(scenario.transport.tcp.mss) : roceWireBytes(scenario.transport.roce.mtu))));
  const links = topology.links.map((l) => ({ id: l.id, capacityBps: l.rateBps * fraction }));
  const flows: FluidFlow[] = [];
  let connections = 0;
  const latencyOf = (route: readonly number[]): number => {
    let latencyNs = 0;
    route.forEach((id, i) => {
      const link = topology.links[id];
      if (!link) return;
      latencyNs += link.delayNs + (i > 0 ? (wire * 8 * 1e9) / link.rateBps : 0);
    });
    return latencyNs;
  };
  const path = (src: number, dst: number): { path: number[]; latencyNs: number } => {
    const hash = (Math.imul(++connections, 0x9e3779b1) ^ seed) >>> 0;
    const route = topology.route(src, dst, hash);
    return { path: route, latencyNs: latencyOf(route) };
  };
  const add = (route: { path: number[]; latencyNs: number }, sizeBytes: number, startTimeNs: number, dependsOn: number[], extraNs = 0): number => {
    const id = flows.length;
    flows.push({ id, path: route.path, sizeBytes, startTimeNs, dependsOn, latencyNs: route.latencyNs + extraNs });
    return id;
  };
  const ring = largeRingFastPath(scenario, topology, links, latencyOf, seed);
  if (ring) return ring;
  const spans: { name: string; kind: string; first: number; last: number }[] = [];
  const workloads = buildWorkloads(scenario, topology.hostCount, seed);
  scenario.workloads.forEach((w, wi) => {
    const first = flows.length;
    const startNs = w.start * 1e9;
    if (w.kind === 'flow') {
      add(path(w.src, w.dst), w.size, startNs, []);
    } else if (w.kind === 'permutation') {
      // The same seeded derangement packet mode draws.
      const specs = (workloads[wi] as FlowsWorkload).specs;
      for (const spec of specs) add(path(spec.src, spec.dst), w.size, startNs, []);
    } else if (w.kind === 'incast') {
      const senders = typeof w.senders === 'number' ? Array.from({ length: w.senders }, (_, j) => (w.receiver + 1 + j) % topology.hostCount) : w.senders;
      const routes = senders.map((s) => path(s, w.receiver));
      let previous: number[] = [];
      for (let r = 0; r < w.rounds; r++) previous = routes.map((route) => add(route, w.blockSize, startNs, previous));
    } else {
      const ranks = w.ranks === undefined ? Array.from({ length: topology.hostCount }, (_, j) => j) : typeof w.ranks === 'number' ? Array.from({ length: w.ranks }, (_, j) => j) : w.ranks;
      const n = ranks.length;
      const chunk = Math.max(1, Math.ceil(w.size / n));
      const computeNs = (w.compute?.mean ?? 0) * 1e9;
      if (w.kind === 'alltoall') {
        const routes = ranks.map((src, r) => ranks.map((dst, d) => (d === r ? null : path(src, dst))));
        let previous: number[] = [];
        for (let it = 0; it < w.iterations; it++) {
          const current: number[] = [];
          routes.forEach((row) => row.forEach((route) => route && current.push(add(route, chunk, startNs + computeNs, previous, computeNs))));
          previous = current;
        }
      } else {
        const steps = w.kind === 'allreduce' ? 2 * (n - 1) : n - 1;
        const routes = ranks.map((src, r) => path(src, ranks[(r + 1) % n] as number));
        // received[r]: the flow that last delivered into rank r (its predecessor's last send).
        let received: number[] = [];
        for (let it = 0; it < w.iterations; it++) {
          const sent: number[] = [];
          for (let s = 0; s < steps; s++) {
            const next: number[] = [];
            for (let r = 0; r < n; r++) {
              const into = s === 0 ? received[r] : sent[(r - 1 + n) % n];
              const deps = into === undefined ? [] : [into];
              // The last step into each rank carries the next iteration's compute phase.
              const extra = s === steps - 1 && it + 1 < w.iterations ? computeNs : 0;
              const start = it === 0 && s === 0 ? startNs + computeNs : startNs;
              next.push(add(routes[r] as { path: number[]; latencyNs: number }, chunk, start, deps, extra));
            }
            sent.splice(0, n, ...next);
          }
          received = ranks.map((_, r) => sent[(r - 1 + n) % n] as number);
        }
      }
    }
    spans.push({ name: w.name ?? `${w.kind}#${wi}`, kind: w.kind, first, last: flows.length });
  });
  const result = simulateFluid({ links, flows });
  const totalBytes = flows.reduce((sum, f) => sum + f.sizeBytes, 0);
  // A loop, not Math.min(...flows): spreading a million flows overflows the call stack.
  let startNs = flows.length > 0 ? Infinity : 0;
  for (const f of flows) startNs = Math.min(startNs, f.startTimeNs ?? 0);
  const elapsedNs = result.completionTimeNs - startNs;
  const perWorkload = spans.map((span) => {
    let begin = Infinity;
    let end = 0;
    let bytes = 0;
    for (let i = span.first; i < span.last; i++) {
      const timing = result.flows[i];
      if (!timing) continue;
      begin = Math.min(begin, timing.startNs);
      end = Math.max(end, timing.finishNs);
      bytes += flows[i]?.sizeBytes ?? 0;
    }
    const us = (end - begin) / 1e3;
    return { name: span.name, kind: span.kind, flows: span.last - span.first, completionTimeUs: us, goodputGbps: us > 0 ? (bytes * 8) / (us * 1e3) : 0 };
  });
  return {
    metrics: {
      status: 'done',
      completed: true,
      goodputGbps: elapsedNs > 0 ? (totalBytes * 8) / elapsedNs : 0,
      drops: 0,
      completionTimeUs: elapsedNs / 1e3,
      events: result.events,
      bytesOfferedByApp: totalBytes,
      bytesDelivered: totalBytes,
      flowCount: result.flowCount,
      rateRecomputations: result.rateRecomputations,
      maxConcurrentFlows: result.maxConcurrentFlows,
      workloads: perWorkload,
    },
    series: [],
    warnings: ['fluid mode: no packets, so no queues, drops, PFC or congestion control; capacities are payload rates'],
  };
}


/**
 * One ring all_reduce or all_gather over hosts 0..N-1, once, without compute: the fluid engine's
 * arithmetic ring workload (no per-chunk objects), so 4,096 ranks (33.5 million chunk transfers
 * for an all_reduce) fit in memory. ECMP picks use the fluid engine's connection hash.
 * Used only from FLUID_FAST_PATH_MIN_TRANSFERS chunk transfers (work-estimate.ts).
 */
function largeRingFastPath(
  scenario: Scenario,
  topology: Topology,
  links: { id: number; capacityBps: number }[],
  latencyOf: (route: readonly number[]) => number,
  seed: number,
): FluidRun | undefined {
  const w = scenario.workloads[0];
  // Below FLUID_FAST_PATH_MIN_TRANSFERS the explicit flows are cheap enough. The engine's ring keeps
  // packet mode's dependencies: a chunk waits for the previous step's chunk from its ring neighbour
  // to arrive and for its own connection's previous chunk to be sent, so each connection streams back to back.
  if (!w || (w.kind !== 'allreduce' && w.kind !== 'allgather') || Array.isArray(w.ranks) || !fluidRingFastPath(scenario, topology.hostCount)) return undefined;
  const ranks = w.ranks ?? topology.hostCount;
  const fabric = {
    links,
    path: (src: number, dst: number, hash: number) => topology.route(src, dst, hash),
    hostCount: topology.hostCount,
    networkLatencyNs: latencyOf,
    hashSeed: seed,
  };
  const build = w.kind === 'allreduce' ? buildRingAllReduce : buildRingAllGather;
  const built = build(fabric, { ranks, sizeBytes: w.size });
  const result = simulateFluid(built, { recordFlows: false });
  const us = result.completionTimeNs / 1e3;
  const bytes = result.totalBytes;
  const goodputGbps = us > 0 ? (bytes * 8) / (us * 1e3) : 0;
  return {
    metrics: {
      status: 'done',
      completed: true,
      goodputGbps,
      drops: 0,
      completionTimeUs: us,
      events: result.events,
      bytesOfferedByApp: bytes,
      bytesDelivered: bytes,
      flowCount: result.flowCount,
      rateRecomputations: result.rateRecomputations,
      maxConcurrentFlows: result.maxConcurrentFlows,
      workloads: [{ name: w.name ?? `${w.kind}#0`, kind: w.kind, flows: result.flowCount, completionTimeUs: us, goodputGbps }],
    },
    series: [],
    warnings: ['fluid mode: no packets, so no queues, drops, PFC or congestion control; capacities are payload rates'],
  };
}
