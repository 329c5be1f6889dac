/**
 * Acceptance: a ring all_reduce on an uncongested fabric matches the alpha-beta ring model,
 * T = 2(N-1)/N x S/B + 2(N-1) x alpha, within 3%, with B the payload rate after headers and alpha
 * the one-way latency of a ring hop (cables plus store-and-forward of one packet per switch).
 * Headers include the ACK stream each NIC sends back to its predecessor on the same link.
 */
import { describe, expect, it } from 'vitest';
import { roceWireBytes, tcpWireBytes } from '../../src/sim/net/wire.js';
import { simulate } from './helpers.js';

function ringAllReduceModelUs(n: number, sizeBytes: number, payloadBps: number, alphaS: number): number {
  return ((2 * (n - 1)) / n) * ((sizeBytes * 8) / payloadBps) * 1e6 + 2 * (n - 1) * alphaS * 1e6;
}

describe('ring all_reduce against the alpha-beta model', () => {
  for (const transport of ['roce', 'tcp'] as const) {
    it(`${transport}: 8 ranks on a leaf-spine, within 3% of T = 2(N-1)/N S/B + 2(N-1) alpha`, () => {
      const n = 8;
      const size = 32 * 1024 * 1024;
      const { run, topology } = simulate({
        topology: {
          kind: 'leaf-spine',
          hosts: n,
          hostsPerLeaf: 4,
          spines: 2,
          linkRate: '100Gbps',
          linkDelay: '1us',
        },
        switch: { buffer: '1MiB', ...(transport === 'roce' ? { pfc: {} } : {}) },
        transport: { kind: transport, tcp: { cc: 'cubic', ackEvery: 2 } },
        workloads: [{ kind: 'allreduce', size, iterations: 1 }],
      });
      expect(run.status).toBe('done');
      expect(run.sim.drops).toBe(0);
      const wire = transport === 'roce' ? roceWireBytes(4096) : tcpWireBytes(1460);
      const payload = transport === 'roce' ? 4096 : 1460;
      // Each rank's NIC also carries the ACKs it returns to its predecessor: a TCP ACK (84 B on the
      // wire) per two segments with delayed ACKs; RoCE coalesces one per 16 packets.
      const ackShare = transport === 'roce' ? 84 / 16 : 84 / 2;
      const payloadBps = (100e9 * payload) / (wire + ackShare);
      // alpha: mean over the ring's hops of cable delays plus one packet's serialisation per switch.
      let alphaS = 0;
      for (const conn of run.sim.connections) {
        const route = Array.from(conn.forward);
        alphaS += route.reduce((sum, id) => sum + topology.links[id]!.delayNs * 1e-9, 0);
        alphaS += route.slice(1).reduce((sum, id) => sum + (wire * 8) / topology.links[id]!.rateBps, 0);
      }
      alphaS /= run.sim.connections.length;
      const modelUs = ringAllReduceModelUs(n, size, payloadBps, alphaS);
      const simUs = (run.workloads[0]!.report().metrics.iterationTimeUs as number[])[0]!;
      expect(Math.abs(simUs - modelUs) / modelUs).toBeLessThan(0.03);
    });
  }

  it('per-rank step times over iterations expose compute jitter as a straggler penalty', () => {
    const scenario = (jitter: string) => ({
      topology: { kind: 'star', hosts: 4, linkRate: '100Gbps', linkDelay: '1us' },
      switch: { buffer: '1MiB', pfc: {} },
      transport: { kind: 'roce' },
      workloads: [{ kind: 'allreduce', size: '1MiB', iterations: 3, compute: { mean: '50us', jitter } }],
    });
    const calm = simulate(scenario('0us')).run.workloads[0]!.report();
    const noisy = simulate(scenario('20us')).run.workloads[0]!.report();
    expect(calm.metrics.stragglerPenaltyUs).toBe(0);
    expect(noisy.metrics.stragglerPenaltyUs as number).toBeGreaterThan(1);
    const points = noisy.series![0]!.points;
    expect(points).toHaveLength(3 * 4);
    expect(points.every((p) => (p.stepTimeUs as number) > (p.collectiveTimeUs as number))).toBe(true);
  });
});
