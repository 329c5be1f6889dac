/**
 * The flows in flight and their max-min fair rates.
 *
 * Rates follow progressive filling (Bertsekas & Gallager, Data Networks, 2nd ed., section 6.5.2):
 * raise every unfrozen flow's rate together; when a link fills, freeze the flows crossing it at
 * that link's fair share (remaining capacity / unfrozen flows); repeat. Equivalently, repeatedly
 * take the link with the smallest fair share, which is what the share heap does.
 *
 * Why incremental: the max-min allocation splits over connected components of the flow-link graph
 * (flows are linked when they share a link), so when flows start or end only the components of
 * the links they touched are refilled. A ring collective on a leaf-spine is mostly one-flow
 * components (a host uplink carries one ring hop), so a batch costs what it changes, not what is
 * in flight. Flows whose rate comes out unchanged keep their scheduled finish untouched.
 *
 * Storage: a flow in flight occupies a slot; slots are reused, so memory follows the flows in
 * flight, not the workload. A slot's fields sit together, in a record of ints (16 ints, one cache
 * line, for paths up to 8 links) and a record of 4 floats, because every event touches most of
 * them; one array per field ran 14% more instructions under cachegrind. The int record also
 * holds, at LINK_POS + k, the flow's position in the list of its k-th link; the index of that
 * entry is the flow's "incidence" on the link, which is what the link's list stores, so
 * slot = incidence >> intShift.
 */
import { LinkFlowLists } from './link-flow-lists.js';
import { LinkShareHeap } from './link-heap.js';

const INITIAL_SLOTS = 1024;
/** Int records of at least 2^4 = 16 ints, one 64-byte cache line (see Storage above). */
const MIN_INT_SHIFT = 4;

// Int record fields.
const FLOW = 0;
const PATH = 1;
const VERSION = 2;
const STAMP = 3;
const FROZEN = 4;
const CHANGED = 5;
const LINK_POS = 8;
// Float record fields.
const RATE = 0;
const REMAINING = 1;
const UPDATED_NS = 2;
const FLOAT_SHIFT = 2;

export class FairShareNetwork {
  /** Capacity in bytes per nanosecond. */
  private readonly capacity: Float64Array;
  private readonly lists: LinkFlowLists;
  /** Narrowest capacity along each path: the rate of a flow alone on its links. */
  private readonly pathBottleneck: Float64Array;
  private readonly pathOffsets: Int32Array;
  private readonly pathLinks: Int32Array;
  /** log2 of the int record size. */
  private readonly intShift: number;
  private ints: Int32Array<ArrayBuffer>;
  private floats = new Float64Array(INITIAL_SLOTS << FLOAT_SHIFT);
  private slotCapacity = INITIAL_SLOTS;
  private freeSlots: number[] = [];
  private slotsUsed = 0;
  activeCount = 0;

  /** Slots whose rate changed since the last `clearChanged`, each once. */
  changed = new Int32Array(INITIAL_SLOTS);
  changedCount = 0;
  private changeRound = 1;
  componentsFilled = 0;

  /** Flows added since the last recompute, and links that lost a flow but still carry others. */
  private added = new Int32Array(INITIAL_SLOTS);
  private addedCount = 0;
  private readonly dirty: Int32Array;
  private dirtyCount = 0;
  private readonly dirtyFlag: Uint8Array;
  private readonly linkStamp: Int32Array;
  private readonly linkRemaining: Float64Array;
  private readonly linkUnfrozen: Int32Array;
  private readonly compLinks: Int32Array;
  private readonly heap = new LinkShareHeap();
  private stamp = 0;
  private freezeStamp = 0;

