/**
 * runAcceptance with a scripted launcher (no namespaces needed): every argv it builds, the figures
 * it reads from iperf3 `-J` and `bench tcp --json` output, and the culprits it draws from them.
 * The scripted hosts behave like the testbed's: a slow host's pairs run at a quarter of the rate,
 * a lossy host's sender retransmits, a collective over a set holding a slow host is slow.
 */
import { describe, expect, it } from 'vitest';
import {
  interfaceMtus,
  readBenchTcpJson,
  readIperf3Json,
  runAcceptance,
  type AcceptLauncher,
  type LaunchResult,
} from '../../src/accept/index.js';

interface Scenario {
  slow?: string;
  lossy?: string;
  mtu?: Record<string, number>;
  deadTool?: string;
  /** Slow in the node stage (its own cores): every run, or (flaky) only its first. */
  straggler?: string;
  flaky?: string;
  /** A pair slow on its first run only (a stall of the machine), or on every run (a bad link). */
  flakyPair?: [string, string];
  slowPair?: [string, string];
  /** The first N pair runs of the whole acceptance are slow: a stall of the machine over whole batches. */
  spellRuns?: number;
}

const RATE_BPS = 100e6;

function fakeLauncher(n: number, scenario: Scenario, log: string[][]): AcceptLauncher {
  const hosts = Array.from({ length: n }, (_, k) => ({ name: `t-h${k}`, address: `10.99.0.${k + 1}` }));
  const byAddress = new Map(hosts.map((host) => [host.address, host.name]));
  const ok = (stdout: string): LaunchResult => ({
    exitCode: 0,
    stdout,
    stderr: '',
    timedOut: false,
    wallS: 0.01,
  });
  return {
    label: 'scripted',
    hosts,
    reproduce: (host, command) => ['on', hosts[host]!.name, ...command],
    exec: async (host, command, options) => {
      const name = hosts[host]!.name;
      log.push([
        name,
        ...command,
        ...(options.env?.RANK !== undefined
          ? [`RANK=${options.env.RANK}`, `WORLD_SIZE=${options.env.WORLD_SIZE}`]
          : []),
      ]);
      if (command[0] === 'ip')
        return ok(
          JSON.stringify([
            { ifname: 'lo', mtu: 65536, link_type: 'loopback', flags: ['UP'] },
            {
              ifname: 'eth0',
              mtu: scenario.mtu?.[name] ?? 1500,
              link_type: 'ether',
              flags: ['UP', 'LOWER_UP'],
            },
          ]),
        );
      if (command.includes('--version'))
        return scenario.deadTool === name
          ? { exitCode: 127, stdout: '', stderr: 'not found', timedOut: false, wallS: 0 }
          : ok('v');
      if (command[0] === 'iperf3' && command[1] === '-s') return ok('');
      if (command[0] === 'iperf3') {
        const peer = byAddress.get(command[2]!)!;
        const involved = [name, peer];
        const samePair = (pair: [string, string] | undefined): boolean =>
          pair !== undefined && pair.includes(name) && pair.includes(peer);
        const pairRuns = log.filter(
          (entry) =>
            entry[1] === 'iperf3' &&
            entry[2] === '-c' &&
            [name, peer].includes(entry[0]!) &&
            [name, peer].includes(byAddress.get(entry[3]!)!),
        ).length;
        const clientRuns = log.filter((entry) => entry[1] === 'iperf3' && entry[2] === '-c').length;
        const pairSlow =
          samePair(scenario.slowPair) ||
          (samePair(scenario.flakyPair) && pairRuns === 1) ||
          clientRuns <= (scenario.spellRuns ?? 0);
        const bps =
          involved.includes(scenario.slow ?? '') || pairSlow
            ? RATE_BPS * 0.24
            : RATE_BPS * (0.95 + 0.004 * (host % 3));
        const bytes = (bps / 8) * 2;
        const retransmits = involved.includes(scenario.lossy ?? '') ? Math.round((bytes / 1e6) * 7) : 0;
        return ok(
          JSON.stringify({
            end: { sum_sent: { bytes, retransmits }, sum_received: { bits_per_second: bps } },
          }),
        );
      }
      // The node stage: bench tcp --np 2 on one host.
      if (command.includes('--np')) {
        const runsBefore = log.filter((entry) => entry[0] === name && entry.includes('--np')).length;
        const slowNow = scenario.straggler === name || (scenario.flaky === name && runsBefore === 1);
        const busbw = slowNow ? 0.17 : 1.3 + 0.05 * (host % 4);
        return ok(
          JSON.stringify({
            kind: 'bench.tcp',
            metrics: {
              rows: [{ outOfPlace: { busbwGBps: busbw, wrong: 0 }, inPlace: { busbwGBps: busbw, wrong: 0 } }],
            },
          }),
        );
      }
      // bench tcp: rank 0 prints the envelope.
      const size = Number(options.env?.WORLD_SIZE);
      if (options.env?.RANK !== '0') return ok('');
      // Every rank of the run is started in one synchronous loop: after a tick all are logged.
      await Promise.resolve();
      const set = log
        .filter((entry) => entry.includes('bench'))
        .slice(-size)
        .map((entry) => entry[0]);
      const slow = set.includes(scenario.slow ?? '');
      const busbw = ((RATE_BPS * 0.95) / 8 / 1e9) * (slow ? 0.25 : 0.85);
      return ok(
        JSON.stringify({
          kind: 'bench.tcp',
          metrics: {
            rows: [{ outOfPlace: { busbwGBps: busbw, wrong: 0 }, inPlace: { busbwGBps: busbw, wrong: 0 } }],
          },
        }),
      );
    },
  };
}

