/**
 * PFC deadlock detection: a wait-for graph over paused lossless egress queues. Egress queue L (from
 * switch A to node B) waits for queue L' when B holds lossless packets that came in over L and
 * are queued on L': B's ingress counter for L drains, and B resumes A, only as L' sends. A queue is
 * blocked while it is paused and its downstream still wants it paused (no resume frame on the way),
 * or while a storming NIC holds it; a blocked queue stays blocked for good if every packet holding
 * its downstream's ingress counter sits in blocked queues (the greatest such set is computed by
 * removing queues that can drain until none is left to remove). A cycle in what remains is a
 * deadlock: no packet of it can ever move (Hu et al., HotNets 2016, section 2: cyclic buffer
 * dependency with every buffer in the cycle paused).
 */

export interface DeadlockView {
  linkCount: number;
  linkTo: Int32Array;
  /** Lossless egress links of each node. */
  outLinks: readonly (readonly number[])[];
  isSwitch(node: number): boolean;
  /** Whether queue `link` is paused and nothing under way will resume it. */
  blocked(link: number): boolean;
  /** Lossless packets queued on `link`. */
  packets(link: number): readonly number[];
  /** The ingress link a packet is counted against at the switch that holds it. */
  ingressOf(packet: number): number;
}

/** Disjoint cycles of the wait-for graph, each as links in wait order (each waits on the next). */
export function findDeadlockCycles(view: DeadlockView): number[][] {
  const n = view.linkCount;
  const inSet = new Uint8Array(n);
  const candidates: number[] = [];
  for (let link = 0; link < n; link++) {
    if (view.blocked(link) && view.packets(link).length > 0) {
      inSet[link] = 1;
      candidates.push(link);
    }
  }
  if (candidates.length === 0) return [];
  // waitsOn[L] = queues at L's far end that hold packets counted against L.
  const waitsOn = new Map<number, Set<number>>();
  for (const link of candidates) {
    const node = view.linkTo[link]!;
    const targets = new Set<number>();
    if (view.isSwitch(node)) {
      for (const out of view.outLinks[node] ?? []) {
        for (const p of view.packets(out)) if (view.ingressOf(p) === link) targets.add(out);
      }
    }
    waitsOn.set(link, targets);
  }
  // A queue whose downstream holds packets of it in a queue that can move is not stuck.
  let changed = true;
  while (changed) {
    changed = false;
    for (const link of candidates) {
      if (inSet[link] === 0) continue;
      const node = view.linkTo[link]!;
      if (!view.isSwitch(node)) continue; // held by a host's pause: stuck while the host says so
      const targets = waitsOn.get(link)!;
      let stuck = targets.size > 0;
      for (const t of targets) if (inSet[t] === 0) stuck = false;
      if (!stuck) {
        inSet[link] = 0;
        changed = true;
      }
    }
  }
  // Cycles by depth-first search in link order (deterministic); each link used in one cycle at most.
  const cycles: number[][] = [];
  const used = new Uint8Array(n);
  for (const start of candidates) {
    if (inSet[start] === 0 || used[start] === 1) continue;
    const cycle = cycleFrom(start, (l) =>
      inSet[l] === 1 && used[l] === 0 ? [...(waitsOn.get(l) ?? [])].sort((a, b) => a - b) : [],
    );
    if (cycle) {
      for (const l of cycle) used[l] = 1;
      cycles.push(cycle);
    }
  }
  return cycles;
}

/** A cycle reachable from `start` (not necessarily through it), or null. */
function cycleFrom(start: number, next: (link: number) => number[]): number[] | null {
  const onPath = new Map<number, number>();
  const path: number[] = [];
  const done = new Set<number>();
  const stack: { link: number; edges: number[]; i: number }[] = [{ link: start, edges: next(start), i: 0 }];
  onPath.set(start, 0);
  path.push(start);
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { link: number; edges: number[]; i: number };
    if (top.i >= top.edges.length) {
      stack.pop();
      path.pop();
      onPath.delete(top.link);
      done.add(top.link);
      continue;
    }
    const to = top.edges[top.i++]!;
    const at = onPath.get(to);
    if (at !== undefined) return path.slice(at);
    if (done.has(to)) continue;
    onPath.set(to, path.length);
    path.push(to);
    stack.push({ link: to, edges: next(to), i: 0 });
  }
  return null;
}
