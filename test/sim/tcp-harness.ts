/**
 * A TCP sender and receiver without a network: the test sends what the connection is ready to
 * send, hands it ACKs (with SACK blocks) or data segments of its choosing, and runs its timers, so
 * each mechanism (TLP, RACK, RTO back-off, delayed ACK) can be driven packet by packet.
 */
import { KIND_ACK, KIND_DATA, PacketPool } from '../../src/sim/net/packet-pool.js';
import type { Connection, SimContext, TransportCounters } from '../../src/sim/transport/connection.js';
import { RackTcpConnection } from '../../src/sim/transport/tcp-rack.js';
import { TcpConnection, type TcpConfig } from '../../src/sim/transport/tcp.js';

export const MSS = 1000;

export const baseConfig: TcpConfig = {
  mssBytes: MSS,
  initialCwndSegments: 10,
  minRtoPs: 200e9,
  maxRtoPs: 120e12,
  cc: 'reno',
  ackEvery: 1,
  delayedAckTimeoutPs: 40e9,
  quickAcks: 0,
  sack: true,
  rack: false,
  tsoSegments: 1,
  slowStartAfterIdle: false,
};

export interface Sent {
  seq: number;
  len: number;
  atPs: number;
}

export class Harness implements SimContext {
  readonly pool = new PacketPool(64);
  now = 0;
  readonly counters: TransportCounters = { retransmittedPackets: 0, timeouts: 0, cnps: 0, ecnEchoes: 0 };
  private timers: { time: number; type: number; order: number }[] = [];
  private order = 0;
  readonly conn: TcpConnection;

  constructor(config: Partial<TcpConfig> = {}, baseRttPs = 10e9) {
    const full = { ...baseConfig, ...config };
    const options = {
      id: 0,
      src: 0,
      dst: 1,
      cls: 2,
      forward: Int32Array.of(0),
      reverse: Int32Array.of(1),
      ctx: this,
      config: full,
      baseRttPs,
      randomSeed: 1,
    };
    this.conn = full.rack ? new RackTcpConnection(options) : new TcpConnection(options);
    this.conn.appLimit = 10 * full.mssBytes;
  }

  schedule(timePs: number, type: number): void {
    this.timers.push({ time: timePs, type, order: this.order++ });
  }

  sendControl(
    _conn: Connection,
    kind: number,
    cls: number,
    seq: number,
    ecnEcho: number,
    ts: number,
  ): number {
    const p = this.pool.alloc(0, kind, cls, seq, 0, 64, ts);
    this.pool.setEcn(p, ecnEcho);
    this.pendingAcks.push(p);
    return p;
  }

  private readonly pendingAcks: number[] = [];

  /** ACKs the receiver sent since the last call: cumulative ACK and SACK blocks. */
  takeAcks(): { ack: number; sack: number[] }[] {
    const out = this.pendingAcks.map((p) => {
      const blocks = Array.from(this.pool.sack.subarray(6 * p, 6 * p + 6));
      const result = { ack: this.pool.seq(p), sack: blocks };
      this.pool.free(p);
      return result;
    });
    this.pendingAcks.length = 0;
    return out;
  }

  kickHost(): void {}
  delivered(): void {}

  /** Everything the sender may send now (window and pacing allowing). */
  send(): Sent[] {
    const out: Sent[] = [];
    while (this.conn.readiness(this.now) <= this.now) {
      if (out.length > 100_000) throw new Error('the sender never stops sending');
      const p = this.conn.nextPacket(this.now);
      out.push({ seq: this.pool.seq(p), len: this.pool.payload(p), atPs: this.now });
      this.pool.free(p);
    }
    return out;
  }

