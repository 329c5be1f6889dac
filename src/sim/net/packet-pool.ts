/**
 * Every packet in flight lives in these parallel typed arrays and is named by its index; freed
 * slots go on a free list, so the steady state allocates nothing. The arrays double when the
 * number of packets in flight reaches a new peak.
 */
export const KIND_DATA = 0;
export const KIND_ACK = 1;
export const KIND_NAK = 2;
export const KIND_CNP = 3;

export class PacketPool {
  conn: Int32Array;
  kind: Uint8Array;
  cls: Uint8Array;
  /** DATA: byte offset of the payload; ACK/NAK: the cumulative byte acknowledged or expected. */
  seq: Float64Array;
  payload: Int32Array;
  wire: Int32Array;
  /** Where the packet is on its route: an index into the network's route table (PacketNetwork.routeLinks), the link it is crossing. */
  hop: Int32Array;
  /** The switch ingress link the packet is buffered against (PFC accounting), or -1. */
  ingress: Int32Array;
  ecn: Uint8Array;
  /** DATA: send time (TCP timestamp option); ACK: the echoed timestamp. */
  ts: Float64Array;
  /** ACK: up to three SACK blocks (start, end) at [6p .. 6p+5]; start == end means none. */
  sack: Float64Array;
  next: Int32Array;
  private freeHead = -1;
  private used = 0;
  inUse = 0;
  peakInUse = 0;

  constructor(capacity = 4096) {
    this.conn = new Int32Array(capacity);
    this.kind = new Uint8Array(capacity);
    this.cls = new Uint8Array(capacity);
    this.seq = new Float64Array(capacity);
    this.payload = new Int32Array(capacity);
    this.wire = new Int32Array(capacity);
    this.hop = new Int32Array(capacity);
    this.ingress = new Int32Array(capacity);
    this.ecn = new Uint8Array(capacity);
    this.ts = new Float64Array(capacity);
    this.sack = new Float64Array(6 * capacity);
    this.next = new Int32Array(capacity);
  }

  private grow(): void {
    const n = this.conn.length * 2;
    const g = <T extends Int32Array | Uint8Array | Float64Array>(old: T, make: (n: number) => T): T => {
      const fresh = make(n);
      fresh.set(old);
      return fresh;
    };
    this.conn = g(this.conn, (k) => new Int32Array(k));
    this.kind = g(this.kind, (k) => new Uint8Array(k));
    this.cls = g(this.cls, (k) => new Uint8Array(k));
    this.seq = g(this.seq, (k) => new Float64Array(k));
    this.payload = g(this.payload, (k) => new Int32Array(k));
    this.wire = g(this.wire, (k) => new Int32Array(k));
    this.hop = g(this.hop, (k) => new Int32Array(k));
    this.ingress = g(this.ingress, (k) => new Int32Array(k));
    this.ecn = g(this.ecn, (k) => new Uint8Array(k));
    this.ts = g(this.ts, (k) => new Float64Array(k));
    const sack = new Float64Array(6 * n);
    sack.set(this.sack);
    this.sack = sack;
    this.next = g(this.next, (k) => new Int32Array(k));
  }

  alloc(
    conn: number,
    kind: number,
    cls: number,
    seq: number,
    payload: number,
    wire: number,
    ts: number,
  ): number {
    let p: number;
    if (this.freeHead >= 0) {
      p = this.freeHead;
      this.freeHead = this.next[p]!;
    } else {
      if (this.used === this.conn.length) this.grow();
      p = this.used++;
    }
    this.conn[p] = conn;
    this.kind[p] = kind;
    this.cls[p] = cls;
    this.seq[p] = seq;
    this.payload[p] = payload;
    this.wire[p] = wire;
    this.hop[p] = 0;
    this.ingress[p] = -1;
    this.ecn[p] = 0;
    this.ts[p] = ts;
    this.sack.fill(0, 6 * p, 6 * p + 6);
    this.next[p] = -1;
    if (++this.inUse > this.peakInUse) this.peakInUse = this.inUse;
    return p;
  }

  free(p: number): void {
    this.next[p] = this.freeHead;
    this.freeHead = p;
    this.inUse--;
  }
}
