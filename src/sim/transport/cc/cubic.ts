/**
 * CUBIC (RFC 9438) as Linux net/ipv4/tcp_cubic.c runs it: W(t) = C (t - K)^3 + W_max in segments,
 * t counted from the start of the epoch plus the minimum RTT (bictcp_update's delay_min), K from the
 * window at the epoch's start (RFC 9438 section 4.2), fast convergence (section 4.7), the
 * Reno-friendly estimate (section 4.3) and Linux's growth caps. Slow start is Reno's (ABC, L = 2);
 * HyStart is not modelled (docs/simulator.md).
 */
import { renoSlowStart } from './reno.js';
import { BaseCongestionControl, type CcWindow } from './types.js';

/** tcp_cubic.c: beta = 717 over BICTCP_BETA_SCALE 1024 (RFC 9438 section 4.6: 0.7). */
export const CUBIC_BETA = 717 / 1024;
/** tcp_cubic.c: bic_scale 41, cube_rtt_scale = bic_scale * 10 over 1024 (RFC 9438 section 4.2: C = 0.4). */
export const CUBIC_C = 410 / 1024;
/** RFC 9438 section 4.3: alpha_cubic = 3 (1 - beta) / (1 + beta), the Reno-friendly increase per RTT. */
const ALPHA_RENO_FRIENDLY = (3 * (1 - CUBIC_BETA)) / (1 + CUBIC_BETA);
/** tcp_cubic.c bictcp_update: in the plateau (target <= cwnd) one segment per 100 windows acked. */
const CNT_PLATEAU = 100;
/** tcp_cubic.c bictcp_update: while last_max_cwnd is 0, at least 20 ACKed windows per segment (5% per RTT). */
const CNT_NO_MAX = 20;
/** tcp_cubic.c bictcp_update: ca->cnt = max(ca->cnt, 2U), at most one segment per two acknowledged. */
const CNT_MIN = 2;

export class CubicCc extends BaseCongestionControl {
  readonly name = 'cubic' as const;
  /** tcp_cubic.c: fast_convergence = 1. */
  constructor(private readonly fastConvergence = true) {
    super();
  }
  /** last_max_cwnd, in segments (0: none). */
  wMaxSeg = 0;
  /** Start of the epoch in ps, -1 for none (epoch_start = 0). */
  epochStartPs = -1;
  /** bic_K in seconds and bic_origin_point in segments. */
  kS = 0;
  originSeg = 0;
  /** tcp_cwnd: the Reno-friendly estimate in segments (RFC 9438 W_est). */
  wEstSeg = 0;

  /** tcp_cubic.c cubictcp_recalc_ssthresh. */
  ssthresh(w: CcWindow): number {
    this.epochStartPs = -1;
    const cwndSeg = w.cwnd / w.mss;
    this.wMaxSeg =
      this.fastConvergence && cwndSeg < this.wMaxSeg ? (cwndSeg * (1 + CUBIC_BETA)) / 2 : cwndSeg;
    return Math.max(w.cwnd * CUBIC_BETA, 2 * w.mss);
  }

  /** tcp_cubic.c cubictcp_state(TCP_CA_Loss): bictcp_reset forgets W_max. */
  override onTimeout(): void {
    this.wMaxSeg = 0;
    this.epochStartPs = -1;
  }

  congAvoid(w: CcWindow, ackedBytes: number, nowPs: number, _srttPs: number, minRttPs: number): void {
    if (w.cwnd < w.ssthresh) {
      renoSlowStart(w, ackedBytes);
      return;
    }
    const cwndSeg = w.cwnd / w.mss;
    if (this.epochStartPs < 0) {
      this.epochStartPs = nowPs;
      if (this.wMaxSeg <= cwndSeg) {
        this.kS = 0;
        this.originSeg = cwndSeg;
      } else {
        this.kS = Math.cbrt((this.wMaxSeg - cwndSeg) / CUBIC_C);
        this.originSeg = this.wMaxSeg;
      }
      this.wEstSeg = cwndSeg;
    }
    const t = (nowPs - this.epochStartPs + minRttPs) / 1e12;
    const targetSeg = this.originSeg + CUBIC_C * (t - this.kS) ** 3;
    let cnt = targetSeg > cwndSeg ? cwndSeg / (targetSeg - cwndSeg) : CNT_PLATEAU * cwndSeg;
    if (this.wMaxSeg === 0 && cnt > CNT_NO_MAX) cnt = CNT_NO_MAX;
    const ackedSeg = ackedBytes / w.mss;
    this.wEstSeg += (ALPHA_RENO_FRIENDLY * ackedSeg) / cwndSeg;
    if (this.wEstSeg > cwndSeg) cnt = Math.min(cnt, cwndSeg / (this.wEstSeg - cwndSeg));
    cnt = Math.max(cnt, CNT_MIN);
    w.cwnd += (ackedSeg / cnt) * w.mss;
  }
}