const options = {
  tools: ['iperf3', 'bench-tcp'] as ('iperf3' | 'bench-tcp')[],
  stages: ['preflight', 'pairs', 'full', 'groups'] as ('preflight' | 'pairs' | 'full' | 'groups')[],
  pairing: 'circle' as const,
  seed: 1,
  budgetS: 600,
  iperfSeconds: 2,
  benchCommand: ['aifabric'],
};

describe('runAcceptance, scripted hosts', () => {
  it('a healthy fleet: no culprit, every pair once, one full run, the argv of each tool', async () => {
    const log: string[][] = [];
    const result = await runAcceptance(fakeLauncher(6, {}, log), { portRateBps: RATE_BPS }, options);
    expect(result.kind).toBe('accept');
    expect(result.metrics.culprits).toEqual([]);
    expect(result.metrics.stages).toEqual([
      { name: 'preflight', runs: 42 },
      { name: 'pairs', runs: 15 },
      { name: 'full', runs: 1 },
    ]);
    const client = log.find((entry) => entry[1] === 'iperf3' && entry[2] === '-c')!;
    expect(client.slice(1)).toEqual([
      'iperf3',
      '-c',
      expect.stringMatching(/^10\.99\.0\.\d$/),
      '-B',
      expect.stringMatching(/^10\.99\.0\.\d$/),
      '-p',
      expect.stringMatching(/^\d+$/),
      '-t',
      '2',
      '-J',
    ]);
    const bench = log.find((entry) => entry.includes('bench'))!;
    expect(bench.slice(1, 22)).toEqual([
      'aifabric',
      'bench',
      'tcp',
      '--op',
      'all_reduce',
      '-b',
      '1048576',
      '-e',
      '1048576',
      '-n',
      expect.stringMatching(/^\d+$/),
      '-w',
      '2',
      '--settle',
      '300ms',
      '-c',
      '1',
      '--timeout',
      expect.stringMatching(/^\d+$/),
      '--json',
      'RANK=0',
    ]);
    expect(result.findings?.map((f) => f.ruleId)).toEqual(['accept.pass']);
  });

  it('a slow host: node first from its pairs, and group testing finds it in at most 2 ceil(log2 N) runs', async () => {
    const log: string[][] = [];
    const result = await runAcceptance(
      fakeLauncher(8, { slow: 't-h5' }, log),
      { portRateBps: RATE_BPS },
      options,
    );
    expect(result.metrics.culprits[0]).toMatchObject({ kind: 'node', id: 't-h5', severity: 'error' });
    expect(result.metrics.culprits).toHaveLength(1);
    const groups = result.metrics.stages.find((stage) => stage.name === 'groups');
    expect(groups?.runs).toBeGreaterThan(0);
    expect(groups!.runs).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(8)));
    expect(result.findings?.[0]).toMatchObject({ ruleId: 'accept.node', host: 't-h5', family: 'accept' });
  });

  it('a lossy host: node, with the retransmissions as evidence', async () => {
    const result = await runAcceptance(
      fakeLauncher(6, { lossy: 't-h2' }, []),
      { portRateBps: RATE_BPS },
      { ...options, tools: ['iperf3'] },
    );
    expect(result.metrics.culprits[0]).toMatchObject({ kind: 'node', id: 't-h2' });
    expect(result.metrics.culprits[0]!.evidence.join('\n')).toMatch(
      /retransmitted segments \(7\.0 per MB sent/,
    );
  });

  it("preflight: an odd MTU and a missing tool are the hosts' own failures", async () => {
    const result = await runAcceptance(
      fakeLauncher(5, { mtu: { 't-h1': 1400 }, deadTool: 't-h3' }, []),
      { portRateBps: RATE_BPS },
      { ...options, stages: ['preflight'] },
    );
    const ids = result.metrics.culprits.map((culprit) => culprit.id).sort();
    expect(ids).toEqual(['t-h1', 't-h3']);
    const evidence = result.metrics.culprits.flatMap((culprit) => culprit.evidence).join('\n');
    expect(evidence).toContain('MTU 1400 (eth0 1400) where the other hosts have 1500');
    expect(evidence).toContain('missing iperf3');
  });
});

