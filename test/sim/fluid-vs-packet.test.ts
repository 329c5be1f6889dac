/** Acceptance: fluid mode agrees with packet mode within 5% on bandwidth-bound collectives. */
import { describe, expect, it } from 'vitest';
import { runScenario } from '../../src/sim/run.js';
import { scenarioOf } from './helpers.js';

function completionUs(raw: Record<string, unknown>, mode: 'packet' | 'fluid'): number {
  const result = runScenario(scenarioOf(raw), { mode });
  expect(result.metrics.status).toBe('done');
  return result.metrics.completionTimeUs!;
}

const cases: [string, Record<string, unknown>][] = [
  [
    'ring all_reduce, 32 hosts, leaf-spine, RoCE',
    {
      topology: {
        kind: 'leaf-spine',
        hosts: 32,
        hostsPerLeaf: 8,
        spines: 4,
        linkRate: '100Gbps',
        linkDelay: '1us',
      },
      switch: { buffer: '1MiB', pfc: {} },
      transport: { kind: 'roce' },
      workloads: [{ kind: 'allreduce', size: '8MiB', iterations: 1 }],
    },
  ],
  [
    'ring all_gather, 64 hosts, leaf-spine, RoCE',
    {
      topology: {
        kind: 'leaf-spine',
        hosts: 64,
        hostsPerLeaf: 16,
        spines: 4,
        linkRate: '100Gbps',
        linkDelay: '1us',
      },
      switch: { buffer: '1MiB', pfc: {} },
      transport: { kind: 'roce' },
      workloads: [{ kind: 'allgather', size: '16MiB', iterations: 1 }],
    },
  ],
  [
    'ring all_gather, 16 hosts, star, TCP',
    {
      topology: { kind: 'star', hosts: 16, linkRate: '100Gbps', linkDelay: '1us' },
      switch: { buffer: '1MiB' },
      transport: { kind: 'tcp', tcp: { ackEvery: 2 } },
      workloads: [{ kind: 'allgather', size: '32MiB', iterations: 2 }],
    },
  ],
];

describe('fluid mode against packet mode', () => {
  for (const [name, raw] of cases) {
    it(`${name}: completion time within 5%`, () => {
      const packet = completionUs(raw, 'packet');
      const fluid = completionUs(raw, 'fluid');
      expect(Math.abs(fluid - packet) / packet).toBeLessThan(0.05);
    });
  }

  it('fluid mode sees ECMP and oversubscription: a 4:1 oversubscribed permutation takes longer', () => {
    const raw = (oversubscription: number) => ({
      topology: {
        kind: 'leaf-spine',
        hosts: 16,
        hostsPerLeaf: 4,
        spines: 2,
        oversubscription,
        linkRate: '100Gbps',
        linkDelay: '1us',
      },
      switch: { buffer: '1MiB' },
      transport: { kind: 'roce' },
      workloads: [{ kind: 'permutation', size: '16MiB' }],
    });
    expect(completionUs(raw(4), 'fluid')).toBeGreaterThan(2 * completionUs(raw(1), 'fluid'));
  });
});
