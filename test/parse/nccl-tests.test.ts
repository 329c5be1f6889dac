/** Behaviour of the nccl-tests parser on the layouts and noise the field produces. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  detectKind,
  detectNcclTests,
  NotThisKindError,
  parseNcclTests,
  parseNcclTestsStream,
  type NcclTestsTest,
} from '../../src/parse/index.js';
import {
  footer,
  HEADER_2_19,
  row213,
  run,
  TABLE_HEADER_2_19,
  TABLE_HEADER_PER_ITER,
} from './nccl-tests-synthetic.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'nccl-tests');
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');
const only = (text: string): NcclTestsTest => {
  const tests = parseNcclTests(text).facts.tests;
  expect(tests).toHaveLength(1);
  return tests[0]!;
};

describe('real outputs, checked by hand against the text', () => {
  it('2.13+ with Open MPI prefixes: 32 rows, peak is the 16 GiB in-place busbw', () => {
    const test = only(fixture('aws-p5-h100-efa-all_reduce-mpi-prefixed.log'));
    expect(test.rows).toHaveLength(32);
    expect(test.peakBusbwGBps).toBe(483.35);
    expect(test.avgBusbwGBps).toBe(156.742);
    expect(test.rows[31]).toMatchObject({
      sizeBytes: 17179869184,
      count: 4294967296,
      redop: 'sum',
      root: -1,
    });
  });

  it('2.17.9: version, collective from the header, ranks from the trimmed listing, no Avg line', () => {
    const test = only(fixture('oci-2x8-a100-roce-all_reduce-v2.17.9.log'));
    expect(test).toMatchObject({
      collective: 'all_reduce',
      collectiveSource: 'header',
      ncclTestsVersion: '2.17.9',
      ncclLibraryCode: 22903,
    });
    expect(test.ncclVersion).toBe('2.29.3');
    expect(test.ranks).toBe(16);
    expect(test.devices.map((d) => d.rank)).toEqual([0, 7, 8, 15]);
    expect(test.avgBusbwGBps).toBeNull();
    expect(test.complete).toBe(true);
  });

  it('pre-2.13 per-collective columns: all_gather has neither redop nor root, broadcast root only, reduce both', () => {
    const gather = only(fixture('superbench-fixture-a100-1node-all_gather-oldformat.log'));
    expect(gather.layout).toMatchObject({
      name: 'pre-2.13',
      hasRedop: false,
      hasRoot: false,
      checkColumn: 'error',
    });
    expect(gather.rows[33]).toMatchObject({ redop: null, root: null, sizeBytes: 8589934592 });
    const broadcast = only(fixture('superbench-fixture-a100-1node-broadcast-oldformat.log'));
    expect(broadcast.layout).toMatchObject({ hasRedop: false, hasRoot: true });
    expect(broadcast.rows[2]).toMatchObject({ sizeBytes: 4, count: 1, redop: null, root: 0 });
    const reduce = only(fixture('superbench-fixture-a100-1node-reduce-oldformat.log'));
    expect(reduce.rows[0]).toMatchObject({ redop: 'sum', root: 0 });
    expect(reduce.peakBusbwGBps).toBe(231.28);
  });

  it('old alltoall: blank redop values, five size-0 rows kept, error N/A is null', () => {
    const test = only(fixture('superbench-fixture-a100-1node-alltoall-oldformat.log'));
    expect(test.rows).toHaveLength(34);
    expect(test.rows.filter((row) => row.sizeBytes === 0)).toHaveLength(5);
    expect(test.rows[0]!.outOfPlace).toEqual({
      timeUs: 1.63,
      algbwGBps: 0,
      busbwGBps: 0,
      wrong: null,
      maxError: null,
    });
    expect(test.peakBusbwGBps).toBe(226.16);
    expect(test.warnings).toEqual([]);
  });

  it('reports failures as facts: out of bounds 2 FAILED, maxError 1 (header lost its #)', () => {
    const test = only(fixture('nccl-tests-issue37-v100-all_gather-oldformat-oob-failed.txt'));
    expect(test.outOfBounds).toEqual({ count: 2, ok: false });
    expect(test.rows[0]!.outOfPlace.maxError).toBe(1);
    expect(test.collective).toBe('all_gather');
  });

  it('NCCL 1.x layout: milliseconds become microseconds, the cut last row is left out', () => {
    const result = parseNcclTests(fixture('nccl-issue120-nccl1-single-process-layout-truncated.txt'));
    const test = result.facts.tests[0]!;
    expect(test.layout?.name).toBe('nccl-1.x');
    expect(test.rows).toHaveLength(10);
    expect(test.rows[0]!.outOfPlace.timeUs).toBe(64);
    expect(result.warnings.some((w) => w.line === 13 && /incomplete row/.test(w.message))).toBe(true);
  });

  it('two processes without MPI: duplicated header and rank 0 are named', () => {
    const result = parseNcclTests(
      fixture('nccl-tests-issue107-v100-two-processes-without-mpi-truncated.txt'),
    );
    expect(result.warnings.map((w) => w.line)).toEqual(expect.arrayContaining([5, 9]));
    expect(result.warnings.find((w) => w.line === 9)?.message).toMatch(/rank 0 is listed twice/);
  });

  it('rows without a header: layout inferred, with a warning on the first row', () => {
    const test = only(fixture('nccl-issue644-8gpu-oldformat-rows-only-cut-at-start.txt'));
    expect(test.rows).toHaveLength(12);
    expect(test.layout).toMatchObject({ fromHeader: false, checkColumn: 'error', hasRedop: false });
    expect(test.warnings[0]).toMatchObject({ line: 1 });
  });
});

describe('layouts from the printf formats', () => {
  it('2.19 header facts including unalign', () => {
    const test = only(
      run(
        [row213(8, '12.90', '0.00', '0.00'), row213(1024, '16.43', '0.06', '0.11')].join('\n').split('\n'),
      ).join('\n'),
    );
    expect(test.header).toMatchObject({
      nThread: 1,
      nGpus: 1,
      minBytes: 8,
      maxBytes: 1024,
      stepFactor: 2,
      warmupIters: 1,
      iters: 20,
      aggIters: 1,
      validation: 1,
      graph: 0,
      unalign: 0,
    });
    expect(test.rows).toHaveLength(2);
    expect(test.complete).toBe(true);
  });

  it('-I 1 per-iteration columns', () => {
    const perIter =
      '    1048576        262144     float     sum      -1    28.56   36.71   64.24       0    27.10    31.20    30.90     3.25    28.37   36.96   64.68       0    27.00    30.10    29.95     2.80';
    const text = [
      ...HEADER_2_19,
      '# Per-Iteration Report: CUDA event timing; i_* uses max over process rows ',
      ...TABLE_HEADER_PER_ITER,
      perIter,
      ...footer('64.46'),
    ].join('\n');
    const test = only(text);
    expect(test.layout?.perIteration).toBe(true);
    expect(test.header?.perIterationReport).toBe(true);
    expect(test.rows[0]!.outOfPlace.perIteration).toEqual({
      minUs: 27.1,
      maxUs: 31.2,
      p99Us: 30.9,
      cvPct: 3.25,
    });
    expect(test.rows[0]!.inPlace.busbwGBps).toBe(64.68);
  });

  it('timestamp column and exponent numbers (1.2e+03, %6g #wrong 1e+06)', () => {
    const header = TABLE_HEADER_2_19.map((line, index) => (index === 1 ? `${line} timestamp` : line));
    const row = `${row213(4096, '1.2e+07', '1e+07', '2e+07', '1e+06')}  2025-03-01 12:00:01`;
    const test = only([...HEADER_2_19, ...header, row, ...footer('1')].join('\n'));
    expect(test.layout?.timestamps).toBe(true);
    expect(test.rows[0]).toMatchObject({ timestamp: '2025-03-01 12:00:01' });
    expect(test.rows[0]!.outOfPlace).toEqual({ timeUs: 1.2e7, algbwGBps: 1e7, busbwGBps: 2e7, wrong: 1e6 });
  });
});

describe('noise', () => {
  it('several runs concatenated are separate tests, each with its own rows', () => {
    const text = [
      ...run([row213(8, '10.0', '0.00', '0.00')], '0.1'),
      ...run([row213(16, '11.0', '0.00', '0.00'), row213(32, '12.0', '0.00', '0.01')], '0.2'),
    ].join('\n');
    const tests = parseNcclTests(text).facts.tests;
    expect(tests.map((t) => t.rows.length)).toEqual([1, 2]);
    expect(tests.map((t) => t.avgBusbwGBps)).toEqual([0.1, 0.2]);
  });

  it('launcher tags at the start and in the middle of lines, CRLF, Slurm labels', () => {
    const lines = run([row213(8, '10.0', '0.00', '0.00'), row213(16, '11.0', '0.00', '0.00')]);
    const tagged = lines.map((line, index) => (index % 2 ? `[1,0]<stdout>:${line}` : `  0: ${line}`));
    tagged[TABLE_HEADER_2_19.length + HEADER_2_19.length] =
      `[1,0]<stdout>:           8             2     float     sum      -1 [0] ` +
      `   10.0    0.00    0.00       0     10.0    0.00    0.00       0`;
    const test = only(tagged.join('\r\n'));
    expect(test.rows.map((row) => row.sizeBytes)).toEqual([8, 16]);
    expect(test.warnings).toEqual([]);
  });

  it('an NCCL INFO line that interrupts a row: the row is rejoined', () => {
    const rowText = row213(8, '10.0', '0.00', '0.00');
    const cut = rowText.indexOf('  10.0');
    const text = [
      ...HEADER_2_19,
      ...TABLE_HEADER_2_19,
      `${rowText.slice(0, cut)}node-a:1001:1020 [0] NCCL INFO Channel 00/02 : 0 1`,
      rowText.slice(cut),
      ...footer('0'),
    ].join('\n');
    const test = only(text);
    expect(test.rows).toHaveLength(1);
    expect(test.rows[0]!.inPlace.timeUs).toBe(10);
  });

  it('interleaved duplicate rows from a second process are dropped with a warning', () => {
    const a = row213(8, '10.0', '0.00', '0.00');
    const b = row213(16, '11.0', '0.00', '0.00');
    const test = only(run([a, a, b, b]).join('\n'));
    expect(test.rows.map((row) => row.sizeBytes)).toEqual([8, 16]);
    expect(test.warnings.filter((w) => /duplicate row/.test(w.message))).toHaveLength(2);
  });

  it('a first row cut at its start is rejected, not misread', () => {
    const full = row213(1048576, '28.56', '36.71', '64.24');
    const text = [
      full.slice(full.indexOf('576'), full.length),
      row213(2097152, '43.45', '48.27', '84.47'),
      ...footer('70'),
    ].join('\n');
    const test = only(text);
    expect(test.rows.map((row) => row.sizeBytes)).toEqual([2097152]);
    expect(test.warnings.some((w) => w.line === 1 && /incomplete row/.test(w.message))).toBe(true);
  });

  it('#wrong above zero and N/A are facts, not errors', () => {
    const test = only(
      run([row213(8, '10.0', '0.00', '0.00', 3), row213(16, '11.0', '0.00', '0.00', 'N/A')]).join('\n'),
    );
    expect(test.rows[0]!.outOfPlace.wrong).toBe(3);
    expect(test.rows[1]!.inPlace.wrong).toBeNull();
  });
});

describe('not nccl-tests', () => {
  it('throws NotThisKindError naming the first line', () => {
    expect(() => parseNcclTests('hello\nworld\n')).toThrow(NotThisKindError);
    expect(() => parseNcclTests('\n\nib_write_bw: something\n')).toThrow(/line 3: ib_write_bw/);
  });

  it('detection: real outputs are recognised, prose is not', () => {
    expect(detectKind(fixture('moc-h100-2node-4gpu-roce-sendrecv-nccl-info.log'))?.kind).toBe('nccl-tests');
    expect(detectKind(fixture('nccl-issue644-8gpu-oldformat-rows-only-cut-at-start.txt'))?.kind).toBe(
      'nccl-tests',
    );
    expect(detectKind('The quick brown fox\n12 monkeys\n')).toBeUndefined();
  });

  it("does not claim the other tools' real outputs", () => {
    const root = join(import.meta.dirname, '..', 'fixtures');
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) =>
        statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)],
      );
    // fixtures/check holds whole hosts' captures, nccl-tests logs among them.
    const others = walk(root).filter(
      (path) =>
        !path.includes(`${join('fixtures', 'nccl-tests')}`) &&
        !path.includes(`${join('fixtures', 'check')}`) &&
        !/\.(md|json)$/.test(path),
    );
    expect(others.length).toBeGreaterThan(0);
    for (const path of others) expect([path, detectNcclTests(readFileSync(path, 'utf8'))]).toEqual([path, 0]);
  });
});

describe('streaming', () => {
  function* chunks(bytes: Buffer, size: number): Generator<Buffer> {
    for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
  }

  it("gives the string path's facts whatever the chunk boundaries, UTF-8 split included", async () => {
    const text = `${fixture('moc-h100-2node-1gpu-roce-all_reduce-nccl-info.log')}# error: café déjà vu\n`;
    const expected = parseNcclTests(text);
    for (const size of [1, 7, 64, 4096]) {
      expect(await parseNcclTestsStream(chunks(Buffer.from(text, 'utf8'), size))).toEqual(expected);
    }
    expect(expected.facts.tests[0]!.errors).toEqual(['café déjà vu']);
  });

  it('hands each finished run to onTest and keeps none when asked', async () => {
    const text = [
      ...run([row213(8, '10.0', '0.00', '0.00')]),
      ...run([row213(16, '11.0', '0.00', '0.00')]),
    ].join('\n');
    const seen: number[] = [];
    const result = await parseNcclTestsStream(chunks(Buffer.from(text), 100), {
      retainTests: false,
      onTest: (test) => seen.push(test.rows[0]!.sizeBytes),
    });
    expect(seen).toEqual([8, 16]);
    expect(result.facts.tests).toEqual([]);
  });
});
