/**
 * A run that hangs (issue 11, "Bad input"): every iperf3 client run on one host is killed at its
 * timeout. The pairs are `hung`, never waited on past their timeout, and that host is the culprit.
 */
import { describe, expect, it } from 'vitest';
import { runAcceptance } from '../../src/accept/index.js';
import { hostNames, linkJson, ok, scriptedLauncher } from './scripted.js';

describe('a hung run', () => {
  it('is a hung verdict and a finding that names the host, not a hang of accept', async () => {
    const names = hostNames('g', 6);
    const timeouts: number[] = [];
    const launcher = scriptedLauncher(names, (host, command) => {
      if (command[0] === 'ip') return ok(linkJson(1500));
      if (command[0] !== 'iperf3' || command[1] !== '-c') return ok('');
      const peer = names[Number(command[2]!.split('.')[3]) - 1]!;
      if (names[host] === 'g-h2' || peer === 'g-h2') {
        // What runCaptured returns when it killed a run at its timeout.
        timeouts.push(host);
        return Promise.resolve({ exitCode: null, stdout: '', stderr: '', timedOut: true, wallS: 5 });
      }
      return ok(
        JSON.stringify({
          end: { sum_sent: { bytes: 2.4e7, retransmits: 0 }, sum_received: { bits_per_second: 95e6 } },
        }),
      );
    });
    const result = await runAcceptance(
      launcher,
      { portRateBps: 100e6 },
      {
        tools: ['iperf3'],
        stages: ['preflight', 'pairs'],
        pairing: 'circle',
        seed: 1,
        budgetS: 60,
        iperfSeconds: 1,
        benchCommand: ['aifabric'],
      },
    );
    const hung = result.metrics.runs.filter((run) => run.verdict === 'hung');
    expect(hung.length).toBeGreaterThanOrEqual(5);
    expect(hung.every((run) => run.hosts.includes('g-h2'))).toBe(true);
    expect(result.metrics.culprits[0]).toMatchObject({ kind: 'node', id: 'g-h2', severity: 'error' });
    expect(result.metrics.culprits[0]!.evidence.join('\n')).toMatch(/hung/);
    expect(timeouts.length).toBeGreaterThanOrEqual(5);
  });
});
