/**
 * `aifabric trace` end to end: the built CLI on real PyTorch profiler traces from
 * ../shared/data/traces (SOURCES.md there): exit codes, the text's first line, the `--json`
 * envelope, `--steps`, `--fabric` predictions, the row cap, and one-line refusals of bad input.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, runCli, type CliRun } from '../helpers/run-cli.js';
import { generateRun, type GenOptions } from '../trace/generate.js';

const TRACES = join(REPO_ROOT, '..', 'shared', 'data', 'traces');
// facebookresearch/param @ 1e115ff et_replay/tests/inputs: 8 ranks of one DLRM step, 8 NCCL kernels each.
const DLRM = join(TRACES, 'param', 'dlrm_kineto.tar.gz');
// facebookresearch/HolisticTraceAnalysis @ f4d0062 tests/data/nccl_parser_config: rank 0 of 2, ProfilerStep#4-6, 15 AllReduce + 6 Broadcast.
const NCCL_DATA = join(TRACES, 'hta', 'nccl_data.json.gz');
// Same repository, tests/data/df_index_resolver: rank 1 of 2, 2,020 AllReduce kernels.
const LONG = join(TRACES, 'hta', 'df_index_resolver.json.gz');
const JOB = join(REPO_ROOT, 'examples', 'jobs', 'llama3-70b-8xh100.yaml');

interface Row {
  group: string;
  seq: number;
  op: string;
  step: number | null;
  sizeBytes: number | null;
  ranksSeen: number[];
  startSkewUs: number;
  trueTimeUs: number;
  lastRank: number;
  waitUs: number[];
  busbwGBps: number | null;
  busbwIsBound: boolean;
  predictedUs?: number | null;
  modelFraction?: number | null;
}

function envelopeOf(result: CliRun) {
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return JSON.parse(result.stdout) as {
    kind: string;
    schemaVersion: number;
    inputs: Record<string, unknown>;
    metrics: {
      ranks: { rank: number }[];
      worldSize: number | null;
      collectives: Row[];
      iterations: { step: number }[];
      stragglers: { rank: number; lastCount: number }[];
    };
    findings?: { severity: string; ruleId: string }[];
  };
}

const firstLine = (text: string): string => text.split('\n')[0] ?? '';

function expectOneLineRefusal(result: CliRun, pattern: RegExp): void {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
}

/** Exit 1 exactly when a finding is an error (trace.below-model), else 0. */
function expectExitMatchesFindings(result: CliRun, findings: { severity: string }[] | undefined): void {
  expect(result.code).toBe(findings?.some((finding) => finding.severity === 'error') ? 1 : 0);
}