  constructor(capacityBytesPerNs: Float64Array, pathOffsets: Int32Array, pathLinks: Int32Array) {
    const linkCount = capacityBytesPerNs.length;
    this.capacity = capacityBytesPerNs;
    this.pathOffsets = pathOffsets;
    this.pathLinks = pathLinks;
    let maxPathLength = 1;
    for (let p = 0; p + 1 < pathOffsets.length; p++) {
      maxPathLength = Math.max(maxPathLength, pathOffsets[p + 1]! - pathOffsets[p]!);
    }
    this.intShift = Math.max(MIN_INT_SHIFT, Math.ceil(Math.log2(LINK_POS + maxPathLength)));
    this.ints = new Int32Array(INITIAL_SLOTS << this.intShift);
    this.lists = new LinkFlowLists(linkCount);
    this.pathBottleneck = new Float64Array(Math.max(0, pathOffsets.length - 1));
    for (let p = 0; p < this.pathBottleneck.length; p++) {
      let narrowest = Infinity;
      for (let q = pathOffsets[p]!; q < pathOffsets[p + 1]!; q++)
        narrowest = Math.min(narrowest, capacityBytesPerNs[pathLinks[q]!]!);
      this.pathBottleneck[p] = narrowest;
    }
    this.dirty = new Int32Array(linkCount);
    this.dirtyFlag = new Uint8Array(linkCount);
    this.linkStamp = new Int32Array(linkCount);
    this.linkRemaining = new Float64Array(linkCount);
    this.linkUnfrozen = new Int32Array(linkCount);
    this.compLinks = new Int32Array(linkCount);
  }

  get needsRecompute(): boolean {
    return this.dirtyCount > 0 || this.addedCount > 0;
  }

  flowOf(slot: number): number {
    return this.ints[(slot << this.intShift) + FLOW]!;
  }

  /** Changes whenever the slot's rate changes or it is freed: stamps its finish events. */
  versionOf(slot: number): number {
    return this.ints[(slot << this.intShift) + VERSION]!;
  }

  rateOf(slot: number): number {
    return this.floats[(slot << FLOAT_SHIFT) + RATE]!;
  }

  remainingBytesOf(slot: number): number {
    return this.floats[(slot << FLOAT_SHIFT) + REMAINING]!;
  }

  /** When the flow's last byte leaves at its current rate. */
  finishNsOf(slot: number): number {
    const at = slot << FLOAT_SHIFT;
    return this.floats[at + UPDATED_NS]! + this.floats[at + REMAINING]! / this.floats[at + RATE]!;
  }

  /**
   * Puts a flow on its path. A flow alone on every link gets its path's bottleneck rate at once
   * (the common case in a collective); otherwise it waits at rate 0 for `recompute`. If another
   * flow joins one of its links later in the same batch, that flow is not alone, and refilling its
   * component covers this one too, so the eager rate never outlives the batch when it is wrong.
   */
  addFlow(flow: number, path: number, sizeBytes: number, nowNs: number): number {
    const slot = this.allocSlot();
    const ints = this.ints;
    const base = slot << this.intShift;
    ints[base + FLOW] = flow;
    ints[base + PATH] = path;
    const at = slot << FLOAT_SHIFT;
    this.floats[at + RATE] = 0;
    this.floats[at + REMAINING] = sizeBytes;
    this.floats[at + UPDATED_NS] = nowNs;
    const from = this.pathOffsets[path]!;
    const to = this.pathOffsets[path + 1]!;
    let alone = true;
    for (let k = 0; k < to - from; k++) {
      const incidence = base + LINK_POS + k;
      const pos = this.lists.add(this.pathLinks[from + k]!, incidence);
      ints[incidence] = pos;
      if (pos !== 0) alone = false;
    }
    if (alone) {
      this.componentsFilled++;
      this.setRate(slot, this.pathBottleneck[path]!, nowNs);
    } else {
      // The slot, not its links, is queued for refilling: one entry instead of one per hop.
      this.added[this.addedCount++] = slot;
    }
    this.activeCount++;
    return slot;
  }

  /** Takes a flow off its links and frees its slot; its pending finish events become stale. */
  removeFlow(slot: number): void {
    const ints = this.ints;
    const base = slot << this.intShift;
    const path = ints[base + PATH]!;
    const from = this.pathOffsets[path]!;
    const to = this.pathOffsets[path + 1]!;
    for (let k = 0; k < to - from; k++) {
      const link = this.pathLinks[from + k]!;
      const pos = ints[base + LINK_POS + k]!;
      const moved = this.lists.removeAt(link, pos);
      if (moved >= 0) ints[moved] = pos;
      if (this.lists.count[link]! > 0) this.markDirty(link);
    }
    ints[base + VERSION] = (ints[base + VERSION]! + 1) & 0x3fffffff;
    this.floats[(slot << FLOAT_SHIFT) + RATE] = 0;
    this.freeSlots.push(slot);
    this.activeCount--;
  }

