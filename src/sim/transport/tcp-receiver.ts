/**
 * The receiving side of a TCP connection: in-order delivery with an out-of-order store, the
 * cumulative ACK with up to three SACK blocks (RFC 2018: the block holding the latest segment
 * first), ECN echo and the timestamp echo (RFC 7323: the earliest unacknowledged segment's), and
 * delayed ACKs (RFC 1122 4.2.3.2, RFC 5681 4.2): every `ackEvery` in-order segments, at once on
 * anything out of order or at a message end, at the latest after `delayedAckTimeoutPs`.
 */
import { KIND_ACK } from '../net/packet-pool.js';
import { EV_CC_TIMER, type Connection, type SimContext } from './connection.js';
import { SACK_BLOCKS } from './sack.js';

export interface TcpReceiverConfig {
  ackEvery: number;
  delayedAckTimeoutPs: number;
  sack: boolean;
}

export class TcpReceiver {
  private rcvNxt = 0;
  /** Sorted, merged [start, end) pairs received above rcvNxt. */
  private readonly outOfOrder: number[] = [];
  private unacked = 0;
  private unackedTs = 0;
  private unackedCe = 0;
  private delAckTime = -1;
  private lastSegmentStart = 0;

  constructor(
    private readonly conn: Connection,
    private readonly ctx: SimContext,
    private readonly config: TcpReceiverConfig,
  ) {}

  onSegment(p: number): void {
    const pool = this.ctx.pool;
    const conn = this.conn;
    const seq = pool.seq[p] as number;
    const end = seq + (pool.payload[p] as number);
    const before = this.rcvNxt;
    this.lastSegmentStart = seq;
    if (end > this.rcvNxt) {
      if (seq <= this.rcvNxt) {
        this.rcvNxt = end;
        const ooo = this.outOfOrder;
        while (ooo.length > 0 && (ooo[0] as number) <= this.rcvNxt) {
          this.rcvNxt = Math.max(this.rcvNxt, ooo[1] as number);
          ooo.splice(0, 2);
        }
      } else {
        this.insertOutOfOrder(seq, end);
      }
    }
    if (this.unacked === 0) this.unackedTs = pool.ts[p] as number;
    this.unacked++;
    if (pool.ecn[p] === 2) this.unackedCe = 1;
    const inOrder = this.rcvNxt > before && this.outOfOrder.length === 0;
    let ackNow = !inOrder || this.unacked >= this.config.ackEvery;
    if (this.rcvNxt > before) {
      conn.delivered = this.rcvNxt;
      conn.lastDeliveryPs = this.ctx.now;
      const head = conn.messageHead;
      if (head < conn.messageEnds.length && this.rcvNxt >= (conn.messageEnds[head] as number)) ackNow = true;
      this.ctx.delivered(conn);
    }
    if (ackNow) this.sendAck();
    else if (this.delAckTime < 0) {
      this.delAckTime = this.ctx.now + this.config.delayedAckTimeoutPs;
      this.ctx.schedule(this.delAckTime, EV_CC_TIMER, conn.id);
    }
  }

  onDelayedAckTimer(timePs: number): void {
    if (timePs !== this.delAckTime) return;
    this.delAckTime = -1;
    if (this.unacked > 0) this.sendAck();
  }

  private sendAck(): void {
    const p = this.ctx.sendControl(this.conn, KIND_ACK, this.conn.cls, this.rcvNxt, this.unackedCe, this.unackedTs);
    this.unacked = 0;
    this.unackedCe = 0;
    if (this.config.sack && this.outOfOrder.length > 0) this.fillSackBlocks(p);
  }

  private fillSackBlocks(p: number): void {
    const ooo = this.outOfOrder;
    const sack = this.ctx.pool.sack;
    let k = 0;
    let first = -1;
    for (let i = 0; i < ooo.length; i += 2) {
      if ((ooo[i] as number) <= this.lastSegmentStart && this.lastSegmentStart < (ooo[i + 1] as number)) first = i;
    }
    if (first >= 0) {
      sack[6 * p] = ooo[first] as number;
      sack[6 * p + 1] = ooo[first + 1] as number;
      k = 1;
    }
    for (let i = ooo.length - 2; i >= 0 && k < SACK_BLOCKS; i -= 2) {
      if (i === first) continue;
      sack[6 * p + 2 * k] = ooo[i] as number;
      sack[6 * p + 2 * k + 1] = ooo[i + 1] as number;
      k++;
    }
  }

  private insertOutOfOrder(start: number, end: number): void {
    const ooo = this.outOfOrder;
    let i = 0;
    while (i < ooo.length && (ooo[i + 1] as number) < start) i += 2;
    // Merge with every interval it touches.
    let j = i;
    while (j < ooo.length && (ooo[j] as number) <= end) {
      start = Math.min(start, ooo[j] as number);
      end = Math.max(end, ooo[j + 1] as number);
      j += 2;
    }
    ooo.splice(i, j - i, start, end);
  }
}
