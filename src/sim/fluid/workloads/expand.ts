/**
 * A compact workload written out as `FluidFlow[]`: for reading, for scenario files and for tests
 * that feed the same workload through both input forms. Meant for thousands of flows, not millions.
 */
import type { FluidFlow, FluidWorkload } from '../types.js';

export function workloadToFlows(workload: FluidWorkload): FluidFlow[] {
  const n = workload.flowCount;
  const dependsOn: number[][] = Array.from({ length: n }, () => []);
  const sentAfter: number[][] = Array.from({ length: n }, () => []);
  const out = new Int32Array(Math.max(1, workload.maxDependents));
  for (let flow = 0; flow < n; flow++) {
    const id = workload.flowIdOf(flow);
    const onArrival = workload.dependentsOf(flow, out);
    for (let k = 0; k < onArrival; k++) dependsOn[out[k]!]!.push(id);
    const onSent = workload.sentDependentsOf(flow, out);
    for (let k = 0; k < onSent; k++) sentAfter[out[k]!]!.push(id);
  }
  const flows: FluidFlow[] = [];
  for (let flow = 0; flow < n; flow++) {
    const path = workload.pathOf(flow);
    const links = workload.pathLinkIds.subarray(workload.pathOffsets[path], workload.pathOffsets[path + 1]);
    const entry: FluidFlow = {
      id: workload.flowIdOf(flow),
      path: Array.from(links),
      sizeBytes: workload.sizeBytesOf(flow),
    };
    const startTimeNs = workload.startTimeNsOf(flow);
    const latencyNs = workload.latencyNsOf(flow);
    if (startTimeNs > 0) entry.startTimeNs = startTimeNs;
    if (latencyNs > 0) entry.latencyNs = latencyNs;
    if (dependsOn[flow]!.length > 0) entry.dependsOn = dependsOn[flow]!;
    if (sentAfter[flow]!.length > 0) entry.sentAfter = sentAfter[flow]!;
    flows.push(entry);
  }
  return flows;
}
