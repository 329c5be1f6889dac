/** Acceptance: a lone flow on an idle path runs at the payload rate the wire allows. */
import { describe, expect, it } from 'vitest';
import { roceWireBytes, tcpWireBytes } from '../../src/sim/net/wire.js';
import { sampledRateBps, simulate } from './helpers.js';

const star = { kind: 'star', hosts: 2, linkRate: '100Gbps', linkDelay: '2us' };

describe('single flow on an idle path', () => {
  it('RoCE completes in size / payload rate + path delay, within 1%', () => {
    const size = 8 * 1024 * 1024;
    const { run } = simulate({
      topology: star,
      switch: { buffer: '1MiB', pfc: {} },
      transport: { kind: 'roce' },
      workloads: [{ kind: 'flow', src: 0, dst: 1, size }],
    });
    const payloadRate = (100e9 * 4096) / roceWireBytes(4096);
    // Path delay: two 2 us cables plus the store-and-forward of the last packet at the switch.
    const pathDelayS = 2 * 2e-6 + (roceWireBytes(4096) * 8) / 100e9;
    const expectedUs = ((size * 8) / payloadRate + pathDelayS) * 1e6;
    const fctUs = (run.sim.connections[0]!.lastDeliveryPs - 0) / 1e6;
    expect(run.status).toBe('done');
    expect(Math.abs(fctUs - expectedUs) / expectedUs).toBeLessThan(0.01);
    expect(run.sim.drops).toBe(0);
  });

  for (const cc of ['reno', 'cubic', 'dctcp'] as const) {
    it(`a long TCP (${cc}) flow reaches at least 99% of the payload rate after slow start`, () => {
      const size = 48 * 1024 * 1024;
      const { run } = simulate({
        topology: star,
        switch: { buffer: '1MiB', ecn: { kmin: '64KiB', kmax: '64KiB', pmax: 1 } },
        transport: { kind: 'tcp', tcp: { cc } },
        workloads: [{ kind: 'flow', src: 0, dst: 1, size }],
      });
      const end = run.sim.connections[0]!.lastDeliveryPs;
      const payloadRate = (100e9 * 1460) / tcpWireBytes(1460);
      // Second half of the transfer: well past slow start (which lasts a few tens of microseconds).
      const rate = sampledRateBps(run, 0, end / 2, end);
      expect(rate / payloadRate).toBeGreaterThanOrEqual(0.99);
      expect(rate / payloadRate).toBeLessThanOrEqual(1.0001);
      expect(run.sim.deliveredBytes).toBe(size);
    });
  }
});
