/**
 * Reno (RFC 5681) with appropriate byte counting (RFC 3465): slow start grows cwnd by at most
 * L = 2 SMSS per ACK, congestion avoidance by SMSS x acked / cwnd; a loss halves cwnd, as Linux
 * does (net/ipv4/tcp_cong.c tcp_reno_ssthresh), not the flight as RFC 5681 equation (4) says.
 * Growth happens only while cwnd is the limit; the sender checks that (tcp.ts isCwndLimited).
 */
import { BaseCongestionControl, type CcWindow } from './types.js';

/** RFC 3465 section 2.2: the slow-start increase limit L, in segments. */
export const ABC_LIMIT_SEGMENTS = 2;
/** Keeps a cwnd that is a whole number of segments up to rounding from losing one when halved (chosen: far below a segment). */
const WHOLE_SEGMENT_SLACK = 1e-9;

/** RFC 5681 slow start (with the RFC 3465 limit) and congestion avoidance, shared with DCTCP and CUBIC's slow start. */
export function renoSlowStart(w: CcWindow, ackedBytes: number): void {
  w.cwnd += Math.min(ackedBytes, ABC_LIMIT_SEGMENTS * w.mss);
}

export class RenoCc extends BaseCongestionControl {
  readonly name: 'reno' | 'dctcp' = 'reno';

  /**
   * net/ipv4/tcp_cong.c tcp_reno_ssthresh: max(snd_cwnd >> 1, 2), half of cwnd in whole segments
   * (Linux's snd_cwnd counts whole segments), at least 2. RFC 5681 equation (4) halves FlightSize
   * instead, which after an application- or NIC-limited stretch is far below cwnd.
   */
  ssthresh(w: CcWindow): number {
    return Math.max(Math.floor(w.cwnd / w.mss / 2 + WHOLE_SEGMENT_SLACK), 2) * w.mss;
  }

  congAvoid(w: CcWindow, ackedBytes: number): void {
    if (w.cwnd < w.ssthresh) {
      renoSlowStart(w, ackedBytes);
      return;
    }
    // RFC 5681 equation (3), per acknowledged byte.
    w.cwnd += (w.mss * ackedBytes) / w.cwnd;
  }
}
