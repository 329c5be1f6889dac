/**
 * Pending events of the packet simulator, ordered by time, then by insertion order, so
 * simultaneous events run first-scheduled-first and runs are deterministic. Each event is
 * (time, type, a): two numbers of payload the simulator interprets.
 *
 * A calendar queue (Brown, CACM 31(10), 1988) in front of a heap: time is cut into buckets of
 * `bucketPs`, and the `buckets` buckets from the current one on (the window) each hold their
 * events in a list kept in (time, order); events beyond the window wait in a binary heap
 * (event-heap.ts) and move into their bucket when the window reaches them. A packet's events
 * fall within a few microseconds, so a push appends to a bucket's list, and the rare push that lands
 * before the tail walks back from the tail (a doubly linked list) to its place, so every list is
 * always in (time, order) and a pop takes a list's head, where a heap of 6,000 pending events
 * sifted through 13 levels (the largest cost of the 432-host permutation, docs/PERFORMANCE.md). A bitmap of non-empty buckets
 * finds the next event across empty ones 32 buckets at a time. The order is exactly the heap's.
 * No allocation per push or pop once the arrays have grown to the peak number of pending events.
 */
import { EventHeap } from './event-heap.js';
import { grownFloat64, grownInt32 } from './grow.js';

/** Types fit in 4 bits; payloads (packet, link, connection or slot indices) below 2^27. */
const TYPE_BITS = 4;
const TYPE_MASK = (1 << TYPE_BITS) - 1;
const MAX_PAYLOAD = 2 ** (31 - TYPE_BITS);

export interface CalendarOptions {
  /**
   * Width of a bucket in picoseconds (default 2^12, about 4 ns: a 9 KB frame takes 720 ns at
   * 100 Gb/s; of 2^10 to 2^16 tried on the 432-host permutation, 2^12 ran fastest, since a wider
   * bucket gathers many events out of insertion order; re-measured with the backward walk: 2^11 to 2^13
   * within noise, 2^14 and 2^16 slower).
   */
  bucketPs?: number;
  /** Buckets in the window, a power of two of at least 32 (default 2^16: a window of about 268 us). */
  buckets?: number;
}

export class EventQueue {
  private readonly invWidth: number;
  private readonly nBuckets: number;
  private readonly mask: number;
  private readonly head: Int32Array;
  private readonly tail: Int32Array;
  /** Bit k of word w: bucket slot 32w + k holds events. */
  private readonly occupied: Int32Array;
  // Event records, chained per bucket; freed ones on a free list.
  private times: Float64Array;
  private items: Int32Array;
  private next: Int32Array;
  /** The record before each one in its bucket (-1 at the head). */
  private prev: Int32Array;
  private freeHead = -1;
  private used = 0;
  private inBuckets = 0;
  /** The window's first bucket, as an absolute bucket number (floor(time / bucketPs)). */
  private current = 0;
  private readonly far = new EventHeap(256);
  private nextOrder = 0;
  /** Filled by pop(). */
  time = 0;
  type = 0;
  payload = 0;

  constructor(initialCapacity = 1024, options: CalendarOptions = {}) {
    const width = options.bucketPs ?? 2 ** 12;
    const buckets = options.buckets ?? 2 ** 16;
    if (!(width > 0) || buckets < 32 || (buckets & (buckets - 1)) !== 0)
      throw new Error(`internal: calendar of ${buckets} buckets of ${width} ps`);
    this.invWidth = 1 / width;
    this.nBuckets = buckets;
    this.mask = buckets - 1;
    this.head = new Int32Array(buckets).fill(-1);
    this.tail = new Int32Array(buckets).fill(-1);
    this.occupied = new Int32Array(buckets >> 5);
    const capacity = Math.max(2, initialCapacity);
    this.times = new Float64Array(capacity);
    this.items = new Int32Array(capacity);
    this.next = new Int32Array(capacity);
    this.prev = new Int32Array(capacity);
  }

  get size(): number {
    return this.inBuckets + this.far.size;
  }

  push(time: number, type: number, payload: number): void {
    if (payload >= MAX_PAYLOAD)
      throw new Error(`internal: event payload ${payload} does not fit the queue's entry`);
    const item = payload * (TYPE_MASK + 1) + type;
    const bucket = Math.floor(time * this.invWidth);
    if (bucket < this.current + this.nBuckets) this.insert(bucket, time, item);
    else this.far.push(time, this.nextOrder++, item);
  }

