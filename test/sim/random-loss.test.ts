/**
 * Random loss on a host's port (scenario `faults: [{ host, loss }]`), the simulator's side of the
 * testbed's `--fault hK:loss=P`: packets on that host's cable, both directions, lost at that rate;
 * TCP still delivers every byte; a scenario that loses nothing keeps its random sequence.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { parseScenario } from '../../src/sim/scenario.js';
import { simulate } from './helpers.js';

const size = 8 * 1024 * 1024;
const base = {
  topology: { kind: 'star', hosts: 3, linkRate: '1Gbps', linkDelay: '10us' },
  switch: { buffer: '1MiB' },
  transport: { kind: 'tcp' },
  workloads: [
    { kind: 'flow', src: 0, dst: 1, size },
    { kind: 'flow', src: 2, dst: 0, size },
  ],
};

describe('random loss on a host port', () => {
  it('loses about that share of the packets on the host cable, and nothing elsewhere; TCP still delivers every byte', () => {
    const { run, topology } = simulate({ ...base, faults: [{ host: 1, loss: 0.01 }] });
    expect(run.status).toBe('done');
    expect(run.sim.deliveredBytes).toBe(2 * size);
    // Host 1's cable carries the data of flow 0 -> 1 (about size / 1460 segments) and its ACKs (one per two).
    const packets = (size / 1460) * 1.5;
    expect(run.sim.randomDrops).toBeGreaterThan(0.5 * 0.01 * packets);
    expect(run.sim.randomDrops).toBeLessThan(2 * 0.01 * packets);
    for (const link of topology.links) {
      const drops = run.sim.dropsByLink[link.id]!;
      if (link.from !== 1 && link.to !== 1) expect(drops).toBe(0);
    }
    expect(run.sim.drops).toBe(run.sim.randomDrops);
  });

  it('loss 0 changes nothing: the same run, packet for packet, as without the fault', () => {
    const plain = simulate(base).run;
    const zero = simulate({ ...base, faults: [{ host: 1, loss: 0 }] }).run;
    expect(zero.sim.now).toBe(plain.sim.now);
    expect(zero.sim.packetHops).toBe(plain.sim.packetHops);
    expect(zero.sim.drops).toBe(0);
  });

  it('the lossy flow finishes later than its twin on a clean port', () => {
    const { run } = simulate({ ...base, faults: [{ host: 1, loss: 0.01 }] });
    const lossy = run.sim.connections[0]!.lastDeliveryPs;
    const clean = run.sim.connections[1]!.lastDeliveryPs;
    expect(lossy).toBeGreaterThan(clean);
  });
});

describe('bad faults', () => {
  const text = (faults: string): string =>
    `name: t\ntopology:\n  kind: star\n  hosts: 2\n  linkRate: 1Gbps\nswitch:\n  buffer: 64KiB\ntransport:\n  kind: tcp\nworkloads:\n  - kind: flow\n    src: 0\n    dst: 1\n    size: 1MiB\nfaults:\n${faults}`;
  const errorOf = (yaml: string, mode?: 'packet' | 'fluid'): string => {
    try {
      parseScenario(yaml, 's.yaml', mode ? { mode } : {});
    } catch (error) {
      expect(error).toBeInstanceOf(InputError);
      return (error as Error).message;
    }
    throw new Error('expected the scenario to be rejected');
  };

  it('a host that does not exist', () => {
    expect(errorOf(text('  - host: 5\n    loss: 0.01\n'))).toMatch(
      /^s\.yaml:16:\d+ faults\[0\]\.host: host 5 does not exist/,
    );
  });
  it('a loss of 1 or more', () => {
    expect(errorOf(text('  - host: 1\n    loss: 1\n'))).toMatch(/^s\.yaml:17:\d+ faults\[0\]\.loss/);
  });
  it('random loss in fluid mode', () => {
    expect(errorOf(text('  - host: 1\n    loss: 0.01\n'), 'fluid')).toMatch(
      /^s\.yaml:17:\d+ faults\[0\]\.loss: random loss needs packet mode/,
    );
  });
});
