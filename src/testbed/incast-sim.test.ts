import { describe, expect, it } from 'vitest';
import { runScenario } from '../sim/index.js';
import { incastScenario, incastSimSettings, testbedRingScenario, testbedTcpSettings } from './incast-sim.js';

const settings = testbedTcpSettings({ rateBps: 200e6, bufferBytes: 1 << 20, cc: 'reno', minRttUs: 100 });

describe('the simulator given the testbed settings', () => {
  it('takes the kernel TCP of the testbed and a cable of a quarter of its round trip', () => {
    expect(settings).toMatchObject({
      uplinkRateBps: 10e9,
      mssBytes: 1448,
      tsoSegments: 4,
      ackEvery: 2,
      quickAcks: 16,
      initialCwnd: 10,
      minRtoS: 0.2,
    });
    expect(settings.linkDelayS).toBeCloseTo(25e-6, 12);
    // Without a measured round trip, the fallback cable (10 us) rather than a guess from elsewhere.
    expect(
      testbedTcpSettings({ rateBps: 200e6, bufferBytes: 1 << 20, cc: 'bbr', minRttUs: null }).linkDelayS,
    ).toBe(10e-6);
  });

  it('ring under loss: htb ports at the rate, the veth host side, loss and the fault hop on every host, the ring all_reduce', () => {
    const scenario = testbedRingScenario(settings, {
      hosts: 4,
      sizeBytes: 1 << 24,
      iterations: 25,
      lossRate: 0.01,
    });
    expect(scenario.topology).toMatchObject({
      kind: 'star',
      hosts: 4,
      linkRate: 200e6,
      uplinkRate: 10e9,
      ports: 'htb',
      faultHops: [0, 1, 2, 3],
    });
    expect(scenario.faults).toEqual([0, 1, 2, 3].map((host) => ({ host, loss: 0.01 })));
    expect(scenario.workloads).toMatchObject([{ kind: 'allreduce', size: 1 << 24, iterations: 25 }]);
    expect(scenario.transport.tcp).toMatchObject({ cc: 'reno', mss: 1448, tsoSegments: 4, rack: true });
  });

  it('host-shaped: every cable at the port rate, no htb port, no loss fault when the rate is 0', () => {
    const scenario = testbedRingScenario(settings, {
      hosts: 4,
      sizeBytes: 1 << 20,
      iterations: 2,
      lossRate: 0,
      shapedAt: 'host',
    });
    expect(scenario.topology).not.toHaveProperty('uplinkRate');
    expect(scenario.topology).not.toHaveProperty('ports');
    expect(scenario.topology).not.toHaveProperty('faultHops');
    expect(scenario.faults ?? []).toEqual([]);
  });

  it('the incast keeps the same ports and TCP, around its senders and receiver', () => {
    const incast = incastScenario(
      incastSimSettings({
        rateBps: 100e6,
        bufferBytes: 65536,
        blockBytes: 65536,
        rounds: 2,
        cc: 'bbr',
        minRttUs: 40,
      }),
      3,
    );
    expect(incast.topology).toMatchObject({ hosts: 4, uplinkRate: 10e9, ports: 'htb' });
    expect(incast.workloads).toMatchObject([{ kind: 'incast', receiver: 0, senders: 3, rounds: 2 }]);
    expect(incast.transport.tcp).toMatchObject({ cc: 'bbr', tsoSegments: 4 });
  });

  it('a small ring with loss runs to the end, drops and retransmits, and moves every byte', () => {
    const scenario = testbedRingScenario(settings, {
      hosts: 4,
      sizeBytes: 1 << 20,
      iterations: 2,
      lossRate: 0.02,
    });
    const { metrics } = runScenario(scenario, { seed: 1 });
    expect(metrics.completed).toBe(true);
    expect(metrics.drops).toBeGreaterThan(0);
    expect(metrics.retransmittedPackets).toBeGreaterThan(0);
    expect(metrics.bytesDelivered).toBe(metrics.bytesOfferedByApp);
  });
});

