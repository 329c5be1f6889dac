/**
 * Pending events in a binary min-heap held in typed arrays: ordered by time, then by insertion
 * order, so simultaneous events run first-scheduled-first and runs are deterministic. Each event
 * is (time, type, a): two numbers of payload the simulator interprets. No allocation per push or
 * pop once the arrays have grown to the peak number of pending events.
 */
export class EventQueue {
  private times: Float64Array;
  private orders: Float64Array;
  private types: Uint8Array;
  private payloads: Int32Array;
  private count = 0;
  private nextOrder = 0;
  /** Filled by pop(). */
  time = 0;
  type = 0;
  payload = 0;

  constructor(initialCapacity = 1024) {
    this.times = new Float64Array(initialCapacity);
    this.orders = new Float64Array(initialCapacity);
    this.types = new Uint8Array(initialCapacity);
    this.payloads = new Int32Array(initialCapacity);
  }

  get size(): number {
    return this.count;
  }

  private grow(): void {
    const capacity = this.times.length * 2;
    const times = new Float64Array(capacity);
    times.set(this.times);
    const orders = new Float64Array(capacity);
    orders.set(this.orders);
    const types = new Uint8Array(capacity);
    types.set(this.types);
    const payloads = new Int32Array(capacity);
    payloads.set(this.payloads);
    this.times = times;
    this.orders = orders;
    this.types = types;
    this.payloads = payloads;
  }

  push(time: number, type: number, payload: number): void {
    if (this.count === this.times.length) this.grow();
    const times = this.times;
    const orders = this.orders;
    const types = this.types;
    const payloads = this.payloads;
    const order = this.nextOrder++;
    let i = this.count++;
    // Sift up: move parents down until the slot fits.
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = times[parent]!;
      if (pt < time || (pt === time && orders[parent]! < order)) break;
      times[i] = pt;
      orders[i] = orders[parent]!;
      types[i] = types[parent]!;
      payloads[i] = payloads[parent]!;
      i = parent;
    }
    times[i] = time;
    orders[i] = order;
    types[i] = type;
    payloads[i] = payload;
  }

  /** Remove the earliest event into (time, type, payload); false when empty. */
  pop(): boolean {
    if (this.count === 0) return false;
    const times = this.times;
    const orders = this.orders;
    const types = this.types;
    const payloads = this.payloads;
    this.time = times[0]!;
    this.type = types[0]!;
    this.payload = payloads[0]!;
    const last = --this.count;
    if (last === 0) return true;
    const t = times[last]!;
    const o = orders[last]!;
    const ty = types[last]!;
    const pl = payloads[last]!;
    let i = 0;
    const half = last >> 1;
    while (i < half) {
      let child = 2 * i + 1;
      const right = child + 1;
      if (right < last) {
        // The earlier child, chosen without a branch: which side wins is a coin toss for the
        // branch predictor, and the mispredictions were the pop's largest cost (node --cpu-prof).
        const lt = times[child]!;
        const rt = times[right]!;
        child += +(rt < lt) | (+(rt === lt) & +(orders[right]! < orders[child]!));
      }
      const ct = times[child]!;
      const co = orders[child]!;
      if (t < ct || (t === ct && o < co)) break;
      times[i] = ct;
      orders[i] = co;
      types[i] = types[child]!;
      payloads[i] = payloads[child]!;
      i = child;
    }
    times[i] = t;
    orders[i] = o;
    types[i] = ty;
    payloads[i] = pl;
    return true;
  }

  peekTime(): number {
    return this.count === 0 ? Infinity : this.times[0]!;
  }
}