describe('tool output readers', () => {
  it('iperf3 -J: rate, bytes, retransmits; its error field; not JSON', () => {
    expect(
      readIperf3Json(
        JSON.stringify({
          end: { sum_sent: { bytes: 2e6, retransmits: 3 }, sum_received: { bits_per_second: 9.5e7 } },
        }),
      ),
    ).toEqual({ rateGbps: 0.095, bytes: 2e6, retransmits: 3 });
    expect(readIperf3Json(JSON.stringify({ error: 'unable to connect to server: Connection refused' }))).toBe(
      'iperf3: unable to connect to server: Connection refused',
    );
    expect(readIperf3Json('iperf3: error')).toBe('iperf3 printed no JSON');
  });

  it('bench tcp --json: busbw of the row, #wrong of both columns', () => {
    expect(
      readBenchTcpJson(
        JSON.stringify({
          metrics: { rows: [{ outOfPlace: { busbwGBps: 0.5, wrong: 2 }, inPlace: { wrong: 1 } }] },
        }),
      ),
    ).toEqual({ busbwGBps: 0.5, wrong: 3 });
    expect(readBenchTcpJson('{}')).toBe('bench tcp JSON without rows');
  });

  it('ip -j link show: MTU of interfaces that are up, loopback left out', () => {
    expect(
      interfaceMtus(
        JSON.stringify([
          { ifname: 'lo', mtu: 65536, link_type: 'loopback', flags: ['UP'] },
          { ifname: 'eth0', mtu: 9000, link_type: 'ether', flags: ['UP'] },
          { ifname: 'eth1', mtu: 1500, link_type: 'ether', flags: [] },
        ]),
      ),
    ).toEqual([{ ifname: 'eth0', mtu: 9000 }]);
  });
});

