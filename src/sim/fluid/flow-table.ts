/**
 * `FluidFlow[]` (the readable input form) as a `FluidWorkload`, after checking every field and the
 * dependency graph, so errors name the flow (`flow 7: dependsOn 12 is not a flow id`) instead of
 * surfacing later as a stuck simulation.
 */
import { InputError } from '../../core/errors.js';
import type { FluidFlow, FluidWorkload } from './types.js';

/** Reverse edges in compressed rows: who waits on flow j. */
class Dependents {
  readonly offsets: Int32Array;
  readonly list: Int32Array;
  readonly max: number;

  constructor(waitsOn: readonly (readonly number[])[]) {
    const n = waitsOn.length;
    const counts = new Int32Array(n);
    for (const row of waitsOn) for (const j of row) counts[j]!++;
    this.offsets = new Int32Array(n + 1);
    let max = 0;
    for (let j = 0; j < n; j++) {
      this.offsets[j + 1] = this.offsets[j]! + counts[j]!;
      max = Math.max(max, counts[j]!);
    }
    this.max = max;
    this.list = new Int32Array(this.offsets[n]!);
    const fill = this.offsets.slice(0, n);
    waitsOn.forEach((row, i) => row.forEach((j) => (this.list[fill[j]!++] = i)));
  }

  copy(flow: number, out: Int32Array): number {
    const from = this.offsets[flow]!;
    const to = this.offsets[flow + 1]!;
    out.set(this.list.subarray(from, to));
    return to - from;
  }
}

export class FlowTableWorkload implements FluidWorkload {
  readonly flowCount: number;
  readonly pathOffsets: Int32Array;
  readonly pathLinkIds: Int32Array;
  readonly maxDependencies: number;
  readonly maxDependents: number;
  private readonly ids: Float64Array;
  private readonly sizes: Float64Array;
  private readonly latencies: Float64Array;
  private readonly starts: Float64Array;
  private readonly dependencyCounts: Int32Array;
  private readonly onArrival: Dependents;
  private readonly onSent: Dependents;

  constructor(flows: readonly FluidFlow[], linkIndex: ReadonlyMap<number, number>) {
    const n = flows.length;
    this.flowCount = n;
    this.ids = new Float64Array(n);
    this.sizes = new Float64Array(n);
    this.latencies = new Float64Array(n);
    this.starts = new Float64Array(n);
    this.dependencyCounts = new Int32Array(n);
    const indexOfId = new Map<number, number>();
    let pathLength = 0;
    flows.forEach((flow, i) => {
      if (!Number.isFinite(flow.id))
        throw new InputError(`flows[${i}].id: ${flow.id} is not a finite number`);
      if (indexOfId.has(flow.id)) throw new InputError(`flows[${i}].id: duplicate flow id ${flow.id}`);
      indexOfId.set(flow.id, i);
      pathLength += flow.path.length;
    });

    this.pathOffsets = new Int32Array(n + 1);
    this.pathLinkIds = new Int32Array(pathLength);
    let cursor = 0;
    const waitsOnArrival: number[][] = [];
    const waitsOnSent: number[][] = [];
    flows.forEach((flow, i) => {
      const name = `flow ${flow.id}`;
      this.ids[i] = flow.id;
      this.sizes[i] = nonNegative(flow.sizeBytes, `${name}: sizeBytes`);
      this.latencies[i] = nonNegative(flow.latencyNs ?? 0, `${name}: latencyNs`);
      this.starts[i] = nonNegative(flow.startTimeNs ?? 0, `${name}: startTimeNs`);
      if (flow.sizeBytes > 0 && flow.path.length === 0) {
        throw new InputError(
          `${name}: ${flow.sizeBytes} bytes on an empty path (expected at least one link)`,
        );
      }
      this.pathOffsets[i] = cursor;
      for (const linkId of flow.path) {
        if (!linkIndex.has(linkId)) throw new InputError(`${name}: path uses unknown link id ${linkId}`);
        this.pathLinkIds[cursor++] = linkId;
      }
      const resolve = (ids: readonly number[] | undefined, field: string): number[] =>
        (ids ?? []).map((id) => {
          const j = indexOfId.get(id);
          if (j === undefined) throw new InputError(`${name}: ${field} ${id} is not a flow id`);
          if (j === i) throw new InputError(`${name}: ${field} names the flow itself`);
          return j;
        });
      waitsOnArrival.push(resolve(flow.dependsOn, 'dependsOn'));
      waitsOnSent.push(resolve(flow.sentAfter, 'sentAfter'));
      this.dependencyCounts[i] = waitsOnArrival[i]!.length + waitsOnSent[i]!.length;
    });
    this.pathOffsets[n] = cursor;
    this.onArrival = new Dependents(waitsOnArrival);
    this.onSent = new Dependents(waitsOnSent);
    this.maxDependencies = largest(this.dependencyCounts);
    this.maxDependents = Math.max(this.onArrival.max, this.onSent.max);
    rejectCycles(flows, waitsOnArrival, waitsOnSent);
  }

  flowIdOf(flow: number): number {
    return this.ids[flow]!;
  }
  pathOf(flow: number): number {
    return flow;
  }
  sizeBytesOf(flow: number): number {
    return this.sizes[flow]!;
  }
  latencyNsOf(flow: number): number {
    return this.latencies[flow]!;
  }
  startTimeNsOf(flow: number): number {
    return this.starts[flow]!;
  }
  dependencyCountOf(flow: number): number {
    return this.dependencyCounts[flow]!;
  }
  dependentsOf(flow: number, out: Int32Array): number {
    return this.onArrival.copy(flow, out);
  }
  sentDependentsOf(flow: number, out: Int32Array): number {
    return this.onSent.copy(flow, out);
  }
}

function largest(values: Int32Array): number {
  let max = 0;
  for (const value of values) if (value > max) max = value;
  return max;
}

function nonNegative(value: number, what: string): number {
  if (!(Number.isFinite(value) && value >= 0))
    throw new InputError(`${what} ${value} is not a finite number >= 0`);
  return value;
}

/** Kahn's algorithm over both kinds of edge; on failure, walks the unresolved flows to print one cycle. */
function rejectCycles(flows: readonly FluidFlow[], ...waitsOnKinds: readonly (readonly number[])[][]): void {
  const n = flows.length;
  const waitsOn = flows.map((_, i) => waitsOnKinds.flatMap((kind) => kind[i]!));
  const left = Int32Array.from(waitsOn, (row) => row.length);
  const unblocks = new Dependents(waitsOn);
  const out = new Int32Array(Math.max(1, unblocks.max));
  const stack: number[] = [];
  left.forEach((count, i) => count === 0 && stack.push(i));
  let resolved = 0;
  while (stack.length > 0) {
    const count = unblocks.copy(stack.pop()!, out);
    resolved++;
    for (let k = 0; k < count; k++) if (--left[out[k]!]! === 0) stack.push(out[k]!);
  }
  if (resolved === n) return;

  // Every unresolved flow waits on an unresolved flow, so following those edges must loop.
  let flow = left.findIndex((count) => count > 0);
  const seenAt = new Map<number, number>();
  const walk: number[] = [];
  while (!seenAt.has(flow)) {
    seenAt.set(flow, walk.length);
    walk.push(flow);
    flow = waitsOn[flow]!.find((j) => left[j]! > 0)!;
  }
  const cycle = walk.slice(seenAt.get(flow)).map((i) => flows[i]!.id);
  cycle.push(flows[flow]!.id);
  throw new InputError(
    `dependsOn/sentAfter form a cycle: ${cycle.map((id) => `flow ${id}`).join(' waits on ')}`,
  );
}
