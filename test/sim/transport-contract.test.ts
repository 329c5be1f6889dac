/**
 * One contract every TCP congestion control passes, with and without RACK-TLP (as hono's routers
 * share one suite): a lone flow fills its link, two flows share a bottleneck fairly, every offered
 * byte is delivered exactly once through heavy incast loss, and the same seed gives the same result.
 * A flavour that legitimately differs is listed in SKIP with the reason. The flavour variants pin
 * the receiver this suite was written for (an ACK per segment, no quick-ACK mode); `default` runs
 * an unconfigured scenario (this kernel's TCP: BBR, RACK-TLP, delayed and quick ACKs).
 */
import { describe, expect, it } from 'vitest';
import { simFingerprint } from '../../src/sim/fingerprint.js';
import { tcpWireBytes } from '../../src/sim/net/wire.js';
import { runScenario } from '../../src/sim/run.js';
import { CC_NAMES, type CcName } from '../../src/sim/transport/cc/types.js';
import { sampledRateBps, scenarioOf, simulate } from './helpers.js';

type Check = 'link rate' | 'fairness' | 'conservation' | 'determinism';

const BBR_SHALLOW =
  'BBR v1 keeps 2 BDP + 3 TSO bursts (about 190 KB at 10 Gb/s) in flight whatever the loss, more than a 64 KiB buffer holds, so the flow that loses first starves (tcp_bbr.c; Hock et al., ICNP 2017); the BBR fairness test below uses a 1 MiB buffer';

/** Flavour (and RACK-TLP) combinations that legitimately fail a check, with why. */
const SKIP: Partial<Record<`${CcName}${'' | '+rack'}` | 'default', Partial<Record<Check, string>>>> = {
  'cubic+rack': {
    fairness:
      'one flow spends its first 6.7 ms in recovery at 0.2 Gb/s while the other runs alone at its NIC rate, where Linux grows no cwnd (tcp_is_cwnd_limited), so CUBIC converges by 8 ms rather than 5 and this 20 ms window reads Jain 0.889 (0.977 while cwnd grew regardless); equal shares after 8 ms; cubic without RACK passes (0.999), reno+rack 0.944',
  },
  bbr: { fairness: BBR_SHALLOW },
  'bbr+rack': { fairness: BBR_SHALLOW },
  default: { fairness: BBR_SHALLOW },
};

const variants: { name: keyof typeof SKIP; bbr: boolean; tcp: Record<string, unknown> }[] = [
  ...CC_NAMES.flatMap((cc) =>
    [false, true].map((rack) => ({
      name: `${cc}${rack ? '+rack' : ''}` as const,
      bbr: cc === 'bbr',
      tcp: { cc, rack, ackEvery: 1, quickAcks: 0 },
    })),
  ),
  { name: 'default', bbr: true, tcp: {} },
];
const ecn = { kmin: '32KiB', kmax: '32KiB', pmax: 1 };

for (const v of variants) {
  describe(`TCP ${v.name}`, () => {
    const skip = SKIP[v.name] ?? {};
    const test = (check: Check, title: string, body: () => void): void => {
      const reason = skip[check];
      if (reason) it.skip(`${title} (skipped: ${reason})`, body);
      else it(title, body);
    };
    const tcp = v.tcp;

    test('link rate', 'a lone flow reaches 95% of the payload rate after start-up', () => {
      const size = 16 * 1024 * 1024;
      const { run } = simulate({
        topology: { kind: 'star', hosts: 2, linkRate: '10Gbps', linkDelay: '2us' },
        switch: { buffer: '512KiB', ecn },
        transport: { kind: 'tcp', tcp },
        workloads: [{ kind: 'flow', src: 0, dst: 1, size }],
      });
      const end = run.sim.connections[0]!.lastDeliveryPs;
      const payloadRate = (10e9 * 1460) / tcpWireBytes(1460);
      const rate = sampledRateBps(run, 0, end / 2, end);
      expect(rate / payloadRate).toBeGreaterThanOrEqual(0.95);
      expect(rate / payloadRate).toBeLessThanOrEqual(1.0001);
    });

    const fairness = (buffer: string): void => {
      const size = 16 * 1024 * 1024;
      const { run } = simulate({
        topology: { kind: 'star', hosts: 3, linkRate: '10Gbps', linkDelay: '2us' },
        switch: { buffer, ecn },
        transport: { kind: 'tcp', tcp: { ...tcp, minRto: '1ms' } },
        workloads: [
          { kind: 'flow', src: 1, dst: 0, size },
          { kind: 'flow', src: 2, dst: 0, size },
        ],
        sim: { sampleInterval: '20us' },
      });
      // While both run: from 10% to 90% of the first finisher's completion.
      const firstEnd = Math.min(
        run.sim.connections[0]!.lastDeliveryPs,
        run.sim.connections[1]!.lastDeliveryPs,
      );
      const a = sampledRateBps(run, 0, 0.1 * firstEnd, 0.9 * firstEnd);
      const b = sampledRateBps(run, 1, 0.1 * firstEnd, 0.9 * firstEnd);
      const jain = (a + b) ** 2 / (2 * (a * a + b * b));
      expect(jain).toBeGreaterThanOrEqual(0.9);
      expect((a + b) / ((10e9 * 1460) / tcpWireBytes(1460))).toBeGreaterThanOrEqual(0.9);
    };
    test('fairness', 'two flows into one 64 KiB port share it (Jain index >= 0.9) and keep it 90% busy', () =>
      fairness('64KiB'),
    );
    if (v.bbr)
      it('two BBR flows into one 1 MiB port share it (Jain index >= 0.9) and keep it 90% busy', () =>
        fairness('1MiB'));

    test('conservation', 'a 12-to-1 incast with heavy loss delivers every byte once, and ends', () => {
      const { run } = simulate({
        topology: { kind: 'star', hosts: 13, linkRate: '1Gbps', linkDelay: '10us' },
        switch: { buffer: '64KiB', sharing: 'static', ecn },
        transport: { kind: 'tcp', tcp: { ...tcp, minRto: '1ms' } },
        workloads: [{ kind: 'incast', senders: 12, blockSize: '96KiB', rounds: 3 }],
      });
      expect(run.status).toBe('done');
      expect(run.sim.drops).toBeGreaterThan(0);
      expect(run.sim.deliveredBytes).toBe(run.sim.offeredBytes);
      for (const conn of run.sim.connections) expect(conn.delivered).toBe(conn.appLimit);
      // Every drop is repaired by a retransmission.
      expect(run.sim.counters.retransmittedPackets).toBeGreaterThanOrEqual(run.sim.drops);
    });

    test('determinism', 'the same seed gives the same envelope; the run depends on nothing else', () => {
      const scenario = scenarioOf({
        topology: {
          kind: 'leaf-spine',
          hosts: 8,
          hostsPerLeaf: 4,
          spines: 2,
          linkRate: '10Gbps',
          linkDelay: '1us',
        },
        switch: { buffer: '64KiB', ecn },
        transport: { kind: 'tcp', tcp: { ...tcp, minRto: '1ms' } },
        workloads: [{ kind: 'incast', senders: 7, blockSize: '64KiB', rounds: 2 }],
      });
      const a = simFingerprint(runScenario(scenario, { seed: 3 }));
      expect(simFingerprint(runScenario(scenario, { seed: 3 }))).toBe(a);
    });
  });
}