describe('aifabric trace on the 8-rank DLRM step', () => {
  it('prints a header naming 8 ranks on one host, a collectives table, stragglers and findings', async () => {
    const result = await runCli(['trace', DLRM]);
    expect(result.code).toBe(0);
    expect(firstLine(result.stdout)).toMatch(
      /^aifabric trace: 8 ranks \(kineto\), 1 host, world size 8, 1 node\(s\) x 8 GPU\(s\)$/,
    );
    expect(result.stdout).toMatch(/one host, one clock/);
    expect(result.stdout).toMatch(/collectives: 8 matched across ranks/);
    expect(result.stdout).toMatch(
      /group\s+seq\s+op\s+size\s+ranks seen\s+skew us\s+true time us\s+last rank\s+busbw GB\/s/,
    );
    expect(result.stdout).toMatch(/\n\s+default\s+0\s+sendrecv\s/);
    expect(result.stdout).toMatch(/\nstragglers: /);
    expect(result.stdout).toMatch(/\nfindings:/);
    expect(result.stdout).not.toMatch(/more \(use --json\)/);
  });

  it('--json prints the envelope of kind trace: 8 collectives, each seen on all 8 ranks, 5 sendrecv then all_reduce', async () => {
    const result = await runCli(['trace', DLRM, '--json']);
    expect(result.code).toBe(0);
    const envelope = envelopeOf(result);
    expect(envelope.kind).toBe('trace');
    expect(envelope.schemaVersion).toBe(1);
    expect(envelope.metrics.ranks.map((rank) => rank.rank).sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(envelope.metrics.worldSize).toBe(8);
    const rows = envelope.metrics.collectives;
    expect(rows).toHaveLength(8);
    expect(rows.filter((row) => row.op === 'sendrecv')).toHaveLength(5);
    expect(rows.filter((row) => row.op === 'all_reduce')).toHaveLength(3);
    for (const row of rows) {
      expect(row.ranksSeen).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      // The definitions, checked on the envelope itself: the last rank waits for no one, waits are non-negative, the largest wait is the skew.
      expect(row.waitUs).toHaveLength(8);
      expect(row.waitUs[row.ranksSeen.indexOf(row.lastRank)]).toBe(0);
      expect(Math.min(...row.waitUs)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...row.waitUs)).toBeCloseTo(row.startSkewUs, 9);
      expect(row.trueTimeUs).toBeGreaterThan(0);
      expect(row.busbwIsBound).toBe(false);
    }
    // Without --fabric or --job there is nothing to predict.
    expect(rows.every((row) => row.predictedUs === undefined || row.predictedUs === null)).toBe(true);
  });

  it('--out writes the same envelope as --json prints', async () => {
    const { readFileSync } = await import('node:fs');
    const out = join(mkdtempSync(join(tmpdir(), 'aifabric-trace-')), 'trace.json');
    const result = await runCli(['trace', DLRM, '--json', '--out', out]);
    expect(result.code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(JSON.parse(result.stdout));
  });
});

describe('aifabric trace on one rank with ProfilerStep#4-6 (HTA nccl_data)', () => {
  it('--steps 5 keeps only step 5, --steps 4-6 keeps them all', async () => {
    const all = envelopeOf(await runCli(['trace', NCCL_DATA, '--json']));
    const five = envelopeOf(await runCli(['trace', NCCL_DATA, '--steps', '5', '--json']));
    const range = envelopeOf(await runCli(['trace', NCCL_DATA, '--steps', '4-6', '--json']));
    expect(five.inputs.steps).toEqual({ from: 5, to: 5 });
    expect(five.metrics.iterations.map((iteration) => iteration.step)).toEqual([5]);
    expect(five.metrics.collectives.length).toBeGreaterThan(0);
    expect(five.metrics.collectives.every((row) => row.step === 5)).toBe(true);
    expect(five.metrics.collectives.length).toBeLessThan(all.metrics.collectives.length);
    expect(all.metrics.collectives.filter((row) => row.step === 5)).toEqual(five.metrics.collectives);
    expect(range.metrics.iterations.map((iteration) => iteration.step)).toEqual([4, 5, 6]);
  });

  it('one rank of two: busbw is marked as a bound, in the table too', async () => {
    const result = await runCli(['trace', NCCL_DATA]);
    expect(result.code).toBe(0);
    expect(firstLine(result.stdout)).toMatch(/^aifabric trace: 1 rank \(kineto\), 1 host, world size 2, /);
    const envelope = envelopeOf(await runCli(['trace', NCCL_DATA, '--json']));
    const sized = envelope.metrics.collectives.filter((row) => row.busbwGBps !== null);
    expect(sized.length).toBeGreaterThan(0);
    expect(sized.every((row) => row.busbwIsBound)).toBe(true);
    expect(result.stdout).toMatch(/\(bound\)/);
  });

  it('--fabric adds a prediction and the fraction predicted / true to each sized collective; exit 1 only with an error finding', async () => {
    const text = await runCli(['trace', NCCL_DATA, '--fabric', 'roce-400g', '--gpu', 'a100-80gb']);
    expect(text.stdout).toMatch(/^model: fabric roce-400g, gpu a100-80gb$/m);
    expect(text.stdout).toMatch(/predicted us\s+% of model/);
    const result = await runCli([
      'trace',
      NCCL_DATA,
      '--fabric',
      'roce-400g',
      '--gpu',
      'a100-80gb',
      '--json',
    ]);
    const envelope = envelopeOf(result);
    expectExitMatchesFindings(result, envelope.findings);
    expectExitMatchesFindings(text, envelope.findings);
    expect(envelope.inputs).toMatchObject({ fabric: 'roce-400g', gpu: 'a100-80gb' });
    for (const row of envelope.metrics.collectives.filter((candidate) => candidate.sizeBytes !== null)) {
      expect(row.predictedUs).toBeGreaterThan(0);
      expect(row.modelFraction).toBeCloseTo(row.predictedUs! / row.trueTimeUs, 9);
    }
    // Several all_reduce ran at under half the model (11% at seq 2); with one rank traced each time
    // may include a wait, so the finding is a warning, not an error, and the exit stays 0.
    const below = (envelope.findings ?? []).filter((finding) => finding.ruleId === 'trace.below-model');
    expect(below.length).toBeGreaterThan(0);
    expect(below.every((finding) => finding.severity === 'warn')).toBe(true);
    expect(result.code).toBe(0);
  });

  it('--job takes the fabric and GPU from the job file', async () => {
    const result = await runCli(['trace', NCCL_DATA, '--job', JOB, '--json']);
    const envelope = envelopeOf(result);
    expectExitMatchesFindings(result, envelope.findings);
    expect(envelope.inputs).toMatchObject({ job: JOB, fabric: 'roce-400g', gpu: 'h100-sxm' });
    // --fabric replaces the job's fabric, as `plan --fabric` does.
    const other = envelopeOf(
      await runCli(['trace', NCCL_DATA, '--job', JOB, '--fabric', 'ib-ndr-400g', '--json']),
    );
    expect(other.inputs).toMatchObject({ job: JOB, fabric: 'ib-ndr-400g', gpu: 'h100-sxm' });
  });

  it('--fabric without --gpu models the GPU the trace names (an A100 here)', async () => {
    const envelope = envelopeOf(await runCli(['trace', NCCL_DATA, '--fabric', 'roce-400g', '--json']));
    expect(String(envelope.inputs.gpu)).toMatch(/^a100/);
  });
});

describe('aifabric trace on 2,020 collectives (HTA df_index_resolver)', () => {
  it('shows the first 40 rows and counts the rest', { timeout: 180_000 }, async () => {
    const result = await runCli(['trace', LONG], { timeoutMs: 170_000 });
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    const header = lines.findIndex((line) => /^\s+group\s+seq\s+op\s/.test(line));
    const more = lines.findIndex((line) => /^ {2}\.\.\. \d+ more \(use --json\)$/.test(line));
    expect(header).toBeGreaterThan(0);
    // Header, separator, 40 rows, then the count of the rest.
    expect(more - header - 2).toBe(40);
    const total = Number(/collectives: (\d+) matched/.exec(result.stdout)?.[1]);
    expect(Number(/\.\.\. (\d+) more/.exec(lines[more]!)?.[1])).toBe(total - 40);
    expect(total).toBeGreaterThan(1000);
  });
});

/** Kineto files of a generated run (test/trace/generate.ts), one per rank, in a fresh folder. */
function writeRun(options: GenOptions): string {
  const folder = mkdtempSync(join(tmpdir(), 'aifabric-trace-gen-'));
  generateRun(options).forEach((rank, index) =>
    writeFileSync(join(folder, `rank_${index}.json`), rank.kineto),
  );
  return folder;
}

describe('aifabric trace on a generated 4-rank run over 2 hosts', () => {
  // Host 1's clock reads 2500 us ahead; rank 2 (on host 1) starts collective 3 late by 400 us, its compute on time.
  const base: GenOptions = {
    ranks: 4,
    hosts: 2,
    clockOffsetsUs: [0, 2500],
    steps: 2,
    collectivesPerStep: 3,
    ops: [{ op: 'all_reduce', sizeBytes: 64 * 1024 * 1024 }],
    delays: [{ rank: 2, collective: 3, us: 400, where: 'collective' }],
  };

  it('aligns the clocks, names rank 2 as the straggler with its cause, and exits 0 at model speed', async () => {
    const folder = writeRun({ ...base, collectiveUs: 50 });
    const result = await runCli(['trace', folder]);
    expect(result.code).toBe(0);
    expect(firstLine(result.stdout)).toBe(
      'aifabric trace: 4 ranks (kineto), 2 hosts, world size 4, 2 node(s) x 2 GPU(s)',
    );
    expect(result.stdout.split('\n')[1]).toMatch(
      /^clocks aligned: host1 -2500\.0 us \(skews and waits are after alignment\)$/,
    );
    expect(result.stdout).toMatch(/\n\s+2\s+1\s+\d+\.\d\s+collective\n/);
    expect(result.stdout).toMatch(/WARN {2}trace\.straggler\s+rank 2 /);
    expect(result.stdout).toMatch(/INFO {2}trace\.clock-aligned/);
  });

  it('exits 1 when collectives run far below the model (64 MiB all_reduce taking 100 ms on roce-400g)', async () => {
    const folder = writeRun({ ...base, collectiveUs: 100_000 });
    const result = await runCli(['trace', folder, '--fabric', 'roce-400g', '--gpu', 'h100-sxm', '--json']);
    const envelope = envelopeOf(result);
    expect(result.code).toBe(1);
    const below = (envelope.findings ?? []).filter((finding) => finding.ruleId === 'trace.below-model');
    // One finding per (op, size, group), not one per collective.
    expect(below).toHaveLength(1);
    expect(below[0]!.severity).toBe('error');
    const text = await runCli(['trace', folder, '--fabric', 'roce-400g', '--gpu', 'h100-sxm']);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/ERROR trace\.below-model/);
  });
});

