/**
 * The sender's per-segment state, for RACK-TLP and for BBR's delivery-rate samples: what Linux keeps
 * on each skb of its retransmission queue (TCP_SKB_CB(skb)->sacked flags, the (re)transmit time,
 * and net/ipv4/tcp_rate.c's stamps). A ring of parallel typed arrays in sequence order from
 * snd_una; only connections with RACK or BBR keep one, so Reno's hot path does not pay for it.
 */
import type { RateSample } from './cc/types.js';

/** TCPCB_SACKED_ACKED. */
export const SEG_SACKED = 1;
/** TCPCB_LOST: deemed lost, not yet retransmitted. */
export const SEG_LOST = 2;
/** TCPCB_SACKED_RETRANS: retransmitted and not deemed lost again. */
export const SEG_RETRANS = 4;
/** TCPCB_EVER_RETRANS. */
export const SEG_EVER_RETRANS = 8;

/** Segments the ring holds before it first doubles (chosen: an initial window of 10 and room to grow). */
const INITIAL_SEGMENT_SLOTS = 64;

export class SentSegments {
  start = new Float64Array(INITIAL_SEGMENT_SLOTS);
  end = new Float64Array(INITIAL_SEGMENT_SLOTS);
  xmitPs = new Float64Array(INITIAL_SEGMENT_SLOTS);
  flags = new Uint8Array(INITIAL_SEGMENT_SLOTS);
  /** tcp_rate.c: tp->delivered, delivered_mstamp and first_tx_mstamp when the segment was sent. */
  private txDelivered = new Float64Array(INITIAL_SEGMENT_SLOTS);
  private txDeliveredPs = new Float64Array(INITIAL_SEGMENT_SLOTS);
  private txFirstPs = new Float64Array(INITIAL_SEGMENT_SLOTS);
  private txAppLimited = new Uint8Array(INITIAL_SEGMENT_SLOTS);
  private head = 0;
  count = 0;
  /** Bytes of segments SACKed, deemed lost (not retransmitted), and retransmitted (still out). */
  sackedBytes = 0;
  lostBytes = 0;
  retransBytes = 0;
  outBytes = 0;
  // tcp_rate.c connection state.
  delivered = 0;
  private deliveredPs = 0;
  private firstTxPs = 0;
  /** tp->app_limited: 0, or the delivered count that ends the app-limited period. */
  appLimited = 0;
  // The ACK being processed (tcp_rate_skb_delivered's rs fields).
  private priorDelivered = -1;
  private priorPs = 0;
  private sampleAppLimited = false;
  private lastEndSeq = 0;
  private sendIntervalPs = 0;
  newlyDelivered = 0;

  /** Ring position of the i-th outstanding segment (0 = snd_una's). */
  at(i: number): number {
    return (this.head + i) & (this.start.length - 1);
  }

  /** A new segment [start, end) leaves now (tcp_rate_skb_sent). */
  push(start: number, end: number, nowPs: number): void {
    if (this.count === this.start.length) this.grow();
    if (this.count === 0) {
      // tcp_rate_skb_sent: nothing in flight, so the sample's clocks start now.
      this.firstTxPs = nowPs;
      this.deliveredPs = nowPs;
    }
    const k = this.at(this.count++);
    this.start[k] = start;
    this.end[k] = end;
    this.flags[k] = 0;
    this.outBytes += end - start;
    this.stamp(k, nowPs);
  }

  /** Segment [start, end) is sent again: every record it covers is stamped as a retransmission. */
  retransmit(start: number, end: number, nowPs: number): void {
    for (let i = this.find(start); i >= 0 && i < this.count; i++) {
      const k = this.at(i);
      if (this.start[k]! >= end) break;
      const f = this.flags[k]!;
      if (f & SEG_SACKED) continue;
      if (f & SEG_LOST) this.lostBytes -= this.len(k);
      if (!(f & SEG_RETRANS)) this.retransBytes += this.len(k);
      this.flags[k] = (f & ~SEG_LOST) | SEG_RETRANS | SEG_EVER_RETRANS;
      this.stamp(k, nowPs);
    }
  }

  private stamp(k: number, nowPs: number): void {
    this.xmitPs[k] = nowPs;
    this.txDelivered[k] = this.delivered;
    this.txDeliveredPs[k] = this.deliveredPs;
    this.txFirstPs[k] = this.firstTxPs;
    this.txAppLimited[k] = this.appLimited !== 0 ? 1 : 0;
  }

  len(k: number): number {
    return this.end[k]! - this.start[k]!;
  }