  /** The sender gets an ACK of `ack` with SACK blocks, echoing the timestamp `tsPs`. */
  ack(ack: number, sack: [number, number][] = [], tsPs = this.now - 10e9): void {
    const p = this.pool.alloc(0, KIND_ACK, 2, ack, 0, 64, tsPs);
    sack.forEach(([s, e], k) => {
      this.pool.sack[6 * p + 2 * k] = s;
      this.pool.sack[6 * p + 2 * k + 1] = e;
    });
    this.conn.onControl(p);
    this.pool.free(p);
  }

  /** The receiver gets data segment [seq, seq + len), sent at `tsPs`. */
  data(seq: number, len: number, tsPs = this.now): void {
    const p = this.pool.alloc(0, KIND_DATA, 2, seq, len, len + 78, tsPs);
    this.conn.onData(p);
    this.pool.free(p);
  }

  /** Run the timers due up to `toPs` (in time order), leaving the clock there. */
  advance(toPs: number): void {
    for (;;) {
      this.timers.sort((a, b) => a.time - b.time || a.order - b.order);
      const next = this.timers[0];
      if (!next || next.time > toPs) break;
      this.timers.shift();
      this.now = Math.max(this.now, next.time);
      this.conn.onTimer(next.type, next.time);
    }
    this.now = toPs;
  }

  /**
   * A one-bottleneck path for the sender: data leaves at send time, waits for the bottleneck
   * (`rateBps`, a drop-tail queue of `bufferBytes`), arrives `oneWayPs` later at the receiver,
   * whose ACKs come back after `oneWayPs`. `drop(seq, n)` may drop the n-th data packet too.
   * Calls `onAck` after each ACK the sender processed; runs until `untilPs` or nothing is left.
   */
  runPath(o: {
    rateBps: number;
    oneWayPs: number;
    bufferBytes: number;
    untilPs: number;
    drop?: (seq: number, n: number) => boolean;
    onAck?: () => void;
  }): void {
    const events: { time: number; order: number; data: boolean; p: number }[] = [];
    let order = 0;
    let queueFreePs = 0;
    let sentPackets = 0;
    // Kept sorted by time, then order of insertion.
    const push = (time: number, data: boolean, p: number): void => {
      let lo = 0;
      let hi = events.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((events[mid] as { time: number }).time <= time) lo = mid + 1;
        else hi = mid;
      }
      events.splice(lo, 0, { time, order: order++, data, p });
    };
    const transmit = (): number => {
      for (;;) {
        const ready = this.conn.readiness(this.now);
        if (ready > this.now) return ready;
        const p = this.conn.nextPacket(this.now);
        const len = this.pool.payload(p);
        const serial = ((len + 40) * 8e12) / o.rateBps;
        const start = Math.max(this.now, queueFreePs);
        const backlogBytes = ((start - this.now) * o.rateBps) / 8e12;
        if (backlogBytes + len > o.bufferBytes || o.drop?.(this.pool.seq(p), sentPackets)) this.pool.free(p);
        else {
          queueFreePs = start + serial;
          push(queueFreePs + o.oneWayPs, true, p);
        }
        sentPackets++;
      }
    };
    let wake = transmit();
    for (;;) {
      const next = events[0];
      const timer = this.nextTimerPs();
      const t = Math.min(next?.time ?? Infinity, timer, wake);
      if (!Number.isFinite(t) || t > o.untilPs) break;
      if (timer === t) this.advance(t);
      else if (next && next.time === t) {
        events.shift();
        this.now = t;
        if (next.data) {
          this.conn.onData(next.p);
          this.pool.free(next.p);
        } else {
          this.conn.onControl(next.p);
          this.pool.free(next.p);
          o.onAck?.();
        }
      } else this.now = t;
      for (const a of this.pendingAcks) push(this.now + o.oneWayPs, false, a);
      this.pendingAcks.length = 0;
      wake = transmit();
    }
  }

  /** Time of the next pending timer event, or Infinity. */
  nextTimerPs(): number {
    return this.timers.reduce((m, t) => Math.min(m, t.time), Infinity);
  }
}
