/**
 * accept's nccl-tests adapter (issue 11): all_reduce_perf cannot run here (no GPU), so the job argv
 * is checked exactly, the reader is fed real nccl-tests logs with NCCL_DEBUG=INFO lines, and the
 * full stage runs through a scripted launcher whose job answers with a real log: as captured it
 * passes; with its host's ranks on NET/Socket where the fabric is InfiniBand, that host is the
 * culprit; a launcher that cannot start an MPI job says nccl-tests did not run.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobArgv } from '../../src/accept/launchers.js';
import { runAcceptance, type AcceptLauncher } from '../../src/accept/index.js';
import { linkJson, ok, scriptedLauncher } from './scripted.js';
import { ncclTestsArgv, NCCL_TESTS_ENV, readNcclTests } from '../../src/accept/tools.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/nccl-tests');
const log = (name: string): string => readFileSync(path.join(FIXTURES, name), 'utf8');
/** MOC's 2 nodes x 1 H100 over RoCE (NET/IB), NCCL_DEBUG=INFO: one host's INFO lines, 2 ranks. */
const MOC = 'moc-h100-2node-1gpu-roce-all_reduce-nccl-info.log';

describe('nccl-tests adapter', () => {
  it('builds all_reduce_perf and its MPI job exactly', () => {
    const command = ncclTestsArgv('/opt/nccl-tests/build/');
    expect(command).toEqual([
      '/opt/nccl-tests/build/all_reduce_perf',
      '-b',
      '8',
      '-e',
      '1G',
      '-f',
      '2',
      '-g',
      '1',
      '-c',
      '1',
    ]);
    expect(jobArgv('srun', ['gpu01', 'gpu02'], 8, command, NCCL_TESTS_ENV)).toEqual([
      'srun',
      '--nodes=2',
      '--ntasks=16',
      '--ntasks-per-node=8',
      '--nodelist=gpu01,gpu02',
      '--export=ALL,NCCL_DEBUG=INFO,NCCL_DEBUG_SUBSYS=INIT,NET',
      '--',
      ...command,
    ]);
    expect(jobArgv('mpirun', ['gpu01', 'gpu02'], 8, command, NCCL_TESTS_ENV, { runAsRoot: true })).toEqual([
      'mpirun',
      '--allow-run-as-root',
      '-np',
      '16',
      '--host',
      'gpu01:8,gpu02:8',
      '--map-by',
      'ppr:8:node',
      '-x',
      'NCCL_DEBUG=INFO',
      '-x',
      'NCCL_DEBUG_SUBSYS=INIT,NET',
      '--',
      ...command,
    ]);
  });

  it("reads busbw, #wrong, ranks and each host's transport from real logs", () => {
    expect(readNcclTests(log(MOC))).toEqual({
      busbwGBps: 14.97,
      sizeBytes: 26843545600,
      wrong: 0,
      ranks: 2,
      transports: { 'MOC-R4PCC04U37': ['NET/IB'] },
    });
    // EFA through aws-ofi-nccl: its ranks' channels run "via NET/AWS Libfabric".
    const efa = readNcclTests(log('eks-blueprints-efa-2x1-g4dn-t4-efa-all_reduce-v2.12.7-nccl-info.log'));
    expect(efa).toMatchObject({
      ranks: 2,
      transports: { 'test-nccl-efa-worker-0': ['NET/AWS'], 'test-nccl-efa-worker-1': ['NET/AWS'] },
    });
    // Two headers in one run: every rank ran alone (nccl-tests built without MPI).
    expect(readNcclTests(log(MOC) + log(MOC))).toBe(
      '2 nccl-tests headers in one run: each rank ran alone (nccl-tests built without MPI=1?)',
    );
    expect(readNcclTests('srun: error: Unable to allocate resources\n')).toMatch(
      /^all_reduce_perf printed no nccl-tests table/,
    );
  });
});

function scripted(names: string[], jobOutput: string | undefined, calls: string[][]): AcceptLauncher {
  const launcher = scriptedLauncher(names, (_host, command) =>
    ok(command[0] === 'ip' ? linkJson(4092, 'ib0', 'infiniband') : 'v'),
  );
  if (jobOutput === undefined) return launcher;
  return {
    ...launcher,
    job: (indexes, ranksPerHost, command) => {
      calls.push([String(indexes.length), String(ranksPerHost), ...command]);
      return ok(jobOutput);
    },
    reproduceJob: (indexes, ranksPerHost, command) => [
      'job',
      String(indexes.length),
      String(ranksPerHost),
      ...command,
    ],
  };
}

const options = {
  tools: ['nccl-tests' as const],
  stages: ['preflight' as const, 'full' as const],
  pairing: 'circle' as const,
  seed: 1,
  budgetS: 60,
  iperfSeconds: 1,
  benchCommand: ['aifabric'],
  gpusPerNode: 1,
};

describe('accept with nccl-tests', () => {
  it('the captured run passes against the expectation, through one job of a rank per GPU', async () => {
    const calls: string[][] = [];
    const result = await runAcceptance(
      scripted(['MOC-R4PCC04U37', 'MOC-R4PCC02U33'], log(MOC), calls),
      { portRateBps: 400e9, ncclNet: 'IB', ncclBusbwGBps: 16 },
      options,
    );
    expect(calls).toEqual([
      ['2', '1', 'all_reduce_perf', '-b', '8', '-e', '1G', '-f', '2', '-g', '1', '-c', '1'],
    ]);
    const run = result.metrics.runs.find((r) => r.tool === 'nccl-tests' && r.stage === 'full')!;
    expect(run).toMatchObject({
      stage: 'full',
      verdict: 'pass',
      measured: 14.97,
      expected: 16,
      unit: 'busbwGBps',
    });
    expect(result.metrics.culprits).toEqual([]);
  });

  it('a host whose ranks fell back to NET/Socket on an InfiniBand fabric is the culprit', async () => {
    const socket = log(MOC).replaceAll('NET/IB', 'NET/Socket');
    const result = await runAcceptance(
      scripted(['MOC-R4PCC04U37', 'MOC-R4PCC02U33'], socket, []),
      { portRateBps: 400e9, ncclNet: 'IB' },
      options,
    );
    const [first] = result.metrics.culprits;
    expect(first).toMatchObject({ kind: 'node', id: 'MOC-R4PCC04U37', severity: 'error' });
    expect(first!.evidence.join('\n')).toContain(
      'NCCL on this host used NET/Socket where the fabric is NET/IB',
    );
  });

  it('slow against the model is a warning on the fabric; a launcher without MPI jobs does not run it and says so', async () => {
    const slow = await runAcceptance(
      scripted(['MOC-R4PCC04U37', 'MOC-R4PCC02U33'], log(MOC), []),
      { portRateBps: 400e9, ncclNet: 'IB', ncclBusbwGBps: 40 },
      options,
    );
    expect(slow.metrics.runs.find((r) => r.tool === 'nccl-tests' && r.stage === 'full')?.verdict).toBe(
      'slow',
    );
    expect(slow.metrics.culprits[0]).toMatchObject({ kind: 'fabric', severity: 'warn' });
    expect(slow.metrics.culprits[0]!.evidence[0]).toContain('37% of the 40.0 GB/s the model expects');
    const none = await runAcceptance(scripted(['a', 'b'], undefined, []), { portRateBps: 400e9 }, options);
    expect(none.metrics.runs.some((r) => r.tool === 'nccl-tests' && r.stage === 'full')).toBe(false);
    expect(none.warnings).toContain(
      'nccl-tests: not run: it needs an MPI job across the hosts (--launcher srun or mpirun), not scripted',
    );
  });
});
