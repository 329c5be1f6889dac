/**
 * Reno (RFC 5681) with appropriate byte counting (RFC 3465): slow start grows cwnd by at most
 * L = 2 SMSS per ACK, congestion avoidance by SMSS x acked / cwnd; a loss halves the flight.
 */
import { BaseCongestionControl, type CcWindow } from './types.js';

/** RFC 3465 section 2.2: the slow-start increase limit L, in segments. */
export const ABC_LIMIT_SEGMENTS = 2;

/** RFC 5681 slow start (with the RFC 3465 limit) and congestion avoidance, shared with DCTCP and CUBIC's slow start. */
export function renoSlowStart(w: CcWindow, ackedBytes: number): void {
  w.cwnd += Math.min(ackedBytes, ABC_LIMIT_SEGMENTS * w.mss);
}

export class RenoCc extends BaseCongestionControl {
  readonly name: 'reno' | 'dctcp' = 'reno';

  /** RFC 5681 equation (4): ssthresh = max(FlightSize / 2, 2 SMSS). */
  ssthresh(w: CcWindow, flightBytes: number): number {
    return Math.max(flightBytes / 2, 2 * w.mss);
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
