/**
 * PFC headroom: what an ingress queue must still absorb after it decides to pause its upstream
 * (IEEE 802.1Qbb; Cisco and NVIDIA headroom guides). Everything that reaches the port between the
 * decision and the moment the upstream has stopped:
 *   the pause frame waits for the frame being sent on the reverse link   (1 MTU)
 *   the pause frame itself                                               (84 B)
 *   propagation to the upstream and of its last bits back                (2 x cable delay x rate)
 *   the upstream's response time                                         (responseDelay x rate)
 *   the frame the upstream is in the middle of sending                   (1 MTU)
 * plus the frame that crossed the threshold (1 MTU).
 */
import { MIN_FRAME_WIRE_BYTES } from './wire.js';

/** 802.1Qbb maximum response delay in pause quanta per link speed, fastest first: 400G 905, 200G 453, 100G 394. */
const RESPONSE_QUANTA_BY_SPEED: readonly { minRateBps: number; quanta: number }[] = [
  { minRateBps: 400e9, quanta: 905 },
  { minRateBps: 200e9, quanta: 453 },
  { minRateBps: 100e9, quanta: 394 },
];
/** Below 100G the standard's table grows with speed; chosen: 10G and 25G/40G NICs quote about 100 or less. */
const RESPONSE_QUANTA_BELOW_100G = 100;
/** IEEE 802.3 Annex 31B (MAC Control PAUSE, which 802.1Qbb reuses): a pause quantum is 512 bit times. */
const PAUSE_QUANTUM_BITS = 512;
/** The MTU-sized frames of the bound below: on the reverse link, in progress upstream, and the one that crossed XOFF. */
const HEADROOM_MTU_FRAMES = 3;

/** 802.1Qbb maximum response delay in pause quanta (PAUSE_QUANTUM_BITS bit times) at `rateBps`. */
export function pfcResponseQuanta(rateBps: number): number {
  for (const tier of RESPONSE_QUANTA_BY_SPEED) if (rateBps >= tier.minRateBps) return tier.quanta;
  return RESPONSE_QUANTA_BELOW_100G;
}

export function defaultPfcResponseDelayNs(rateBps: number): number {
  return ((pfcResponseQuanta(rateBps) * PAUSE_QUANTUM_BITS) / rateBps) * 1e9;
}

export function pfcHeadroomBoundBytes(
  rateBps: number,
  cableDelayNs: number,
  mtuWireBytes: number,
  responseDelayNs: number,
): number {
  const bytesPerNs = rateBps / 8 / 1e9;
  return Math.ceil(
    2 * cableDelayNs * bytesPerNs +
      responseDelayNs * bytesPerNs +
      HEADROOM_MTU_FRAMES * mtuWireBytes +
      MIN_FRAME_WIRE_BYTES,
  );
}