describe('the text table', () => {
  it('names the stages, lists only the runs that did not pass, then the culprits with evidence and reproducer', async () => {
    const { renderAcceptText } = await import('../../src/cli/render/accept-text.js');
    const result = await runAcceptance(
      fakeLauncher(6, { slow: 't-h4' }, []),
      { portRateBps: RATE_BPS },
      { ...options, tools: ['iperf3'], stages: ['preflight', 'pairs'] },
    );
    const text = renderAcceptText(result);
    const lines = text.split('\n');
    expect(lines[0]).toBe('aifabric accept: scripted, 6 hosts; preflight 30 runs, pairs 15 runs');
    expect(lines[1]).toBe('21 runs, 5 not passing');
    expect(text).toContain('1. error node t-h4 (score 1.00)');
    expect(text).toMatch(/\n {3}reproduce: on t-h\d iperf3 -c 10\.99\.0\.\d+ /);
    expect(
      lines
        .filter((line) => /^pairs +iperf3 +t-h\d,t-h\d/.test(line))
        .every((line) => line.includes('t-h4') && line.endsWith('slow')),
    ).toBe(true);
  });

  it("the node stage: each host alone, one at a time; a straggler is a node, a one-off slow run is outvoted by the host's second run", async () => {
    const log: string[][] = [];
    const nodeOnly = {
      ...options,
      tools: ['bench-tcp'] as ('iperf3' | 'bench-tcp')[],
      stages: ['preflight', 'node'] as ('preflight' | 'node')[],
    };
    const slow = await runAcceptance(
      fakeLauncher(7, { straggler: 't-h4' }, log),
      { portRateBps: RATE_BPS },
      nodeOnly,
    );
    expect(slow.metrics.culprits.map((c) => [c.kind, c.id])).toEqual([['node', 't-h4']]);
    expect(slow.metrics.culprits[0]!.evidence.join('\n')).toContain(
      'a straggler: bench tcp --np 2 on the host alone reached 0.170 GB/s',
    );
    // 7 hosts twice (each keeps its better run), and two more runs of the suspect (it stays slow).
    expect(slow.metrics.stages).toEqual([
      { name: 'preflight', runs: 42 },
      { name: 'node', runs: 16 },
    ]);
    const nodeRuns = log.filter((entry) => entry.includes('--np'));
    expect(nodeRuns[0]).toEqual([
      't-h0',
      'aifabric',
      'bench',
      'tcp',
      '--np',
      '2',
      '--op',
      'all_reduce',
      '-b',
      String(8 << 20),
      '-e',
      String(8 << 20),
      '-n',
      '10',
      '-w',
      '2',
      '--settle',
      '300ms',
      '-c',
      '1',
      '--timeout',
      '60',
      '--json',
    ]);

    const flaky = await runAcceptance(
      fakeLauncher(7, { flaky: 't-h2' }, []),
      { portRateBps: RATE_BPS },
      nodeOnly,
    );
    expect(flaky.metrics.culprits).toEqual([]);
    // Its second round's run clears it: no retries.
    expect(flaky.metrics.runs.filter((run) => run.stage === 'node')).toHaveLength(14);
    expect(
      flaky.metrics.runs.filter((run) => run.stage === 'node').every((run) => run.verdict === 'pass'),
    ).toBe(true);
  });
});

