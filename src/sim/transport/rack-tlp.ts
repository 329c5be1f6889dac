/**
 * RACK-TLP (RFC 8985) as Linux net/ipv4/tcp_recovery.c and tcp_output.c run it. RACK deems a
 * segment lost when a segment sent after it was delivered more than RACK.rtt + reo_wnd after it
 * was sent (time, not DupThresh counting, so lost retransmissions are found too); TLP sends a
 * probe at PTO = 2 SRTT (plus the minimum RTO with one segment out, plus 2 ms otherwise) so a lost
 * tail draws a SACK instead of waiting for the RTO.
 */
import { SEG_EVER_RETRANS, SEG_LOST, SEG_SACKED, type SentSegments } from './sent-segments.js';

/** include/net/tcp.h TCP_TIMEOUT_MIN_US (2 ms): the least a TCP timer adds (TLP, RACK reorder timer). */
export const TCP_TIMEOUT_MIN_PS = 2e9;
/** RFC 8985 section 6.2 step 4 / tcp_recovery.c tcp_rack_reo_wnd: reo_wnd = min_rtt / 4 (one step). */
const REO_WND_MIN_RTT_FRACTION = 1 / 4;
/** RFC 8985 section 6.2 / include/net/tcp.h TCP_FASTRETRANS_THRESH: DupThresh, 3 segments. */
export const DUP_THRESH = 3;

export class RackTlp {
  /** RACK.xmit_ts, RACK.end_seq, RACK.rtt of the most recently sent segment delivered; -1 none. */
  xmitPs = -1;
  endSeq = 0;
  rttPs = 0;
  private advanced = false;
  /** tp->reord_seen: this simulator's paths keep order, so only DSACKs could set it (not modelled). */
  readonly reordSeen = false;
  /** TLP.end_seq (tp->tlp_high_seq), -1 when no probe is outstanding; whether the probe was a retransmission. */
  tlpHighSeq = -1;
  tlpRetrans = false;
  probes = 0;

  /** tcp_rack_advance (RFC 8985 section 6.2 step 2): a delivered segment's send time. */
  advance(flags: number, endSeq: number, xmitPs: number, nowPs: number, minRttPs: number): void {
    if (this.xmitPs >= 0 && !(xmitPs > this.xmitPs || (xmitPs === this.xmitPs && endSeq > this.endSeq)))
      return;
    const rtt = nowPs - xmitPs;
    // A retransmission delivered sooner than min_rtt may be the original's delivery: ambiguous, skip.
    if (flags & SEG_EVER_RETRANS && rtt < minRttPs) return;
    this.rttPs = rtt;
    this.xmitPs = xmitPs;
    this.endSeq = endSeq;
    this.advanced = true;
  }

  /** tcp_rack_reo_wnd (RFC 8985 section 6.2 step 4): 0 in recovery or past DupThresh SACKed segments. */
  reoWnd(inRecovery: boolean, sackedSegments: number, minRttPs: number, srttPs: number): number {
    if (!this.reordSeen && (inRecovery || sackedSegments >= DUP_THRESH)) return 0;
    return Math.min(minRttPs * REO_WND_MIN_RTT_FRACTION, srttPs);
  }

  /**
   * tcp_rack_detect_loss (RFC 8985 section 6.2 step 5): mark lost what was sent before RACK.xmit_ts
   * and is overdue; returns the time until the next one is due (0: none), for the reorder timer.
   */
  detectLoss(segs: SentSegments, nowPs: number, reoWndPs: number, force = false): number {
    if (!this.advanced && !force) return 0;
    this.advanced = false;
    if (this.xmitPs < 0) return 0;
    let timeout = 0;
    for (let i = 0; i < segs.count; i++) {
      const k = segs.at(i);
      if (segs.flags[k]! & (SEG_SACKED | SEG_LOST)) continue;
      const xmit = segs.xmitPs[k]!;
      if (!(this.xmitPs > xmit || (this.xmitPs === xmit && this.endSeq > segs.end[k]!))) continue;
      const remaining = this.rttPs + reoWndPs - (nowPs - xmit);
      if (remaining <= 0) segs.markLost(k);
      else if (remaining > timeout) timeout = remaining;
    }
    return timeout;
  }

  /**
   * tcp_schedule_loss_probe: PTO = 2 SRTT, plus rto_min with one segment out (tp->packets_out == 1: the
   * ACK may be delayed), else plus 2 ms. `segmentsOut` counts MSS-sized segments, not TSO packets.
   */
  probeTimeout(srttPs: number, segmentsOut: number, minRtoPs: number): number {
    return 2 * srttPs + (segmentsOut === 1 ? minRtoPs : TCP_TIMEOUT_MIN_PS);
  }
}
