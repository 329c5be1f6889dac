/** Acceptance: bad scenarios fail with one clear line naming the file, line and field (exit 2). */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { parseScenario } from '../../src/sim/scenario.js';

const good = {
  topology: '  kind: star\n  hosts: 4\n  linkRate: 100Gbps\n  linkDelay: 1us\n',
  switch: '  buffer: 64KiB\n',
  workload: '  - kind: flow\n    src: 0\n    dst: 3\n    size: 1MiB\n',
};

function scenario(parts: Partial<typeof good>): string {
  const p = { ...good, ...parts };
  return `name: t\ntopology:\n${p.topology}switch:\n${p.switch}transport:\n  kind: roce\nworkloads:\n${p.workload}`;
}

function errorOf(text: string): string {
  try {
    parseScenario(text, 's.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).exitCode).toBe(2);
    return (error as Error).message;
  }
  throw new Error('expected the scenario to be rejected');
}

describe('bad scenarios', () => {
  it('accepts the good one', () => {
    expect(parseScenario(scenario({}), 's.yaml').topology.kind).toBe('star');
  });

  it('unknown topology: names the kind line', () => {
    expect(errorOf(scenario({ topology: '  kind: torus\n  hosts: 4\n  linkRate: 100Gbps\n' }))).toMatch(/^s\.yaml:3:9 topology\.kind: .*star.*leaf-spine/);
  });

  it('a flow to a host that does not exist', () => {
    expect(errorOf(scenario({ workload: '  - kind: flow\n    src: 0\n    dst: 7\n    size: 1MiB\n' }))).toBe(
      's.yaml:14:10 workloads[0].dst: host 7 does not exist (the topology has hosts 0..3)',
    );
  });

  it('a negative rate', () => {
    expect(errorOf(scenario({ topology: '  kind: star\n  hosts: 4\n  linkRate: -100Gbps\n' }))).toMatch(/^s\.yaml:5:13 topology\.linkRate: invalid rate: "-100Gbps"/);
  });

  it('a buffer smaller than one MTU', () => {
    expect(errorOf(scenario({ switch: '  buffer: 2KiB\n' }))).toBe(
      's.yaml:8:11 switch.buffer: 2048 B per port is smaller than one packet (4178 B on the wire)',
    );
  });

  it('a unit typo, and an unknown field', () => {
    expect(errorOf(scenario({ switch: '  buffer: 64KiBB\n' }))).toMatch(/^s\.yaml:8:11 switch\.buffer: invalid size: "64KiBB"/);
    expect(errorOf(scenario({ switch: '  buffer: 64KiB\n  bufer: 1\n' }))).toMatch(/^s\.yaml:8:3 switch: Unrecognized key: "bufer"/);
  });

  it('an incast with more senders than hosts', () => {
    expect(errorOf(scenario({ workload: '  - kind: incast\n    senders: 9\n    blockSize: 64KiB\n' }))).toMatch(/^s\.yaml:13:14 workloads\[0\]\.senders: 9 senders need 10 hosts/);
  });
});
