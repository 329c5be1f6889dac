/**
 * The egress queues of every link: one FIFO per traffic class, chained through the packet pool's
 * `next` field so that queueing allocates nothing, with byte counts per class, per port, and the
 * port's peak (for the report).
 */
import { CLASS_COUNT, CLS_CONTROL, CLS_LOSSLESS, CLS_LOSSY } from '../transport/connection.js';
import type { PacketPool } from './packet-pool.js';

export class PortQueues {
  private readonly head: Int32Array;
  private readonly tail: Int32Array;
  /** Bytes queued per link and class, at `link * CLASS_COUNT + cls`. */
  readonly classBytes: Float64Array;
  readonly portBytes: Float64Array;
  readonly peakPortBytes: Float64Array;

  constructor(
    private readonly pool: PacketPool,
    linkCount: number,
  ) {
    this.head = new Int32Array(linkCount * CLASS_COUNT).fill(-1);
    this.tail = new Int32Array(linkCount * CLASS_COUNT).fill(-1);
    this.classBytes = new Float64Array(linkCount * CLASS_COUNT);
    this.portBytes = new Float64Array(linkCount);
    this.peakPortBytes = new Float64Array(linkCount);
  }

  enqueue(link: number, cls: number, p: number): void {
    const q = link * CLASS_COUNT + cls;
    const pool = this.pool;
    pool.setNext(p, -1);
    const tail = this.tail[q]!;
    if (tail < 0) this.head[q] = p;
    else pool.setNext(tail, p);
    this.tail[q] = p;
    const wire = pool.wire(p);
    this.classBytes[q] = this.classBytes[q]! + wire;
    const total = this.portBytes[link]! + wire;
    this.portBytes[link] = total;
    if (total > this.peakPortBytes[link]!) this.peakPortBytes[link] = total;
  }

  /** A packet went straight out of an idle, empty port: it counts toward the port's peak as if it was queued. */
  passThrough(link: number, wire: number): void {
    if (wire > this.peakPortBytes[link]!) this.peakPortBytes[link] = wire;
  }

  /** Remove and return the head of a class's queue; the caller knows it is not empty. */
  dequeue(link: number, cls: number): number {
    const q = link * CLASS_COUNT + cls;
    const pool = this.pool;
    const p = this.head[q]!;
    const next = pool.next(p);
    this.head[q] = next;
    if (next < 0) this.tail[q] = -1;
    const wire = pool.wire(p);
    this.classBytes[q] = this.classBytes[q]! - wire;
    this.portBytes[link] = this.portBytes[link]! - wire;
    return p;
  }

  /** The class to serve next in strict priority (control, lossless unless paused, lossy); -1 if none may go. */
  nextClass(link: number, losslessPaused: boolean): number {
    const base = link * CLASS_COUNT;
    if (this.head[base + CLS_CONTROL]! >= 0) return CLS_CONTROL;
    if (this.head[base + CLS_LOSSLESS]! >= 0 && !losslessPaused) return CLS_LOSSLESS;
    if (this.head[base + CLS_LOSSY]! >= 0) return CLS_LOSSY;
    return -1;
  }

  /** Packets of one class waiting on `link`, head first (a copy: the caller may dequeue). */
  packetsOf(link: number, cls: number): number[] {
    const out: number[] = [];
    for (let p = this.head[link * CLASS_COUNT + cls]!; p >= 0; p = this.pool.next(p)) out.push(p);
    return out;
  }

  /** True when a packet of any class waits on `link`, paused ones included. */
  hasWaiting(link: number): boolean {
    const base = link * CLASS_COUNT;
    return (
      this.head[base + CLS_CONTROL]! >= 0 ||
      this.head[base + CLS_LOSSLESS]! >= 0 ||
      this.head[base + CLS_LOSSY]! >= 0
    );
  }
}
