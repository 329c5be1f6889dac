/**
 * Every packet in flight lives in one 32-byte record of ints, named by its index: a switch that
 * forwards a packet touches one cache line, not one per field (with 140,000 packets in flight on
 * the 432-host permutation the fields spread over ~15 MB, so every field was a cache miss of its
 * own). The stream offset and timestamp, read only by the transports at the hosts, and the SACK
 * blocks, read only on ACKs, are apart. Freed records go on a free list, so the steady state
 * allocates nothing; the arrays double when the number of packets in flight reaches a new peak.
 */
import { grownFloat64 } from '../engine/index.js';

export const KIND_DATA = 0;
export const KIND_ACK = 1;
export const KIND_NAK = 2;
export const KIND_CNP = 3;

/** Int32 words per record (32 bytes) and Float64 words per packet in the transport's array. */
const INT_SHIFT = 3;
const FLOAT_SHIFT = 1;
// Int32 fields.
const HOP = 0;
const WIRE = 1;
const CONN = 2;
const NEXT = 3;
/** kind | class << 8 | ECN << 16 */
const META = 4;
const PAYLOAD = 5;
const INGRESS = 6;
// Float64 fields.
const SEQ = 0;
const TS = 1;

export class PacketPool {
  private buffer: ArrayBuffer;
  private ints: Int32Array;
  private floats: Float64Array;
  /** ACK: up to three SACK blocks (start, end) at [6p .. 6p+5]; start == end means none. */
  sack: Float64Array;
  private capacity: number;
  private freeHead = -1;
  private used = 0;
  inUse = 0;
  peakInUse = 0;

  constructor(capacity = 4096) {
    this.capacity = capacity;
    this.buffer = new ArrayBuffer(capacity << (INT_SHIFT + 2));
    this.ints = new Int32Array(this.buffer);
    this.floats = new Float64Array(capacity << FLOAT_SHIFT);
    this.sack = new Float64Array(6 * capacity);
  }

  /** The connection the packet belongs to. */
  conn(p: number): number {
    return this.ints[(p << INT_SHIFT) + CONN]!;
  }

  kind(p: number): number {
    return this.ints[(p << INT_SHIFT) + META]! & 0xff;
  }

  /** Traffic class (switch priority). */
  cls(p: number): number {
    return (this.ints[(p << INT_SHIFT) + META]! >> 8) & 0xff;
  }

  /** ECN codepoint: 0 not ECN-capable, 1 capable, 2 congestion experienced (or, on a control packet, the echo). */
  ecn(p: number): number {
    return this.ints[(p << INT_SHIFT) + META]! >> 16;
  }

  setEcn(p: number, ecn: number): void {
    const at = (p << INT_SHIFT) + META;
    this.ints[at] = (this.ints[at]! & 0xffff) | (ecn << 16);
  }

  /** DATA: payload bytes. */
  payload(p: number): number {
    return this.ints[(p << INT_SHIFT) + PAYLOAD]!;
  }

  /** Bytes on the wire (headers and framing included). */
  wire(p: number): number {
    return this.ints[(p << INT_SHIFT) + WIRE]!;
  }

  /** Where the packet is on its route: an index into the network's route table (PacketNetwork.routeLinks). */
  hop(p: number): number {
    return this.ints[(p << INT_SHIFT) + HOP]!;
  }

  setHop(p: number, hop: number): void {
    this.ints[(p << INT_SHIFT) + HOP] = hop;
  }

  /** The switch ingress link the packet is buffered against (PFC accounting), or -1. */
  ingress(p: number): number {
    return this.ints[(p << INT_SHIFT) + INGRESS]!;
  }

  setIngress(p: number, link: number): void {
    this.ints[(p << INT_SHIFT) + INGRESS] = link;
  }

  /** The next packet in the queue the packet waits in (port-queues.ts), -1 at the tail. */
  next(p: number): number {
    return this.ints[(p << INT_SHIFT) + NEXT]!;
  }

  setNext(p: number, next: number): void {
    this.ints[(p << INT_SHIFT) + NEXT] = next;
  }

  /** DATA: byte offset of the payload; ACK/NAK: the cumulative byte acknowledged or expected. */
  seq(p: number): number {
    return this.floats[(p << FLOAT_SHIFT) + SEQ]!;
  }

  /** DATA: send time (TCP timestamp option); ACK: the echoed timestamp. */
  ts(p: number): number {
    return this.floats[(p << FLOAT_SHIFT) + TS]!;
  }

  private grow(): void {
    const capacity = this.capacity * 2;
    const buffer = new ArrayBuffer(capacity << (INT_SHIFT + 2));
    new Uint8Array(buffer).set(new Uint8Array(this.buffer));
    this.buffer = buffer;
    this.ints = new Int32Array(buffer);
    this.floats = grownFloat64(this.floats, capacity << FLOAT_SHIFT);
    this.sack = grownFloat64(this.sack, 6 * capacity);
    this.capacity = capacity;
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
      this.freeHead = this.ints[(p << INT_SHIFT) + NEXT]!;
    } else {
      if (this.used === this.capacity) this.grow();
      p = this.used++;
    }
    const i = p << INT_SHIFT;
    const ints = this.ints;
    ints[i + HOP] = 0;
    ints[i + WIRE] = wire;
    ints[i + CONN] = conn;
    ints[i + NEXT] = -1;
    ints[i + META] = kind | (cls << 8);
    ints[i + PAYLOAD] = payload;
    ints[i + INGRESS] = -1;
    const f = p << FLOAT_SHIFT;
    this.floats[f + SEQ] = seq;
    this.floats[f + TS] = ts;
    // Only control packets carry SACK blocks (and only they are read for them).
    if (kind !== KIND_DATA) this.sack.fill(0, 6 * p, 6 * p + 6);
    if (++this.inUse > this.peakInUse) this.peakInUse = this.inUse;
    return p;
  }

  free(p: number): void {
    this.ints[(p << INT_SHIFT) + NEXT] = this.freeHead;
    this.freeHead = p;
    this.inUse--;
  }
}
