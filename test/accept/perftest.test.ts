/**
 * accept's perftest adapter (issue 11): ib_write_bw cannot run here (no RDMA device), so the argv is
 * checked exactly, the reader is fed the real captured outputs the project holds, and the pairs
 * stage runs over four HCAs through a scripted launcher that answers with a real output whose rate
 * is set per rail: a slow rail is blamed as a rail, no node.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAcceptance, type AcceptLauncher } from '../../src/accept/index.js';
import { hostNames, linkJson, ok, scriptedLauncher } from './scripted.js';
import { perftestClientArgv, perftestServerArgv, readPerftest } from '../../src/accept/tools.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/perftest');
const fixture = (name: string): string => readFileSync(path.join(FIXTURES, name), 'utf8');

describe('perftest adapter', () => {
  it('builds ib_write_bw server and client argv exactly', () => {
    expect(perftestServerArgv('mlx5_1', 18515, 3)).toEqual([
      'ib_write_bw',
      '-d',
      'mlx5_1',
      '-p',
      '18515',
      '-F',
      '--report_gbits',
      '-s',
      '1048576',
      '-D',
      '3',
    ]);
    expect(perftestClientArgv('10.0.0.2', 'mlx5_1', 18515, 3, 3)).toEqual([
      'ib_write_bw',
      '-d',
      'mlx5_1',
      '-p',
      '18515',
      '-F',
      '--report_gbits',
      '-s',
      '1048576',
      '-D',
      '3',
      '-x',
      '3',
      '10.0.0.2',
    ]);
  });

  it('reads the average rate and the framing of real outputs', () => {
    // RoCE (Link type Ethernet), MTU 4096, one 8-byte row at 0.48 Gb/s average.
    expect(readPerftest(fixture('perftest-issue273-ib_write_bw-postlist-roce-gbits.txt'))).toEqual({
      rateGbps: 0.48,
      wireEfficiency: 4096 / (4096 + 82),
    });
    // InfiniBand, MTU 4096, every size: the highest average.
    const ib = readPerftest(fixture('perftest-issue132-ib_write_bw-all-gbits-truncated.txt'));
    expect(typeof ib).toBe('object');
    expect((ib as { wireEfficiency: number }).wireEfficiency).toBeCloseTo(4096 / (4096 + 26), 12);
    // Cut after the 8-byte row: the highest average that survived.
    expect((ib as { rateGbps: number }).rateGbps).toBe(0.17);
    expect(readPerftest("Couldn't connect to 10.0.0.2:18515\n")).toBe(
      "ib_write_bw printed no bandwidth test: Couldn't connect to 10.0.0.2:18515",
    );
  });
});

/** A real ib_write_bw output (RoCE, MTU 4096) with its one row's rates set to `gbps`. */
function writeBwOutput(gbps: number): string {
  return fixture('perftest-issue273-ib_write_bw-postlist-roce-gbits.txt').replace(
    /^( 8\s+\d+\s+)0\.00(\s+)0\.48/m,
    `$1${gbps.toFixed(2)}$2${gbps.toFixed(2)}`,
  );
}

function railLauncher(n: number, railGbps: Record<string, number>, log: string[][]): AcceptLauncher {
  const names = hostNames('r', n);
  return scriptedLauncher(names, (host, command) => {
    log.push([names[host]!, ...command]);
    if (command[0] === 'ip') return ok(linkJson(9000));
    if (command.includes('--version')) return ok('v');
    if (command[0] !== 'ib_write_bw') return ok('');
    const hca = command[command.indexOf('-d') + 1]!;
    // The server prints its own copy; the client (the argv ending in the server's address) is read.
    const isClient = command[command.length - 1]!.startsWith('10.9.0.');
    return ok(isClient ? writeBwOutput((railGbps[hca] ?? 0) * (0.97 + 0.004 * (host % 3))) : '');
  });
}

describe('accept with perftest over four rails', () => {
  it('a rail whose every pair is slow is the culprit, a rail, and no node is blamed', async () => {
    const log: string[][] = [];
    const launcher = railLauncher(6, { mlx5_0: 195, mlx5_1: 194, mlx5_2: 48, mlx5_3: 195 }, log);
    const result = await runAcceptance(
      launcher,
      { portRateBps: 200e9 },
      {
        tools: ['perftest'],
        stages: ['preflight', 'pairs'],
        pairing: 'circle',
        seed: 1,
        budgetS: 60,
        iperfSeconds: 1,
        benchCommand: ['aifabric'],
        hcas: ['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3'],
        gidIndex: 3,
      },
    );
    const pairRuns = result.metrics.runs.filter((run) => run.stage === 'pairs');
    // 6 hosts: 15 pairs per rail; mlx5_2's batches, slow as a whole, ran twice (both runs listed).
    for (const rail of ['mlx5_0', 'mlx5_1', 'mlx5_3'])
      expect(pairRuns.filter((run) => run.rail === rail)).toHaveLength(15);
    expect(pairRuns.filter((run) => run.rail === 'mlx5_2')).toHaveLength(30);
    expect(pairRuns.every((run) => run.tool === 'perftest' && run.argv.includes('-x'))).toBe(true);
    expect(pairRuns.filter((run) => run.rail !== 'mlx5_2').every((run) => run.verdict === 'pass')).toBe(true);
    // Expected: 200 Gb/s x 4096/(4096+82) for RoCE at MTU 4096.
    expect(pairRuns[0]!.expected).toBeCloseTo(200 * (4096 / 4178), 6);
    const [first] = result.metrics.culprits;
    expect(first).toMatchObject({ kind: 'rail', id: 'mlx5_2', severity: 'error' });
    expect(first!.evidence[0]).toBe('every run on mlx5_2 failed (15 runs on 6 hosts) while other rails pass');
    expect(result.metrics.culprits.some((culprit) => culprit.kind === 'node')).toBe(false);
    expect(result.metrics.stages.find((stage) => stage.name === 'pairs')?.runs).toBe(75);
    // Preflight asked every host for ib_write_bw.
    expect(log.filter((entry) => entry[1] === 'ib_write_bw' && entry[2] === '--version')).toHaveLength(6);
  });
});
