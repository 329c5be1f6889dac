/**
 * TCP congestion avoidance rules, in bytes. Reno: RFC 5681 with appropriate byte counting
 * (RFC 3465, L = 2 SMSS). CUBIC: RFC 9438 (C = 0.4, beta = 0.7, with the Reno-friendly region).
 * DCTCP: Alizadeh et al., SIGCOMM 2010, as Linux net/ipv4/tcp_dctcp.c (g = 1/16, alpha starts at 1).
 */
export type CongestionControl = 'reno' | 'cubic' | 'dctcp';

export const CUBIC_C = 0.4;
export const CUBIC_BETA = 0.7;
export const DCTCP_G = 1 / 16;

export interface CcState {
  cwnd: number;
  ssthresh: number;
  mss: number;
  /** CUBIC: window before the last reduction (bytes), start of the epoch (ps, -1 none), K (s). */
  wMax: number;
  epochStartPs: number;
  cubicK: number;
  /** DCTCP: estimate of the marked fraction and the per-window counters. */
  dctcpAlpha: number;
}

/** Window growth on `acked` newly acknowledged bytes (outside recovery). */
export function growWindow(cc: CongestionControl, s: CcState, acked: number, nowPs: number, srttPs: number): void {
  if (s.cwnd < s.ssthresh) {
    s.cwnd += Math.min(acked, 2 * s.mss);
    return;
  }
  if (cc !== 'cubic') {
    s.cwnd += (s.mss * acked) / s.cwnd;
    return;
  }
  if (s.epochStartPs < 0) {
    s.epochStartPs = nowPs;
    const wMaxSeg = Math.max(s.wMax, s.cwnd) / s.mss;
    s.cubicK = Math.cbrt((wMaxSeg * (1 - CUBIC_BETA)) / CUBIC_C);
    if (s.wMax < s.cwnd) s.wMax = s.cwnd;
  }
  const t = (nowPs - s.epochStartPs + srttPs) / 1e12;
  const wCubic = (CUBIC_C * (t - s.cubicK) ** 3 + s.wMax / s.mss) * s.mss;
  // Reno-friendly estimate (RFC 9438 section 4.3) so CUBIC never does worse than Reno on short RTTs.
  const rttS = Math.max(srttPs, 1) / 1e12;
  const wEst = (s.wMax * CUBIC_BETA) + ((3 * (1 - CUBIC_BETA)) / (1 + CUBIC_BETA)) * (t / rttS) * s.mss;
  const target = Math.max(wCubic, wEst);
  if (target > s.cwnd) s.cwnd += (s.mss * (target - s.cwnd)) / s.cwnd * (acked / s.mss);
  else s.cwnd += (s.mss * acked) / (100 * s.cwnd);
}

/** Multiplicative decrease on loss (fast retransmit or timeout): the new ssthresh in bytes. */
export function lossThreshold(cc: CongestionControl, s: CcState, flightBytes: number): number {
  if (cc === 'cubic') {
    s.wMax = s.cwnd;
    s.epochStartPs = -1;
    return Math.max(s.cwnd * CUBIC_BETA, 2 * s.mss);
  }
  return Math.max(flightBytes / 2, 2 * s.mss);
}
