/**
 * What the network core needs from a transport endpoint pair. One Connection is one sender and its
 * receiver (a TCP connection or a RoCE queue pair). The application offers messages (bytes appended
 * to the stream); the receiver reports in-order delivery, and the core tells the workload when a
 * message has fully arrived.
 */
import type { PacketPool } from '../net/packet-pool.js';

/** Traffic classes (switch priorities). Served in strict priority: control, lossless, lossy. */
export const CLS_CONTROL = 0;
export const CLS_LOSSLESS = 1;
export const CLS_LOSSY = 2;
export const CLASS_COUNT = 3;

export interface SimContext {
  readonly pool: PacketPool;
  /** Current simulated time in picoseconds. */
  now: number;
  schedule(timePs: number, type: number, payload: number): void;
  /** Queue a control packet at the receiver's NIC towards the sender, along the reverse route; returns it. */
  sendControl(conn: Connection, kind: number, cls: number, seq: number, ecnEcho: number, ts: number): number;
  /** The sender may have become able to send (window opened): let its NIC pull. */
  kickHost(host: number): void;
  /** The receiver's in-order delivered byte count moved forward. */
  delivered(conn: Connection): void;
  readonly counters: TransportCounters;
}

export interface TransportCounters {
  retransmittedPackets: number;
  timeouts: number;
  cnps: number;
  ecnEchoes: number;
}

/** What every connection is built from; each transport's options add its own configuration. */
export interface ConnectionOptions {
  id: number;
  /** Sending and receiving host. */
  src: number;
  dst: number;
  /** Traffic class of the data packets. */
  cls: number;
  /** Links of the data path and of the path back (ACKs, NAKs, CNPs). */
  forward: Int32Array;
  reverse: Int32Array;
  ctx: SimContext;
}

export abstract class Connection {
  readonly id: number;
  readonly src: number;
  readonly dst: number;
  /** Traffic class of data packets. */
  readonly cls: number;
  readonly forward: Int32Array;
  readonly reverse: Int32Array;
  readonly ctx: SimContext;
  /** Bytes the application has offered so far (end of the stream). */
  appLimit = 0;
  /** Bytes delivered in order at the receiver. */
  delivered = 0;
  /** Time of the first byte sent, -1 before. */
  firstSendPs = -1;
  lastDeliveryPs = -1;
  retransmittedPackets = 0;
  timeouts = 0;
  /** Pending message ends (cumulative stream offsets), their tags and offer times. */
  readonly messageEnds: number[] = [];
  readonly messageTags: number[] = [];
  readonly messageOfferedPs: number[] = [];
  messageHead = 0;
  /** Time the application first offered bytes, -1 before: the start of the flow's life. */
  firstOfferPs = -1;

  constructor(o: ConnectionOptions) {
    this.id = o.id;
    this.src = o.src;
    this.dst = o.dst;
    this.cls = o.cls;
    this.forward = o.forward;
    this.reverse = o.reverse;
    this.ctx = o.ctx;
  }

  abstract readonly transport: 'tcp' | 'roce';
  /** Payload bytes per second the sender could reach alone on its first link. */
  abstract payloadRateBps(lineRateBps: number): number;
  /** <= now: can send now; Infinity: nothing to send; otherwise the time it may send next. */
  abstract readiness(now: number): number;
  /** Build the next data packet (only called after readiness(now) <= now). */
  abstract nextPacket(now: number): number;
  /** A data packet reached the receiver. The packet is freed by the caller. */
  abstract onData(packet: number): void;
  /** An ACK, NAK or CNP reached the sender. The packet is freed by the caller. */
  abstract onControl(packet: number): void;
  /** A timer this connection scheduled (EV_CONN_TIMER or EV_CC_TIMER) fired. */
  abstract onTimer(type: number, timePs: number): void;

  /** The application is about to offer more bytes (before appLimit grows); TCP checks for a restart after idle. */
  onAppWrite(_now: number): void {}

  /** True when every offered byte is delivered. */
  get idle(): boolean {
    return this.delivered >= this.appLimit;
  }
}
