/** The congestion controls, one per file, behind one interface (types.ts). */
import { BbrCc } from './bbr.js';
import { CubicCc } from './cubic.js';
import { DctcpCc } from './dctcp.js';
import { RenoCc } from './reno.js';
import type { CcName, CcWindow, CongestionControl } from './types.js';

export { CC_NAMES, type CcName, type CcWindow, type CongestionControl, type RateSample } from './types.js';
export { BbrCc, BBR_CWND_MIN_SEGMENTS, BBR_PROBE_RTT, BBR_PROBE_BW, BBR_STARTUP, BBR_DRAIN } from './bbr.js';
export { CubicCc, CUBIC_BETA, CUBIC_C } from './cubic.js';
export { DctcpCc } from './dctcp.js';
export { RenoCc } from './reno.js';

export interface CcContext {
  /** The idle path's round trip (the handshake's RTT sample), ps. */
  initialRttPs: number;
  /** Per-connection seed for the flavours that draw (BBR's first PROBE_BW phase). */
  seed: number;
}

export function createCongestionControl(name: CcName, w: CcWindow, context: CcContext): CongestionControl {
  switch (name) {
    case 'reno':
      return new RenoCc();
    case 'cubic':
      return new CubicCc();
    case 'dctcp':
      return new DctcpCc();
    case 'bbr':
      return new BbrCc(w, { initialRttPs: context.initialRttPs, seed: context.seed });
  }
}