  /** Index (0-based from snd_una) of the segment holding `seq`, or -1. */
  find(seq: number): number {
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const k = this.at(mid);
      if (this.end[k]! <= seq) lo = mid + 1;
      else if (this.start[k]! > seq) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  /**
   * tcp_fragment: the i-th outstanding record becomes two at sequence `at` (inside it), each keeping
   * the flags and send stamps, so a part of a TSO packet can be retransmitted alone. Byte counts
   * are unchanged. The later records move up one place (a retransmission path, not the hot one).
   */
  split(i: number, at: number): void {
    if (this.count === this.start.length) this.grow();
    const mask = this.start.length - 1;
    for (let j = this.count; j > i + 1; j--)
      this.copyRecord((this.head + j - 1) & mask, (this.head + j) & mask);
    const k = this.at(i);
    const next = this.at(i + 1);
    this.copyRecord(k, next);
    this.end[k] = at;
    this.start[next] = at;
    this.count++;
  }

  private copyRecord(from: number, to: number): void {
    this.start[to] = this.start[from]!;
    this.end[to] = this.end[from]!;
    this.xmitPs[to] = this.xmitPs[from]!;
    this.flags[to] = this.flags[from]!;
    this.txDelivered[to] = this.txDelivered[from]!;
    this.txDeliveredPs[to] = this.txDeliveredPs[from]!;
    this.txFirstPs[to] = this.txFirstPs[from]!;
    this.txAppLimited[to] = this.txAppLimited[from]!;
  }

  /** Start of an ACK's processing (tcp_rate.c keeps the newest delivered segment's stamps). */
  beginAck(): void {
    this.priorDelivered = -1;
    this.newlyDelivered = 0;
  }

  /** Cumulative ACK to `ack`: pop what it covers; `onDelivered` sees each segment not SACKed before. */
  ackTo(ack: number, onDelivered: (k: number) => void): void {
    while (this.count > 0) {
      const k = this.head;
      if (this.end[k]! > ack) break;
      const f = this.flags[k]!;
      const len = this.len(k);
      if (f & SEG_SACKED) this.sackedBytes -= len;
      else {
        if (f & SEG_LOST) this.lostBytes -= len;
        if (f & SEG_RETRANS) this.retransBytes -= len;
        this.deliver(k);
        onDelivered(k);
      }
      this.outBytes -= len;
      this.head = (this.head + 1) & (this.start.length - 1);
      this.count--;
    }
  }

  /** A SACK block [start, end): mark the segments it covers. */
  sack(start: number, end: number, onDelivered: (k: number) => void): void {
    let i = this.find(start);
    if (i < 0) return;
    for (; i < this.count; i++) {
      const k = this.at(i);
      if (this.end[k]! > end) break;
      const f = this.flags[k]!;
      if (f & SEG_SACKED) continue;
      const len = this.len(k);
      if (f & SEG_LOST) this.lostBytes -= len;
      if (f & SEG_RETRANS) this.retransBytes -= len;
      this.flags[k] = f | SEG_SACKED;
      this.sackedBytes += len;
      this.deliver(k);
      onDelivered(k);
    }
  }

  /** Deem segment at ring position `k` lost (a retransmission lost again loses its RETRANS mark). */
  markLost(k: number): void {
    const f = this.flags[k]!;
    if (f & (SEG_SACKED | SEG_LOST)) return;
    if (f & SEG_RETRANS) this.retransBytes -= this.len(k);
    this.flags[k] = (f & ~SEG_RETRANS) | SEG_LOST;
    this.lostBytes += this.len(k);
  }

  /** tcp_rate_skb_delivered: keep the stamps of the most recently sent delivered segment. */
  private deliver(k: number): void {
    const len = this.len(k);
    this.delivered += len;
    this.newlyDelivered += len;
    const xmit = this.xmitPs[k]!;
    if (
      this.priorDelivered < 0 ||
      xmit > this.firstTxPs ||
      (xmit === this.firstTxPs && this.end[k]! > this.lastEndSeq)
    ) {
      this.priorDelivered = this.txDelivered[k]!;
      this.priorPs = this.txDeliveredPs[k]!;
      this.sampleAppLimited = this.txAppLimited[k] === 1;
      this.lastEndSeq = this.end[k]!;
      this.firstTxPs = xmit;
      this.sendIntervalPs = xmit - this.txFirstPs[k]!;
    }
  }

  /** tcp_rate_gen: fill the rate sample of this ACK. */
  endAck(rs: RateSample, nowPs: number, minRttPs: number): void {
    if (this.appLimited !== 0 && this.delivered > this.appLimited) this.appLimited = 0;
    if (this.newlyDelivered > 0) this.deliveredPs = nowPs;
    rs.ackedBytes = this.newlyDelivered;
    rs.totalDelivered = this.delivered;
    rs.isAppLimited = this.sampleAppLimited;
    if (this.priorDelivered < 0) {
      rs.deliveredBytes = -1;
      rs.intervalPs = -1;
      return;
    }
    rs.priorDelivered = this.priorDelivered;
    rs.deliveredBytes = this.delivered - this.priorDelivered;
    const interval = Math.max(this.sendIntervalPs, nowPs - this.priorPs);
    // tcp_rate.c: an interval below min_rtt is unreliable (ACK compression); no sample.
    rs.intervalPs = interval < minRttPs ? -1 : interval;
  }

  /** tcp_rate_check_app_limited: the application has nothing more to send. */
  markAppLimited(inflightBytes: number): void {
    this.appLimited = this.delivered + inflightBytes || 1;
  }

  private grow(): void {
    const n = this.start.length * 2;
    const mask = this.start.length - 1;
    const copy = <T extends Float64Array | Uint8Array>(old: T, fresh: T): T => {
      for (let i = 0; i < this.count; i++) fresh[i] = old[(this.head + i) & mask]!;
      return fresh;
    };
    this.start = copy(this.start, new Float64Array(n));
    this.end = copy(this.end, new Float64Array(n));
    this.xmitPs = copy(this.xmitPs, new Float64Array(n));
    this.flags = copy(this.flags, new Uint8Array(n));
    this.txDelivered = copy(this.txDelivered, new Float64Array(n));
    this.txDeliveredPs = copy(this.txDeliveredPs, new Float64Array(n));
    this.txFirstPs = copy(this.txFirstPs, new Float64Array(n));
    this.txAppLimited = copy(this.txAppLimited, new Uint8Array(n));
    this.head = 0;
  }
}
