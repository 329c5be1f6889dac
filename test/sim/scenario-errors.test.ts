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
    expect(errorOf(scenario({ topology: '  kind: torus\n  hosts: 4\n  linkRate: 100Gbps\n' }))).toMatch(
      /^s\.yaml:3:9 topology\.kind: .*star.*leaf-spine/,
    );
  });

  it('a fault hop on a host that does not exist', () => {
    expect(
      errorOf(scenario({ topology: '  kind: star\n  hosts: 4\n  linkRate: 100Gbps\n  faultHops: [1, 4]\n' })),
    ).toMatch(/^s\.yaml:6:18 topology\.faultHops\[1\]: host 4 /);
  });

  it('a flow to a host that does not exist', () => {
    expect(errorOf(scenario({ workload: '  - kind: flow\n    src: 0\n    dst: 7\n    size: 1MiB\n' }))).toBe(
      's.yaml:14:10 workloads[0].dst: host 7 does not exist (the topology has hosts 0..3)',
    );
  });

  it('a negative rate', () => {
    expect(errorOf(scenario({ topology: '  kind: star\n  hosts: 4\n  linkRate: -100Gbps\n' }))).toMatch(
      /^s\.yaml:5:13 topology\.linkRate: invalid rate: "-100Gbps"/,
    );
  });

  it('a buffer smaller than one MTU', () => {
    expect(errorOf(scenario({ switch: '  buffer: 2KiB\n' }))).toBe(
      's.yaml:8:11 switch.buffer: 2048 B per port is smaller than one packet (4178 B on the wire)',
    );
  });

  it('a unit typo, and an unknown field', () => {
    expect(errorOf(scenario({ switch: '  buffer: 64KiBB\n' }))).toMatch(
      /^s\.yaml:8:11 switch\.buffer: invalid size: "64KiBB"/,
    );
    expect(errorOf(scenario({ switch: '  buffer: 64KiB\n  bufer: 1\n' }))).toMatch(
      /^s\.yaml:8:3 switch: Unrecognized key: "bufer"/,
    );
  });

  it('a ring slice that is not a size', () => {
    expect(errorOf(scenario({ workload: '  - kind: allreduce\n    size: 1MiB\n    slice: 0\n' }))).toMatch(
      /^s\.yaml:14:12 workloads\[0\]\.slice: /,
    );
    expect(
      errorOf(scenario({ workload: '  - kind: allreduce\n    size: 1MiB\n    slice: 1MB/s\n' })),
    ).toMatch(/^s\.yaml:14:12 workloads\[0\]\.slice: invalid size/);
  });

  it('an incast with more senders than hosts', () => {
    expect(
      errorOf(scenario({ workload: '  - kind: incast\n    senders: 9\n    blockSize: 64KiB\n' })),
    ).toMatch(/^s\.yaml:13:14 workloads\[0\]\.senders: 9 senders need 10 hosts/);
  });

  it('an incast whose start offsets do not give one per sender, or that also gives a start gap', () => {
    const incast = (extra: string): string =>
      scenario({ workload: `  - kind: incast\n    senders: 2\n    blockSize: 64KiB\n${extra}` });
    const wrong = errorOf(incast('    startOffsets: [[0s, 10us], [0s, 5us, 9us]]\n'));
    expect(wrong).toMatch(
      /^s\.yaml:\d+:\d+ workloads\[0\]\.startOffsets\[1\]: has 3 offsets; expected one per sender \(2\)/,
    );
    expect(wrong.split('\n')).toHaveLength(1);
    expect(errorOf(incast('    startGap: 10us\n    startOffsets: [[0s, 10us]]\n'))).toMatch(
      /workloads\[0\]\.startOffsets: give startGap or startOffsets, not both/,
    );
    const parsed = parseScenario(incast('    startOffsets: [[0s, 10us], [3us, 0s]]\n'), 's.yaml')
      .workloads[0] as {
      startOffsets: number[][];
    };
    expect(parsed.startOffsets.map((round) => round.map((s) => Math.round(s * 1e6)))).toEqual([
      [0, 10],
      [3, 0],
    ]);
  });
});

describe('bad TCP options', () => {
  const tcp = (options: string): string =>
    `name: t\ntopology:\n${good.topology}switch:\n${good.switch}transport:\n  kind: tcp\n  tcp:\n${options}workloads:\n${good.workload}`;

  it('accepts every congestion control and the Linux options', () => {
    const s = parseScenario(
      tcp(
        '    cc: bbr\n    rack: true\n    ackEvery: 2\n    quickAcks: 16\n    delayedAckTimeout: 40ms\n    initialCwnd: 10\n',
      ),
      's.yaml',
    );
    expect(s.transport.tcp).toMatchObject({
      cc: 'bbr',
      rack: true,
      ackEvery: 2,
      quickAcks: 16,
      delayedAckTimeout: 0.04,
      initialCwnd: 10,
    });
  });

  it('an unknown congestion control: one line at its value, listing the known ones', () => {
    const message = errorOf(tcp('    cc: vegas\n'));
    expect(message).toMatch(/^s\.yaml:12:9 transport\.tcp\.cc: .*"reno".*"cubic".*"dctcp".*"bbr"/);
    expect(message.split('\n')).toHaveLength(1);
  });

  it('a RACK switch that is not a boolean, and an unknown option', () => {
    expect(errorOf(tcp('    rack: sometimes\n'))).toMatch(/^s\.yaml:12:11 transport\.tcp\.rack: /);
    expect(errorOf(tcp('    tlp: true\n'))).toMatch(
      /^s\.yaml:\d+:\d+ transport\.tcp: Unrecognized key: "tlp"/,
    );
  });
});
