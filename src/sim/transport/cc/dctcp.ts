/**
 * DCTCP (Alizadeh et al., SIGCOMM 2010; RFC 8257) as Linux net/ipv4/tcp_dctcp.c: Reno growth (INET's
 * DcTcp extends TcpReno the same way), and once per window of data the marked fraction updates
 * alpha; an ECN echo cuts cwnd by alpha / 2 at most once per window (dctcp_ssthresh). A loss
 * halves cwnd as Reno's ssthresh does: Linux's dctcp_react_to_loss, run on entering Recovery
 * (dctcp_state) and on a timeout (dctcp_cwnd_event CA_EVENT_LOSS), sets max(snd_cwnd >> 1, 2).
 */
import { RenoCc } from './reno.js';
import type { CcWindow } from './types.js';

/** tcp_dctcp.c: dctcp_shift_g = 4, so g = 1/16. */
export const DCTCP_G = 1 / 16;
/** tcp_dctcp.c: dctcp_alpha_on_init = DCTCP_MAX_ALPHA, alpha starts at 1. */
const DCTCP_ALPHA_INIT = 1;

export class DctcpCc extends RenoCc {
  override readonly name = 'dctcp' as const;
  override readonly ecnCapable = true;
  alpha = DCTCP_ALPHA_INIT;
  private windowEnd = 0;
  private windowAcked = 0;
  private windowMarked = 0;
  private cwrEnd = 0;

  /** Fraction of marked bytes per window; at most one cut per window (tcp_dctcp.c dctcp_update_alpha). */
  override inAckEvent(
    w: CcWindow,
    ack: number,
    sndUna: number,
    sndMax: number,
    ece: boolean,
    inRecovery: boolean,
  ): void {
    const acked = Math.max(0, ack - sndUna);
    this.windowAcked += acked;
    if (ece) {
      this.windowMarked += Math.max(acked, 1);
      if (ack >= this.cwrEnd && !inRecovery) {
        w.cwnd = Math.max(w.cwnd * (1 - this.alpha / 2), 2 * w.mss);
        w.ssthresh = w.cwnd;
        this.cwrEnd = sndMax;
      }
    }
    if (ack >= this.windowEnd) {
      const fraction = this.windowAcked > 0 ? Math.min(1, this.windowMarked / this.windowAcked) : 0;
      this.alpha = (1 - DCTCP_G) * this.alpha + DCTCP_G * fraction;
      this.windowAcked = 0;
      this.windowMarked = 0;
      this.windowEnd = sndMax;
    }
  }
}