  /** Remove the earliest event into (time, type, payload); false when empty. */
  pop(): boolean {
    if (this.inBuckets === 0) {
      if (this.far.size === 0) return false;
      // Nothing within the window: move it to the earliest far event.
      this.current = Math.max(this.current, Math.floor(this.far.peekTime() * this.invWidth));
      this.admitFar();
    }
    const slot = this.nextOccupied(this.current & this.mask);
    const ahead = (slot - (this.current & this.mask)) & this.mask;
    if (ahead > 0) {
      this.current += ahead;
      this.admitFar();
    }
    const r = this.head[slot]!;
    const next = this.next[r]!;
    this.head[slot] = next;
    if (next < 0) {
      this.tail[slot] = -1;
      this.occupied[slot >> 5] = this.occupied[slot >> 5]! & ~(1 << (slot & 31));
    } else this.prev[next] = -1;
    this.inBuckets--;
    this.time = this.times[r]!;
    const item = this.items[r]!;
    this.type = item & TYPE_MASK;
    this.payload = item >> TYPE_BITS;
    this.next[r] = this.freeHead;
    this.freeHead = r;
    return true;
  }

  peekTime(): number {
    if (this.inBuckets === 0) return this.far.peekTime();
    const slot = this.nextOccupied(this.current & this.mask);
    return this.times[this.head[slot]!]!;
  }

  /**
   * Files an event in its bucket's list, after every event of the same or an earlier time. That is
   * (time, insertion order): a bucket enters the window empty, takes its far events first, in their
   * heap's (time, order), and only then events pushed directly, each newer than all before it.
   */
  private insert(bucket: number, time: number, item: number): void {
    // An event in the past (not scheduled by the simulator) goes first, as a heap would pop it.
    const slot = (bucket < this.current ? this.current : bucket) & this.mask;
    let r = this.freeHead;
    if (r >= 0) this.freeHead = this.next[r]!;
    else {
      if (this.used === this.next.length) this.grow();
      r = this.used++;
    }
    const times = this.times;
    const next = this.next;
    times[r] = time;
    this.items[r] = item;
    this.inBuckets++;
    const last = this.tail[slot]!;
    if (last < 0) {
      next[r] = -1;
      this.prev[r] = -1;
      this.head[slot] = r;
      this.tail[slot] = r;
      this.occupied[slot >> 5] = this.occupied[slot >> 5]! | (1 << (slot & 31));
      return;
    }
    const prev = this.prev;
    if (times[last]! <= time) {
      next[r] = -1;
      prev[r] = last;
      next[last] = r;
      this.tail[slot] = r;
      return;
    }
    // Out of order: walk back from the tail, where such an event almost always belongs.
    let after = last;
    let before = prev[last]!;
    while (before >= 0 && times[before]! > time) {
      after = before;
      before = prev[before]!;
    }
    next[r] = after;
    prev[r] = before;
    prev[after] = r;
    if (before < 0) this.head[slot] = r;
    else next[before] = r;
  }

  /** Moves the far events the window now covers into their buckets. */
  private admitFar(): void {
    const far = this.far;
    const end = this.current + this.nBuckets;
    while (far.size > 0 && Math.floor(far.peekTime() * this.invWidth) < end) {
      far.pop();
      this.insert(Math.floor(far.time * this.invWidth), far.time, far.item);
    }
  }

  /** The first non-empty bucket slot from `from` on, wrapping round (one exists). */
  private nextOccupied(from: number): number {
    const occupied = this.occupied;
    const words = occupied.length;
    let w = from >> 5;
    let bits = occupied[w]! & (-1 << (from & 31));
    for (let seen = 0; bits === 0; seen++) {
      w = w + 1 === words ? 0 : w + 1;
      bits = occupied[w]!;
      if (seen > words) throw new Error('internal: the calendar has no event where it counts some');
    }
    return (w << 5) + (31 - Math.clz32(bits & -bits));
  }

  private grow(): void {
    const n = this.next.length * 2;
    this.times = grownFloat64(this.times, n);
    this.items = grownInt32(this.items, n);
    this.next = grownInt32(this.next, n);
    this.prev = grownInt32(this.prev, n);
  }
}
