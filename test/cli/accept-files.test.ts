/**
 * The files `accept --drain-list` and `accept --prometheus` write: the drain lines a person runs
 * (quoted so that no evidence text can break out of the reason), and textfile-collector metrics in
 * the Prometheus text format (every sample line `name{labels} value`, HELP and TYPE before it).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import type { AcceptMetrics } from '../../src/accept/index.js';
import { renderDrainList, renderPrometheus } from '../../src/cli/render/accept-files.js';

const when = new Date('2026-12-01T23:00:00Z');
const metrics: AcceptMetrics = {
  culprits: [
    {
      kind: 'node',
      id: 'node07',
      severity: 'error',
      score: 0.75,
      evidence: ['its own results fail', "host node07 slow: 8 of 8 partners at 22% (it's the NIC)"],
      reproduce: 'iperf3 -c 10.0.0.7',
    },
    {
      kind: 'link',
      id: 'leaf1-uplink',
      severity: 'warn',
      score: 0.25,
      evidence: ['pairs across leaf1 at 40%'],
      reproduce: 'iperf3 -c 10.0.0.9',
    },
    { kind: 'node', id: 'bad host;rm -rf /', severity: 'error', score: 0.1, evidence: ['x'], reproduce: 'x' },
  ],
  runs: [
    {
      stage: 'pairs',
      tool: 'iperf3',
      hosts: ['node07', 'node01'],
      argv: [],
      exitCode: 0,
      wallS: 2,
      measured: 0.02,
      expected: 0.09,
      unit: 'rateGbps',
      verdict: 'slow',
    },
    {
      stage: 'pairs',
      tool: 'iperf3',
      hosts: ['node02', 'node01'],
      argv: [],
      exitCode: 0,
      wallS: 2,
      measured: 0.09,
      expected: 0.09,
      unit: 'rateGbps',
      verdict: 'pass',
    },
  ],
  stages: [
    { name: 'preflight', runs: 4 },
    { name: 'pairs', runs: 2 },
  ],
};

describe('accept --drain-list', () => {
  it('one scontrol and one kubectl line per node blamed with an error, the reason single-quoted; other culprits as comments; odd names never unquoted', () => {
    const text = renderDrainList(metrics, when);
    const lines = text.trimEnd().split('\n');
    expect(lines.filter((line) => !line.startsWith('#'))).toEqual([
      `scontrol update NodeName=node07 State=DRAIN Reason='aifabric accept: host node07 slow: 8 of 8 partners at 22% (it'\\''s the NIC)'`,
      'kubectl cordon node07',
    ]);
    expect(text).toContain(
      '# node "bad host;rm -rf /": not a plain host name, left for you to drain by hand',
    );
    expect(text).toContain('# warn link leaf1-uplink: aifabric accept: pairs across leaf1 at 40%');
    expect(renderDrainList({ ...metrics, culprits: [] }, when)).toContain('# no node to drain');
  });
});

describe('accept --prometheus', () => {
  it('gauges in the text exposition format: HELP and TYPE, then samples with escaped labels', () => {
    const text = renderPrometheus(metrics, ['node01', 'node02', 'node07', 'we"ird\\'], when);
    const lines = text.trimEnd().split('\n');
    const sample =
      /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*")(,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*")*\})? (-?[0-9.e+-]+|NaN)$/;
    const declared = new Set<string>();
    for (const line of lines) {
      if (line.startsWith('# HELP ') || line.startsWith('# TYPE ')) {
        declared.add(line.split(' ')[2]!);
        continue;
      }
      const match = sample.exec(line);
      expect(match, line).not.toBeNull();
      expect(declared.has(match![1]!), line).toBe(true);
    }
    expect(lines).toContain('aifabric_accept_host_healthy{host="node07"} 0');
    expect(lines).toContain('aifabric_accept_host_healthy{host="node01"} 1');
    expect(lines).toContain('aifabric_accept_host_healthy{host="we\\"ird\\\\"} 1');
    expect(lines).toContain(
      'aifabric_accept_culprit_score{kind="link",id="leaf1-uplink",severity="warn"} 0.25',
    );
    expect(lines).toContain('aifabric_accept_stage_runs{stage="pairs"} 2');
    expect(lines).toContain('aifabric_accept_runs{verdict="slow"} 1');
    expect(lines).toContain(`aifabric_accept_timestamp_seconds ${Date.UTC(2026, 11, 1, 23) / 1000}`);
  });
});

describe('accept --drain-list and --prometheus paths', () => {
  it('are checked before any run: /proc exits 3, a folder exits 2, each with one line naming the path', async () => {
    const proc = await runCli([
      'accept',
      '--testbed',
      'no-such-testbed',
      '--drain-list',
      '/proc/aifabric-drain',
    ]);
    expect({ code: proc.code, first: proc.stderr.split('\n')[0] }).toEqual({
      code: 3,
      first:
        "aifabric: cannot write /proc/aifabric-drain: /proc is the kernel's virtual file system and takes no output files",
    });
    const folder = await runCli(['accept', '--testbed', 'no-such-testbed', '--prometheus', '/tmp']);
    expect({ code: folder.code, first: folder.stderr.split('\n')[0] }).toEqual({
      code: 2,
      first: 'aifabric: cannot write /tmp: it is a folder, not a file',
    });
  });
});