describe("the node stage's gap rule", () => {
  it('a host far below every other is slow even when a busy machine spreads the rest too widely for the z-score; a fleet without a gap passes', async () => {
    const { withGap } = await import('../../src/accept/node-stage.js');
    const { judgeResults } = await import('../../src/accept/judge.js');
    const judgeFigures = (figures: number[]) =>
      withGap(
        judgeResults(
          figures.map((measured, k) => ({
            id: `h${k}`,
            measured,
            expected: null,
            hardFailure: null,
            timedOut: false,
          })),
          { slowFraction: 0.4 },
        ),
        figures,
        0.4,
      );
    // A testbed measured by hand: the healthy hosts 0.40-1.22 GB/s, the quarter-core host 0.12 (z about -2).
    const spread = [0.9, 1.06, 1.04, 1.18, 0.84, 1.22, 0.12, 0.4, 0.47];
    const judged = judgeFigures(spread);
    expect(judged[6]!.zScore!).toBeGreaterThan(-3.5);
    expect(judged.map((j) => j.verdict)).toEqual([
      'pass',
      'pass',
      'pass',
      'pass',
      'pass',
      'pass',
      'slow',
      'pass',
      'pass',
    ]);
    expect(judged[6]!.reasons[1]).toBe("30% of the slowest other host's 0.400");
    // Below 0.4 of the median but above half of the next host: no gap, no blame.
    expect(
      judgeFigures([0.9, 1.06, 1.04, 1.18, 0.84, 1.22, 0.3, 0.4, 0.47]).every((j) => j.verdict === 'pass'),
    ).toBe(true);
    // Two stragglers: both below half of the slowest healthy host.
    expect(
      judgeFigures([0.9, 1.06, 1.04, 1.18, 0.1, 1.22, 0.12, 0.8, 0.97])
        .map((j) => j.verdict)
        .filter((v) => v === 'slow'),
    ).toHaveLength(2);
  });
});

describe("the pairs stage's second run of a lone slow pair, with the pairs that ran beside it", () => {
  const pairsOnly = {
    ...options,
    tools: ['iperf3'] as ('iperf3' | 'bench-tcp')[],
    stages: ['preflight', 'pairs'] as ('preflight' | 'pairs')[],
  };
  it('a pair slow once is run again with its batch and passes on its better share; both runs are listed', async () => {
    const log: string[][] = [];
    const result = await runAcceptance(
      fakeLauncher(6, { flakyPair: ['t-h1', 't-h3'] }, log),
      { portRateBps: RATE_BPS },
      pairsOnly,
    );
    expect(result.metrics.culprits).toEqual([]);
    // 15 pairs, then the slow pair's round of 3 once more (default concurrency: the whole round).
    expect(result.metrics.stages).toEqual([
      { name: 'preflight', runs: 30 },
      { name: 'pairs', runs: 18 },
    ]);
    const runsOfPair = result.metrics.runs.filter(
      (run) => run.stage === 'pairs' && run.hosts.includes('t-h1') && run.hosts.includes('t-h3'),
    );
    expect(runsOfPair).toHaveLength(2);
    expect(runsOfPair.every((run) => run.verdict === 'pass')).toBe(true);
  });

  it('two batches slowed as a whole by a stall of the machine run again as a whole: nobody is blamed', async () => {
    // Every host is slow with two partners (rounds 1 and 2), so no pair is lone: the batches, slow as a whole, run again.
    const result = await runAcceptance(
      fakeLauncher(6, { spellRuns: 6 }, []),
      { portRateBps: RATE_BPS },
      pairsOnly,
    );
    expect(result.metrics.culprits).toEqual([]);
    expect(result.metrics.stages).toEqual([
      { name: 'preflight', runs: 30 },
      { name: 'pairs', runs: 21 },
    ]);
    expect(result.metrics.runs.filter((run) => run.stage === 'pairs' && run.verdict !== 'pass')).toEqual([]);
  });

  it('a pair slow every time (a bad link) is run again, stays slow, and is blamed on neither host', async () => {
    const result = await runAcceptance(
      fakeLauncher(6, { slowPair: ['t-h1', 't-h3'] }, []),
      { portRateBps: RATE_BPS },
      pairsOnly,
    );
    // 15 pairs, then the slow pair's round of 3 once more (default concurrency: the whole round).
    expect(result.metrics.stages).toEqual([
      { name: 'preflight', runs: 30 },
      { name: 'pairs', runs: 18 },
    ]);
    expect(result.metrics.culprits.length).toBeGreaterThan(0);
    expect(result.metrics.culprits.map((c) => c.kind)).not.toContain('node');
    expect(result.metrics.culprits[0]!.id).toContain('t-h1');
    expect(result.metrics.culprits[0]!.id).toContain('t-h3');
  });
});
