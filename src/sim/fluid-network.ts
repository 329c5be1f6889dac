/**
 * The scenario's network as the fluid engine sees it: link capacities are payload rates (line rate
 * less the headers of the transport the workloads use), a transfer's latency is its idle path's
 * (cable delays plus one packet's store-and-forward per switch), and the plan's connection k takes
 * the ECMP path packet mode's connection k takes (one hash, topo's connectionEcmpHash).
 */
import type { FluidLink } from './fluid/index.js';
import type { FluidRoute } from './fluid-plan-flows.js';
import { roceWireBytes, tcpWireBytes } from './net/wire.js';
import type { WorkloadPlan } from './plan/index.js';
import type { Scenario } from './scenario-schema.js';
import { connectionEcmpHash, type Topology } from './topo/index.js';

/** What the fluid engine sees of the scenario's network: payload capacities and idle latencies. */
export interface FluidNetwork {
  links: FluidLink[];
  latencyOf: (route: readonly number[]) => number;
  /** Path and latency of the plan's connection k (its ECMP hash is packet mode's). */
  routeOf: (connection: number) => FluidRoute;
}

export const FLUID_WARNING =
  'fluid mode: no packets, so no queues, drops, PFC or congestion control; capacities are payload rates';

export function fluidNetwork(scenario: Scenario, topology: Topology, plan: WorkloadPlan): FluidNetwork {
  const kinds = new Set(plan.workloads.map((w) => w.transport));
  // One payload fraction for the whole fabric: the transport the workloads use (the smaller if mixed).
  const fraction = Math.min(
    ...[...kinds].map((k) =>
      k === 'tcp'
        ? scenario.transport.tcp.mss / tcpWireBytes(scenario.transport.tcp.mss)
        : scenario.transport.roce.mtu / roceWireBytes(scenario.transport.roce.mtu),
    ),
  );
  const wire = Math.max(
    ...[...kinds].map((k) =>
      k === 'tcp' ? tcpWireBytes(scenario.transport.tcp.mss) : roceWireBytes(scenario.transport.roce.mtu),
    ),
  );
  const links = topology.links.map((l) => ({ id: l.id, capacityBps: l.rateBps * fraction }));
  const latencyOf = (route: readonly number[]): number => {
    let latencyNs = 0;
    route.forEach((id, i) => {
      const link = topology.links[id];
      if (!link) return;
      latencyNs += link.delayNs + (i > 0 ? (wire * 8 * 1e9) / link.rateBps : 0);
    });
    return latencyNs;
  };
  const routeOf = (connection: number): FluidRoute => {
    const c = plan.connections[connection];
    if (!c) throw new Error(`the plan has no connection ${connection}`);
    const path = topology.route(c.src, c.dst, connectionEcmpHash(connection, plan.seed));
    return { path, latencyNs: latencyOf(path) };
  };
  return { links, latencyOf, routeOf };
}
