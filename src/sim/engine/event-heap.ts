/**
 * A binary min-heap of (time, order, item) in typed arrays, least time first, then least order:
 * the event queue's store for events beyond its calendar's window (event-queue.ts). An entry's
 * time and order sit side by side in one Float64Array (a parent's two children are then one
 * 32-byte span), its item in an Int32Array. No allocation per push or pop once the arrays have
 * grown to the peak number of entries.
 */
import { grownFloat64, grownInt32 } from './grow.js';

export class EventHeap {
  /** keys[2i] is entry i's time, keys[2i + 1] its order. */
  private keys: Float64Array;
  private items: Int32Array;
  private count = 0;
  /** Filled by pop(). */
  time = 0;
  order = 0;
  item = 0;

  constructor(initialCapacity = 1024) {
    this.keys = new Float64Array(2 * Math.max(1, initialCapacity));
    this.items = new Int32Array(Math.max(1, initialCapacity));
  }

  get size(): number {
    return this.count;
  }

  private grow(): void {
    this.keys = grownFloat64(this.keys, this.keys.length * 2);
    this.items = grownInt32(this.items, this.items.length * 2);
  }

  push(time: number, order: number, item: number): void {
    if (this.count === this.items.length) this.grow();
    const keys = this.keys;
    const items = this.items;
    let i = this.count++;
    // Sift up: move parents down until the slot fits.
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = keys[2 * parent]!;
      if (pt < time || (pt === time && keys[2 * parent + 1]! < order)) break;
      keys[2 * i] = pt;
      keys[2 * i + 1] = keys[2 * parent + 1]!;
      items[i] = items[parent]!;
      i = parent;
    }
    keys[2 * i] = time;
    keys[2 * i + 1] = order;
    items[i] = item;
  }

  /** Removes the least entry into (time, order, item); false when empty. */
  pop(): boolean {
    if (this.count === 0) return false;
    const keys = this.keys;
    const items = this.items;
    this.time = keys[0]!;
    this.order = keys[1]!;
    this.item = items[0]!;
    const last = --this.count;
    if (last === 0) return true;
    const t = keys[2 * last]!;
    const o = keys[2 * last + 1]!;
    const item = items[last]!;
    let i = 0;
    const half = last >> 1;
    while (i < half) {
      let child = 2 * i + 1;
      if (child + 1 < last) {
        // The earlier child, chosen without a branch: which side wins is a coin toss for the
        // branch predictor, and the mispredictions were the pop's largest cost (node --cpu-prof).
        const lt = keys[2 * child]!;
        const rt = keys[2 * child + 2]!;
        child += +(rt < lt) | (+(rt === lt) & +(keys[2 * child + 3]! < keys[2 * child + 1]!));
      }
      const ct = keys[2 * child]!;
      const co = keys[2 * child + 1]!;
      if (t < ct || (t === ct && o < co)) break;
      keys[2 * i] = ct;
      keys[2 * i + 1] = co;
      items[i] = items[child]!;
      i = child;
    }
    keys[2 * i] = t;
    keys[2 * i + 1] = o;
    items[i] = item;
    return true;
  }

  peekTime(): number {
    return this.count === 0 ? Infinity : this.keys[0]!;
  }
}