  /** Forgets the `changed` list once the engine has rescheduled those flows. */
  clearChanged(): void {
    this.changedCount = 0;
    this.changeRound = (this.changeRound + 1) & 0x3fffffff;
  }

  /** Refills every component that holds a link changed since the last call; adds to `changed`. */
  recompute(nowNs: number): void {
    const stamp = ++this.stamp;
    const count = this.lists.count;
    for (let i = 0; i < this.dirtyCount; i++) {
      const link = this.dirty[i]!;
      this.dirtyFlag[link] = 0;
      if (this.linkStamp[link] !== stamp && count[link]! > 0) this.fillComponent(link, stamp, nowNs);
    }
    this.dirtyCount = 0;
    for (let i = 0; i < this.addedCount; i++) {
      const slot = this.added[i]!;
      const base = slot << this.intShift;
      if (this.ints[base + STAMP] === stamp) continue;
      const path = this.ints[base + PATH]!;
      const from = this.pathOffsets[path]!;
      const to = this.pathOffsets[path + 1]!;
      let alone = true;
      for (let q = from; q < to; q++) if (count[this.pathLinks[q]!] !== 1) alone = false;
      if (alone) {
        // Its companions left within the batch: a flow alone on all its links gets the narrowest.
        this.ints[base + STAMP] = stamp;
        this.componentsFilled++;
        this.setRate(slot, this.pathBottleneck[path]!, nowNs);
      } else {
        this.fillComponent(this.pathLinks[from]!, stamp, nowNs);
      }
    }
    this.addedCount = 0;
  }

  private fillComponent(seed: number, stamp: number, nowNs: number): void {
    // Breadth-first over shared links and the flows on them: the component to refill. A link that
    // carries one flow (a host port, a NIC's PCIe link in a ring) only caps that flow, so it gets no
    // entry of its own: each flow pushes one entry, its narrowest such link (ties to the lower
    // index). Those links' own entries would pop in exactly that order and all but the first would
    // be stale, so the filling, and every float in it, is the same; a ring's components then hold
    // a third of the entries.
    const { pool, start, count } = this.lists;
    const ints = this.ints;
    const intShift = this.intShift;
    const compLinks = this.compLinks;
    const capacity = this.capacity;
    const heap = this.heap;
    heap.clear();
    let linkCount = 0;
    compLinks[linkCount++] = seed;
    this.linkStamp[seed] = stamp;
    for (let i = 0; i < linkCount; i++) {
      const link = compLinks[i]!;
      for (let j = start[link]!, end = j + count[link]!; j < end; j++) {
        const base = (pool[j]! >> intShift) << intShift;
        if (ints[base + STAMP] === stamp) continue;
        ints[base + STAMP] = stamp;
        const path = ints[base + PATH]!;
        let ownShare = Infinity;
        let ownLink = -1;
        for (let q = this.pathOffsets[path]!, last = this.pathOffsets[path + 1]!; q < last; q++) {
          const next = this.pathLinks[q]!;
          if (count[next] === 1) {
            this.linkStamp[next] = stamp;
            const cap = capacity[next]!;
            if (cap < ownShare || (cap === ownShare && next < ownLink)) {
              ownShare = cap;
              ownLink = next;
            }
          } else if (this.linkStamp[next] !== stamp) {
            this.linkStamp[next] = stamp;
            compLinks[linkCount++] = next;
          }
        }
        if (ownLink >= 0) heap.push(ownShare, ownLink);
      }
    }
    this.componentsFilled++;

    for (let i = 0; i < linkCount; i++) {
      const link = compLinks[i]!;
      const flows = count[link]!;
      if (flows === 1) continue; // the seed, when it carries one flow: that flow pushed it
      this.linkRemaining[link] = capacity[link]!;
      this.linkUnfrozen[link] = flows;
      heap.push(capacity[link]! / flows, link);
    }
    const frozen = ++this.freezeStamp;
    while (heap.size > 0) {
      const share = heap.topShare();
      const link = heap.topLink();
      heap.pop();
      if (count[link] === 1) {
        // A flow's own narrowest link: it caps the flow unless a shared link froze it lower.
        const slot = pool[start[link]!]! >> intShift;
        const base = slot << intShift;
        if (ints[base + FROZEN] === frozen) continue;
        ints[base + FROZEN] = frozen;
        this.setRate(slot, share, nowNs);
        this.releaseShares(base, link, share);
        continue;
      }
      const unfrozen = this.linkUnfrozen[link]!;
      // Stale entry: the link was already filled, or its share moved and was pushed again.
      if (unfrozen === 0 || share !== this.linkRemaining[link]! / unfrozen) continue;
      this.linkUnfrozen[link] = 0;
      for (let j = start[link]!, end = j + count[link]!; j < end; j++) {
        const slot = pool[j]! >> intShift;
        const base = slot << intShift;
        if (ints[base + FROZEN] === frozen) continue;
        ints[base + FROZEN] = frozen;
        this.setRate(slot, share, nowNs);
        this.releaseShares(base, link, share);
      }
    }
  }

