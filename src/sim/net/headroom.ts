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

/** 802.1Qbb maximum response delay in pause quanta (512 bit times) per speed: 100G 394, 200G 453, 400G 905. */
export function pfcResponseQuanta(rateBps: number): number {
  if (rateBps >= 400e9) return 905;
  if (rateBps >= 200e9) return 453;
  if (rateBps >= 100e9) return 394;
  // Below 100G the standard's table grows with speed; 10G and 25G/40G NICs quote about 100 or less.
  return 100;
}

export function defaultPfcResponseDelayNs(rateBps: number): number {
  return ((pfcResponseQuanta(rateBps) * 512) / rateBps) * 1e9;
}

export function pfcHeadroomBoundBytes(
  rateBps: number,
  cableDelayNs: number,
  mtuWireBytes: number,
  responseDelayNs: number,
): number {
  const bytesPerNs = rateBps / 8 / 1e9;
  return Math.ceil(
    2 * cableDelayNs * bytesPerNs + responseDelayNs * bytesPerNs + 3 * mtuWireBytes + MIN_FRAME_WIRE_BYTES,
  );
}
