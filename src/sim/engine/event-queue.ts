/**
 * Pending events in a binary min-heap held in typed arrays: ordered by time, then by insertion
 * order, so simultaneous events run first-scheduled-first and runs are deterministic. Each event
 * is (time, type, a): two numbers of payload the simulator interprets. No allocation per push or
 * pop once the arrays have grown to the peak number of pending events.
 *
 * Layout: an entry's time and insertion order sit side by side in one Float64Array (a parent's two
 * children are then one 32-byte span), and its type and payload share one Int32 (payload x 16 +
 * type), so sifting reads and moves two arrays instead of four.
 */
/** Types fit in 4 bits; payloads (packet, link, connection or slot indices) below 2^27. */
const TYPE_BITS = 4;
const TYPE_MASK = (1 << TYPE_BITS) - 1;
const MAX_PAYLOAD = 2 ** (31 - TYPE_BITS);

export class EventQueue {
  /** keys[2i] is entry i's time, keys[2i + 1] its insertion order. */
  private keys: Float64Array;
  private items: Int32Array;
  private count = 0;
  private nextOrder = 0;
  /** Filled by pop(). */
  time = 0;
  type = 0;
  payload = 0;

  constructor(initialCapacity = 1024) {
    this.keys = new Float64Array(2 * initialCapacity);
    this.items = new Int32Array(initialCapacity);
  }

  get size(): number {
    return this.count;
  }

  private grow(): void {
    const keys = new Float64Array(this.keys.length * 2);
    keys.set(this.keys);
    const items = new Int32Array(this.items.length * 2);
    items.set(this.items);
    this.keys = keys;
    this.items = items;
  }

  push(time: number, type: number, payload: number): void {
    if (payload >= MAX_PAYLOAD) throw new Error(`internal: event payload ${payload} does not fit the queue's entry`);
    if (this.count === this.items.length) this.grow();
    const keys = this.keys;
    const items = this.items;
    const order = this.nextOrder++;
    const item = payload * (TYPE_MASK + 1) + type;
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

  /** Remove the earliest event into (time, type, payload); false when empty. */
  pop(): boolean {
    if (this.count === 0) return false;
    const keys = this.keys;
    const items = this.items;
    this.time = keys[0]!;
    const top = items[0]!;
    this.type = top & TYPE_MASK;
    this.payload = top >> TYPE_BITS;
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
