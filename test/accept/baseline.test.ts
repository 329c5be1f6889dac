/**
 * accept against a stored baseline (issue 11, "Judgement" (c)): when every pair fell alike, the
 * fleet sees nothing and the expectation may be loose, but each pair's figure in an earlier accept
 * run of the same hosts shows the drop. Scripted iperf3 hosts; the CLI's --baseline reads the store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAcceptance, type AcceptLauncher } from '../../src/accept/index.js';
import { hostNames, linkJson, ok, scriptedLauncher } from './scripted.js';
import { runCli } from '../helpers/run-cli.js';

function uniformLauncher(n: number, bps: number): AcceptLauncher {
  return scriptedLauncher(hostNames('b', n), (host, command) => {
    if (command[0] === 'ip') return ok(linkJson(1500));
    if (command[0] !== 'iperf3' || command[1] !== '-c') return ok('');
    const rate = bps * (1 + 0.002 * (host % 3));
    return ok(
      JSON.stringify({
        end: { sum_sent: { bytes: rate / 4, retransmits: 0 }, sum_received: { bits_per_second: rate } },
      }),
    );
  });
}

const options = {
  tools: ['iperf3' as const],
  stages: ['preflight' as const, 'pairs' as const],
  pairing: 'circle' as const,
  seed: 1,
  budgetS: 60,
  iperfSeconds: 1,
  benchCommand: ['aifabric'],
};

describe('accept --baseline', () => {
  it('every pair at 70% of its baseline figure is slow, and the fabric is blamed; without the baseline nothing is', async () => {
    const before = await runAcceptance(uniformLauncher(6, 95e6), { portRateBps: 100e6 }, options);
    expect(before.metrics.culprits).toEqual([]);
    // 70 Mb/s everywhere: 73% of the port's goodput, but every pair alike, so no z-score stands out.
    const alone = await runAcceptance(uniformLauncher(6, 66.5e6), { portRateBps: 100e6 }, options);
    expect(alone.metrics.culprits).toEqual([]);
    const compared = await runAcceptance(
      uniformLauncher(6, 66.5e6),
      { portRateBps: 100e6 },
      { ...options, baseline: { ref: '#7', runs: before.metrics.runs } },
    );
    const pairs = compared.metrics.runs.filter((run) => run.stage === 'pairs');
    expect(pairs.every((run) => run.verdict === 'slow')).toBe(true);
    expect(compared.metrics.culprits[0]).toMatchObject({ kind: 'fabric' });
    expect(compared.metrics.culprits[0]!.evidence.join('\n')).toMatch(
      /70% of its 0\.09\d Gb\/s in the baseline #7/,
    );
    expect(compared.inputs).toMatchObject({ baseline: '#7' });
  });
});

const tmp = mkdtempSync(path.join(os.tmpdir(), 'accept-baseline-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('accept --baseline on the command line', () => {
  it('a store without an accept run, or a run of another kind: exit 2 with one line, before any host is asked', async () => {
    const db = path.join(tmp, 'r.db');
    const saved = await runCli([
      'collective',
      '--fabric',
      'roce-400g',
      '--nodes',
      '2',
      '-b',
      '1M',
      '-e',
      '1M',
      '--save',
      '--db',
      db,
    ]);
    expect(saved.code).toBe(0);
    const latest = await runCli([
      'accept',
      '--hosts',
      'a,b',
      '--port-rate',
      '1gbit',
      '--baseline',
      'latest',
      '--db',
      db,
    ]);
    expect(latest.code).toBe(2);
    expect(latest.stderr.split('\n')[0]).toBe(
      `aifabric: --baseline latest: no accept run in ${db} (save one with accept --save)`,
    );
    const other = await runCli([
      'accept',
      '--hosts',
      'a,b',
      '--port-rate',
      '1gbit',
      '--baseline',
      '1',
      '--db',
      db,
    ]);
    expect(other.code).toBe(2);
    expect(other.stderr.split('\n')[0]).toBe(
      'aifabric: --baseline 1: run #1 is a collective result, not accept',
    );
  });
});