describe("the simulator's seeds for a testbed incast", () => {
  it('draw BBR differently (its random PROBE_BW phase, as Linux draws it per connection), and each repeats', () => {
    const incast = incastScenario(
      incastSimSettings({
        rateBps: 100e6,
        bufferBytes: 128 * 1024,
        blockBytes: 256 * 1024,
        rounds: 20,
        cc: 'bbr',
        minRttUs: 49,
      }),
      4,
    );
    const outcome = (seed: number): string => {
      const { metrics } = runScenario(incast, { seed });
      return `${metrics.drops}/${metrics.timeouts}/${String(metrics.workloads[0]?.goodputGbps)}`;
    };
    const seeds = [1, 2, 3, 4, 5].map(outcome);
    expect(new Set(seeds).size).toBeGreaterThan(1);
    expect(outcome(2)).toBe(seeds[1]);
  });
});

describe("senders that start one after another (the testbed's measured start gap)", () => {
  const settings8 = incastSimSettings({
    rateBps: 100e6,
    bufferBytes: 128 * 1024,
    blockBytes: 256 * 1024,
    rounds: 20,
    cc: 'reno',
    minRttUs: 15,
  });

  it('the scenario takes the gap as startGap; without one, the senders start together', () => {
    expect(incastScenario(settings8, 8, 100).workloads).toMatchObject([{ kind: 'incast', startGap: 100e-6 }]);
    expect(incastScenario(settings8, 8).workloads).toMatchObject([{ kind: 'incast', startGap: 0 }]);
  });

  it('a whole flight arriving after the port filled loses its tail to the probe or the RTO: more probes and timeouts than interleaved flights', () => {
    const together = runScenario(incastScenario(settings8, 8), { seed: 1 }).metrics;
    const staggered = runScenario(incastScenario(settings8, 8, 100), { seed: 1 }).metrics;
    expect(staggered.timeouts ?? 0).toBeGreaterThan(together.timeouts ?? 0);
    expect(staggered.workloads[0]?.goodputGbps).toBeLessThan(together.workloads[0]?.goodputGbps as number);
    // The order is drawn from the seed: the same seed repeats.
    expect(runScenario(incastScenario(settings8, 8, 100), { seed: 1 }).metrics.timeouts).toBe(
      staggered.timeouts,
    );
  });

  it('measured start offsets replace the gap: each round replayed in turn, senders handed them in a random order', () => {
    const two = { ...settings8, rounds: 2, blockBytes: 16 * 1024 };
    // Rows of the wrong length (a round a server missed) are left out.
    const scenario = incastScenario(two, 2, 100, [
      [0, 5000],
      [0, 1, 2],
      [0, 8000],
    ]);
    expect(scenario.workloads).toMatchObject([
      {
        kind: 'incast',
        startOffsets: [
          [0, 5e-3],
          [0, 8e-3],
        ],
      },
    ]);
    expect(scenario.workloads[0]).toMatchObject({ startGap: 0 });
    const rounds = runScenario(scenario, { seed: 1 }).metrics.workloads[0]?.roundTimeUs as number[];
    // 16 KiB at 100 Mb/s takes 1.3 ms; the second sender waits 5 ms, then 8 ms.
    expect(rounds[0]).toBeGreaterThan(5000);
    expect(rounds[0]).toBeLessThan(8000);
    expect(rounds[1]).toBeGreaterThan(8000);
    const together = runScenario(incastScenario(two, 2), { seed: 1 }).metrics.workloads[0]
      ?.roundTimeUs as number[];
    expect(together[0]).toBeLessThan(5000);
  });

  it('fluid mode says it starts every sender at once', () => {
    const { warnings } = runScenario(incastScenario(settings8, 2, 100), { seed: 1, mode: 'fluid' });
    expect((warnings ?? []).some((w) => w.includes('startGap') && w.includes('packet mode only'))).toBe(true);
  });
});
