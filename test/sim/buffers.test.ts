/** Switch buffer accounting: dynamic thresholds, XOFF/XON with headroom, lossless drops only past headroom. */
import { describe, expect, it } from 'vitest';
import { ADMIT_DROP, ADMIT_HEADROOM, ADMIT_SHARED, SwitchBuffers } from '../../src/sim/net/buffers.js';
import { buildTopology } from '../../src/sim/topo/index.js';
import { CLS_LOSSLESS } from '../../src/sim/transport/connection.js';

const topology = buildTopology({ kind: 'star', hosts: 4, linkRateBps: 100e9, linkDelayNs: 1000 });
const SWITCH = 4;
const INGRESS = 0; // h0 -> switch

function make(headroom: number, xoffAlpha: number, sharing: 'static' | 'dynamic' = 'dynamic') {
  const pauses: [number, boolean][] = [];
  const headroomBytes = new Float64Array(topology.links.length);
  for (const link of topology.links) if (link.to === SWITCH) headroomBytes[link.id] = headroom;
  const buffers = new SwitchBuffers(
    topology,
    {
      bufferPerPortBytes: 100_000,
      sharing,
      dtAlpha: 1,
      ecn: { kminBytes: 10_000, kmaxBytes: 50_000, pmax: 0.2 },
      pfc: {
        headroomBytes,
        responseDelayPs: new Float64Array(topology.links.length),
        xoffAlpha,
        resumeOffsetBytes: 2000,
      },
      mtuWireBytes: 1000,
    },
    (ingress, on) => pauses.push([ingress, on]),
  );
  return { buffers, pauses };
}

describe('SwitchBuffers', () => {
  it('reserves headroom out of the pool', () => {
    const { buffers } = make(20_000, 0);
    expect(buffers.poolBytes[SWITCH]).toBe(4 * 100_000 - 4 * 20_000);
  });

  it('pauses past static XOFF, fills headroom, drops only beyond it, resumes once drained', () => {
    const { buffers, pauses } = make(5000, 0);
    // Static XOFF: pool / ports = (400,000 - 4 x 5,000) / 4 = 95,000 B per ingress.
    let shared = 0;
    while (buffers.admitLossless(SWITCH, INGRESS, 1000) === ADMIT_SHARED) shared++;
    expect(shared).toBe(95);
    expect(pauses).toEqual([[INGRESS, true]]);
    // The 96th went to headroom; four more fit, the sixth beyond XOFF is dropped.
    for (let i = 0; i < 4; i++) expect(buffers.admitLossless(SWITCH, INGRESS, 1000)).toBe(ADMIT_HEADROOM);
    expect(buffers.admitLossless(SWITCH, INGRESS, 1000)).toBe(ADMIT_DROP);
    // Draining: headroom first, then shared; resume once 2 MTU below XOFF.
    for (let i = 0; i < 5; i++) buffers.release(SWITCH, CLS_LOSSLESS, INGRESS, 1000);
    expect(pauses).toHaveLength(1);
    buffers.release(SWITCH, CLS_LOSSLESS, INGRESS, 1000);
    buffers.release(SWITCH, CLS_LOSSLESS, INGRESS, 1000);
    expect(pauses).toEqual([
      [INGRESS, true],
      [INGRESS, false],
    ]);
  });

  it('dynamic threshold: a lossy queue may hold alpha x the free buffer', () => {
    const { buffers } = make(0, 0);
    const pool = buffers.poolBytes[SWITCH]!;
    let queue = 0;
    while (buffers.admitLossy(SWITCH, queue, 1000) !== ADMIT_DROP) queue += 1000;
    // q <= alpha (B - q) with alpha = 1: half the pool.
    expect(queue).toBe(Math.floor(pool / 2 / 1000) * 1000);
  });

  it('RED marking probability between Kmin and Kmax', () => {
    const { buffers } = make(0, 0);
    expect(buffers.markProbability(10_000)).toBe(0);
    expect(buffers.markProbability(30_000)).toBeCloseTo(0.1, 10);
    expect(buffers.markProbability(50_000)).toBe(1);
  });
});