describe('aifabric trace on NCCL flight-recorder dumps (test/fixtures/flight-recorder, written by make_dumps.py there)', () => {
  const FR = join(REPO_ROOT, 'test', 'fixtures', 'flight-recorder');

  it('reads a folder of per-rank pickles and names rank 2, 1500 us late at seq 4, as the worst straggler', async () => {
    const result = await runCli(['trace', join(FR, 'straggler-p2')]);
    expect(result.code).toBe(0);
    expect(firstLine(result.stdout)).toBe(
      'aifabric trace: 4 ranks (flight-recorder), 1 host, world size 4, 1 node(s) x 4 GPU(s)',
    );
    const envelope = envelopeOf(await runCli(['trace', join(FR, 'straggler-p2'), '--json']));
    const late = envelope.metrics.collectives.find((row) => row.group === '0' && row.seq === 4);
    expect(late?.lastRank).toBe(2);
    expect(late!.startSkewUs).toBeGreaterThanOrEqual(1500);
    expect(envelope.metrics.stragglers[0]?.rank).toBe(2);
  });

  it('a hang dump exits 1 with trace.unfinished naming the stuck and the never-started rank', async () => {
    const result = await runCli(['trace', join(FR, 'hang-p4')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /ERROR trace\.unfinished\s+all_reduce #3 of group 0 never finished on rank 0; rank 1 never started it/,
    );
  });

  it('`aifabric parse` recognises a dump by its bytes and prints its collectives', async () => {
    const result = await runCli(['parse', join(FR, 'straggler-p2', 'nccl_trace_rank_0')]);
    expect(result.code).toBe(0);
    expect(firstLine(result.stdout)).toMatch(
      /nccl_trace_rank_0: pytorch-trace, rank 0 of 4 \(from the file name\), NCCL 2\.21\.5, 7 collectives/,
    );
    expect(result.stdout).toMatch(/group 0 \(default_pg\), 4 ranks: all_reduce x5/);
  });

  it('refuses a pickle that would run code, in one line', async () => {
    expectOneLineRefusal(
      await runCli(['trace', join(FR, 'refused', 'nccl_trace_rank_0')]),
      /nccl_trace_rank_0: .*GLOBAL/,
    );
  });
});

describe('aifabric trace refuses bad input in one line, exit 2', () => {
  it.each([
    ['5-3', /--steps.*"5-3"/],
    ['abc', /--steps.*"abc"/],
    ['-1', /--steps/],
    ['2.5', /--steps.*"2\.5"/],
  ])('--steps %s', async (steps, pattern) => {
    expectOneLineRefusal(await runCli(['trace', NCCL_DATA, `--steps=${steps}`]), pattern);
  });

  it('an unknown fabric preset', async () => {
    expectOneLineRefusal(await runCli(['trace', NCCL_DATA, '--fabric', 'no-such-fabric']), /no-such-fabric/);
  });

  it('--gpu without --fabric or --job', async () => {
    expectOneLineRefusal(
      await runCli(['trace', NCCL_DATA, '--gpu', 'a100-80gb']),
      /--gpu needs --fabric or --job/,
    );
  });

  it('an unknown GPU preset', async () => {
    expectOneLineRefusal(
      await runCli(['trace', NCCL_DATA, '--fabric', 'roce-400g', '--gpu', 'no-such-gpu']),
      /no-such-gpu/,
    );
  });

  it('a CPU-only trace alone (HTA rank_non_gpu): nothing to analyse, named in one line', async () => {
    expectOneLineRefusal(
      await runCli(['trace', join(TRACES, 'hta', 'rank_non_gpu.json.gz')]),
      /rank_non_gpu\.json\.gz: no GPU kernels \(a CPU-only trace/,
    );
  });

  it.each([
    [
      'a trace with no rank (HTA rank_not_found)',
      join(TRACES, 'hta', 'rank_not_found.json.gz'),
      /rank_not_found\.json\.gz/,
    ],
    [
      'a trace with no distributedInfo (HTA distributed_info_not_found)',
      join(TRACES, 'hta', 'distributed_info_not_found.json.gz'),
      /distributed_info_not_found\.json\.gz/,
    ],
    [
      'a file that is no trace (an nccl-tests log)',
      join(REPO_ROOT, 'test', 'fixtures', 'nccl-tests', 'FORMAT-REFERENCE-v2.19.6-not-a-real-run.txt'),
      /FORMAT-REFERENCE-v2\.19\.6-not-a-real-run\.txt/,
    ],
    ['a path that does not exist', join(TRACES, 'no-such-trace.json'), /no-such-trace\.json/],
  ])('%s', async (_name, path, pattern) => {
    expectOneLineRefusal(await runCli(['trace', path]), pattern);
  });
});