  /** A flow froze at `share` on `link`: its other shared links lose it and re-enter the heap. */
  private releaseShares(base: number, link: number, share: number): void {
    const count = this.lists.count;
    const path = this.ints[base + PATH]!;
    for (let q = this.pathOffsets[path]!, last = this.pathOffsets[path + 1]!; q < last; q++) {
      const other = this.pathLinks[q]!;
      if (other === link || count[other] === 1 || this.linkUnfrozen[other] === 0) continue;
      const left = (this.linkRemaining[other] = this.linkRemaining[other]! - share);
      const stillUnfrozen = --this.linkUnfrozen[other]!;
      if (stillUnfrozen > 0) this.heap.push(left / stillUnfrozen, other);
    }
  }

  private setRate(slot: number, rate: number, nowNs: number): void {
    const floats = this.floats;
    const at = slot << FLOAT_SHIFT;
    const old = floats[at + RATE]!;
    if (old === rate) return;
    // Shares only shrink by subtracting shares no larger than themselves, so they stay positive.
    if (!(rate > 0)) throw new Error(`internal: fair share ${rate} for flow ${this.flowOf(slot)}`);
    if (old > 0) {
      const left = floats[at + REMAINING]! - old * (nowNs - floats[at + UPDATED_NS]!);
      floats[at + REMAINING] = left > 0 ? left : 0;
    }
    floats[at + UPDATED_NS] = nowNs;
    floats[at + RATE] = rate;
    const base = slot << this.intShift;
    this.ints[base + VERSION] = (this.ints[base + VERSION]! + 1) & 0x3fffffff;
    if (this.ints[base + CHANGED] !== this.changeRound) {
      this.ints[base + CHANGED] = this.changeRound;
      this.changed[this.changedCount++] = slot;
    }
  }

  private markDirty(link: number): void {
    if (this.dirtyFlag[link] === 0) {
      this.dirtyFlag[link] = 1;
      this.dirty[this.dirtyCount++] = link;
    }
  }

  private allocSlot(): number {
    const reused = this.freeSlots.pop();
    if (reused !== undefined) return reused;
    if (this.slotsUsed === this.slotCapacity) this.growSlots(this.slotCapacity * 2);
    return this.slotsUsed++;
  }

  private growSlots(size: number): void {
    const ints = new Int32Array(size << this.intShift);
    ints.set(this.ints);
    this.ints = ints;
    const floats = new Float64Array(size << FLOAT_SHIFT);
    floats.set(this.floats);
    this.floats = floats;
    const changed = new Int32Array(size);
    changed.set(this.changed);
    this.changed = changed;
    const added = new Int32Array(size);
    added.set(this.added);
    this.added = added;
    this.slotCapacity = size;
  }
}
