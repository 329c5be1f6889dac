/**
 * The receiving side of a TCP connection: in-order delivery with an out-of-order store, the
 * cumulative ACK with up to three SACK blocks (RFC 2018: the block holding the latest segment
 * first), ECN echo and the timestamp echo (RFC 7323: the earliest unacknowledged segment's), and
 * delayed ACKs (RFC 1122 4.2.3.2, RFC 5681 4.2): every `ackEvery` in-order segments, at once on
 * anything out of order or at a message end, at the latest after `delayedAckTimeoutPs`; Linux's
 * quick-ACK mode for the first `quickAcks` segments (net/ipv4/tcp_input.c tcp_incr_quickack); and,
 * with `dsack`, a duplicate segment reported in the first SACK block (RFC 2883, Linux tcp_dsack=1).
 */
import { KIND_ACK } from '../net/packet-pool.js';
import { EV_CC_TIMER } from '../event-kinds.js';
import type { Connection, SimContext } from './connection.js';
import { firstEnding, insertRange, SACK_BLOCKS } from './sack.js';

export interface TcpReceiverConfig {
  ackEvery: number;
  delayedAckTimeoutPs: number;
  sack: boolean;
  quickAcks: number;
  dsack: boolean;
  mssBytes: number;
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
  private quickLeft: number;
  /** A duplicate segment to report as a DSACK block in the next ACK (start < end), else none. */
  private dsackStart = 0;
  private dsackEnd = 0;

  constructor(
    private readonly conn: Connection,
    private readonly ctx: SimContext,
    private readonly config: TcpReceiverConfig,
  ) {
    this.quickLeft = config.quickAcks;
  }

  onSegment(p: number): void {
    const pool = this.ctx.pool;
    const conn = this.conn;
    const seq = pool.seq(p);
    const end = seq + pool.payload(p);
    const before = this.rcvNxt;
    this.lastSegmentStart = seq;
    if (seq < this.rcvNxt) {
      if (this.config.dsack) {
        this.dsackStart = seq;
        this.dsackEnd = Math.min(end, this.rcvNxt);
      }
      // tcp_input.c tcp_data_queue: a retransmission we already hold puts the receiver back in quick-ACK mode.
      if (this.config.quickAcks > 0) this.quickLeft = this.config.quickAcks;
    }
    const hadHoles = this.outOfOrder.length > 0;
    if (end > this.rcvNxt) {
      if (seq <= this.rcvNxt) {
        this.rcvNxt = end;
        const ooo = this.outOfOrder;
        while (ooo.length > 0 && ooo[0]! <= this.rcvNxt) {
          this.rcvNxt = Math.max(this.rcvNxt, ooo[1]!);
          ooo.splice(0, 2);
        }
      } else {
        insertRange(this.outOfOrder, seq, end);
      }
    }
    if (this.unacked === 0) this.unackedTs = pool.ts(p);
    // Full-sized segments received (a TSO/GRO packet counts all of its own).
    this.unacked += end - seq > this.config.mssBytes ? Math.ceil((end - seq) / this.config.mssBytes) : 1;
    if (pool.ecn(p) === 2) this.unackedCe = 1;
    const inOrder = this.rcvNxt > before && this.outOfOrder.length === 0;
    // RFC 5681 4.2 (Linux ICSK_ACK_NOW): an ACK at once when a segment fills the last gap.
    let ackNow = !inOrder || hadHoles || this.unacked >= this.config.ackEvery;
    if (this.quickLeft > 0) {
      this.quickLeft--;
      ackNow = true;
    }
    if (this.rcvNxt > before) {
      conn.delivered = this.rcvNxt;
      conn.lastDeliveryPs = this.ctx.now;
      const head = conn.messageHead;
      if (head < conn.messageEnds.length && this.rcvNxt >= conn.messageEnds[head]!) ackNow = true;
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
    const p = this.ctx.sendControl(
      this.conn,
      KIND_ACK,
      this.conn.cls,
      this.rcvNxt,
      this.unackedCe,
      this.unackedTs,
    );
    this.unacked = 0;
    this.unackedCe = 0;
    let k = 0;
    if (this.dsackEnd > this.dsackStart) {
      const sack = this.ctx.pool.sack;
      sack[6 * p] = this.dsackStart;
      sack[6 * p + 1] = this.dsackEnd;
      this.dsackStart = this.dsackEnd = 0;
      k = 1;
    }
    if (this.config.sack && this.outOfOrder.length > 0) this.fillSackBlocks(p, k);
  }

  private fillSackBlocks(p: number, k0: number): void {
    const ooo = this.outOfOrder;
    const sack = this.ctx.pool.sack;
    let k = k0;
    // The block holding the latest segment, if it is out of order (the first that ends after its start).
    let first = firstEnding(ooo, this.lastSegmentStart, false);
    if (first === ooo.length || ooo[first]! > this.lastSegmentStart) first = -1;
    if (first >= 0) {
      sack[6 * p + 2 * k] = ooo[first]!;
      sack[6 * p + 2 * k + 1] = ooo[first + 1]!;
      k++;
    }
    for (let i = ooo.length - 2; i >= 0 && k < SACK_BLOCKS; i -= 2) {
      if (i === first) continue;
      sack[6 * p + 2 * k] = ooo[i]!;
      sack[6 * p + 2 * k + 1] = ooo[i + 1]!;
      k++;
    }
  }
}
