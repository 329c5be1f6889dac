import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/run-cli.js';
import { FIXTURE_DIR, loadFixture } from '../report/fixtures.js';

// End-to-end, through the built CLI: the store, runs and report defects of issue 9 (defects 7 and 13,
// and the Low items about report --input, runs diff and runs import).
const fixture = (name: string): string => join(FIXTURE_DIR, `${name}.json`);
const firstLine = (run: CliRun): string => run.stderr.split('\n')[0] ?? '';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'aifabric-runs-defects-'));
}

async function seeded(...names: string[]): Promise<{ dir: string; db: string }> {
  const dir = tempDir();
  const db = join(dir, 'runs.db');
  const imported = await runCli(['runs', 'import', ...names.map(fixture), '--db', db]);
  expect(imported.code, imported.stderr).toBe(0);
  return { dir, db };
}

function writeJson(dir: string, name: string, value: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

const idsOf = (run: CliRun): [number, string][] =>
  (JSON.parse(run.stdout) as { metrics: { runs: { id: number; kind: string }[] } }).metrics.runs.map(
    (entry) => [entry.id, entry.kind],
  );

describe('runs list --kind (defect 13)', () => {
  it('bench-tcp, as the help says, finds runs stored as bench.tcp; bench.tcp finds both spellings', async () => {
    // bench-tcp-engine is what `aifabric bench tcp` writes (bench.tcp); bench-tcp was saved by others.
    const { db } = await seeded('bench-tcp-engine', 'bench-tcp', 'plan');
    const dashed = await runCli(['runs', 'list', '--kind', 'bench-tcp', '--json', '--db', db]);
    expect(dashed.code, dashed.stderr).toBe(0);
    expect(idsOf(dashed)).toEqual([
      [2, 'bench-tcp'],
      [1, 'bench.tcp'],
    ]);
    expect(idsOf(await runCli(['runs', 'list', '--kind', 'bench.tcp', '--json', '--db', db]))).toEqual([
      [2, 'bench-tcp'],
      [1, 'bench.tcp'],
    ]);
    // A known kind with no saved run is an empty list, not an error.
    const none = await runCli(['runs', 'list', '--kind', 'sim', '--json', '--db', db]);
    expect(none.code).toBe(0);
    expect(idsOf(none)).toEqual([]);
  });

  it('any other kind exits 2 and lists the known kinds', async () => {
    const { db } = await seeded('plan');
    const run = await runCli(['runs', 'list', '--kind', 'bench_tcp', '--db', db]);
    expect(run.code).toBe(2);
    expect(firstLine(run)).toMatch(
      /^aifabric: unknown kind "bench_tcp" \(known kinds: .*bench\.tcp, check, collective, .*plan.*sim.*\)$/,
    );
    expect(run.stdout).toBe('');
  });
});

describe('one corrupt database row (defect 7)', () => {
  async function withCorruptRow(): Promise<string> {
    const { db } = await seeded('collective-roce', 'plan', 'bench-tcp');
    const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
    const raw = new Database(db);
    raw.prepare('UPDATE runs SET envelope = ? WHERE id = 2').run('{"kind": "plan", "metrics": {"stepTi');
    raw.close();
    return db;
  }

  it('report over the latest runs skips it with a warning naming its id', async () => {
    const db = await withCorruptRow();
    const out = join(tempDir(), 'report.html');
    const run = await runCli(['report', '--db', db, '--out', out, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(firstLine(run)).toMatch(
      new RegExp(
        `^warning: run 2 in ${db.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is corrupt: its saved envelope is not valid JSON .*; skipped$`,
      ),
    );
    const envelope = JSON.parse(run.stdout) as {
      inputs: { runs: number[] };
      metrics: { results: number };
      warnings: string[];
    };
    expect(envelope.inputs.runs).toEqual([1, 3]);
    expect(envelope.metrics.results).toBe(2);
    expect(envelope.warnings).toHaveLength(1);
    expect(existsSync(out)).toBe(true);
  });

  it('runs show of it, and report --run of it, exit 2 naming the row', async () => {
    const db = await withCorruptRow();
    const show = await runCli(['runs', 'show', '2', '--db', db]);
    expect(show.code).toBe(2);
    expect(firstLine(show)).toMatch(
      /^aifabric: run 2 in .*runs\.db is corrupt: its saved envelope is not valid JSON/,
    );
    expect(show.stderr).not.toContain('internal error');
    const report = await runCli(['report', '--run', '2', '--db', db, '--out', join(tempDir(), 'r.html')]);
    expect(report.code).toBe(2);
    expect(firstLine(report)).toMatch(/^aifabric: run 2 in .* is corrupt/);
    // The other rows are untouched.
    expect((await runCli(['runs', 'show', '3', '--db', db])).code).toBe(0);
    expect(idsOf(await runCli(['runs', 'list', '--json', '--db', db])).map(([id]) => id)).toEqual([3, 2, 1]);
  });
});

describe('report --input, runs diff, runs import (Low)', () => {
  it('report --input on an empty list exits 2 (nothing to report) and never reads the database', async () => {
    const { dir, db } = await seeded('plan');
    const empty = writeJson(dir, 'empty.json', []);
    const out = join(dir, 'report.html');
    const run = await runCli(['report', '--input', empty, '--out', out], { env: { AIFABRIC_DB: db } });
    expect(run.code).toBe(2);
    expect(firstLine(run)).toBe(`aifabric: nothing to report: ${empty} holds no results`);
    expect(existsSync(out)).toBe(false);
  });

  it('runs diff of two bandwidth results with no message size in common exits 2 and says why', async () => {
    const { dir, db } = await seeded('collective-roce');
    const shifted = structuredClone(loadFixture('collective-roce')[0]!);
    for (const row of (shifted.metrics as { rows: { sizeBytes: number }[] }).rows) row.sizeBytes *= 3;
    expect((await runCli(['runs', 'import', writeJson(dir, 'shifted.json', shifted), '--db', db])).code).toBe(
      0,
    );
    const run = await runCli(['runs', 'diff', '1', '2', '--db', db]);
    expect(run.code).toBe(2);
    expect(firstLine(run)).toMatch(
      /^aifabric: cannot diff these collective results: no op and message size is in both \(first: all_reduce \d+ to \d+ B; second: all_reduce \d+ to \d+ B\)$/,
    );
    expect(run.stdout).toBe('');
  });

  it('runs diff of two results with no metric in common exits 2 instead of "0 compared"', async () => {
    const { dir, db } = await seeded('plan');
    const other = { ...loadFixture('plan')[0]!, metrics: { somethingElse: 1 } };
    expect((await runCli(['runs', 'import', writeJson(dir, 'other.json', other), '--db', db])).code).toBe(0);
    const run = await runCli(['runs', 'diff', '1', '2', '--db', db]);
    expect(run.code).toBe(2);
    expect(firstLine(run)).toMatch(/^aifabric: cannot diff these plan results: they share no numeric metric/);
    // Two results that do share metrics still diff (exit 0).
    expect((await runCli(['runs', 'diff', '1', '1', '--db', db])).code).toBe(0);
  });

  it('runs import refuses a malformed envelope, naming the file and the field, and saves nothing', async () => {
    const dir = tempDir();
    const db = join(dir, 'runs.db');
    const good = loadFixture('plan')[0]!;
    const cases: [unknown, string][] = [
      [{ kind: 'plan', metrics: {} }, 'schemaVersion: expected a whole number from 1'],
      [{ ...good, createdAt: 'yesterday' }, 'createdAt: expected an ISO 8601 time'],
      [{ ...good, tool: 'aifabric' }, 'tool: expected {name, version}'],
      [{ ...good, metrics: [1, 2] }, 'metrics: expected an object'],
      [
        { ...good, findings: [{ severity: 'fatal', ruleId: 'x.y', message: 'm' }] },
        'findings[0].severity: expected error, warn, info, pass',
      ],
    ];
    for (const [index, [envelope, problem]] of cases.entries()) {
      const file = writeJson(dir, `bad-${index}.json`, envelope);
      const run = await runCli(['runs', 'import', fixture('collective-roce'), file, '--db', db]);
      expect(run.code, problem).toBe(2);
      expect(firstLine(run)).toBe(`aifabric: ${file}: not an aifabric result envelope (${problem})`);
    }
    const inArray = writeJson(dir, 'array.json', [good, { ...good, inputs: null }]);
    const run = await runCli(['runs', 'import', inArray, '--db', db]);
    expect(firstLine(run)).toBe(
      `aifabric: ${inArray} [1]: not an aifabric result envelope (inputs: expected an object)`,
    );
    // Validation comes before the store is opened: no database was created by any of these.
    expect(existsSync(db)).toBe(false);
  });

  it('runs import skips an exact duplicate with a note, whether already saved or twice in one import', async () => {
    const { dir, db } = await seeded('plan');
    const again = await runCli(['runs', 'import', fixture('plan'), '--db', db, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(firstLine(again)).toBe(`note: ${fixture('plan')}: identical to run 1, skipped`);
    expect(
      (JSON.parse(again.stdout) as { metrics: { runs: unknown[]; skipped: unknown[] } }).metrics,
    ).toMatchObject({ runs: [], skipped: [{ ref: fixture('plan'), duplicateOf: 1 }] });
    const collective = loadFixture('collective-roce')[0]!;
    const twice = writeJson(dir, 'twice.json', [collective, collective]);
    const run = await runCli(['runs', 'import', twice, '--db', db]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`saved collective result as run 2 in ${db}\n`);
    expect(firstLine(run)).toBe(`note: ${twice} [1]: identical to run 2, skipped`);
    // A changed copy is not a duplicate.
    const changed = writeJson(dir, 'changed.json', { ...collective, createdAt: '2026-12-01T00:00:00.000Z' });
    expect((await runCli(['runs', 'import', changed, '--db', db])).stdout).toBe(
      `saved collective result as run 3 in ${db}\n`,
    );
  });
});

describe('demo and explain results (defect 17)', () => {
  it('demo --json prints one JSON array of the envelopes it wrote, which runs import and report --input accept', async () => {
    const dir = tempDir();
    const demo = await runCli(['demo', '--out', join(dir, 'out'), '--json']);
    expect(demo.code, demo.stderr).toBe(0);
    const envelopes = JSON.parse(demo.stdout) as {
      kind: string;
      schemaVersion: number;
      inputs: { fabric?: string };
    }[];
    expect(envelopes.map((envelope) => envelope.kind)).toEqual([
      'compare',
      'scale',
      'collective',
      'collective',
      'collective',
    ]);
    // The same envelopes as the files it wrote.
    expect(envelopes[0]).toEqual(JSON.parse(readFileSync(join(dir, 'out', 'compare.json'), 'utf8')));
    expect(envelopes[4]).toEqual(
      JSON.parse(readFileSync(join(dir, 'out', 'collective-ib-ndr-400g.json'), 'utf8')),
    );
    const file = join(dir, 'demo.json');
    writeFileSync(file, demo.stdout);
    const db = join(dir, 'runs.db');
    const imported = await runCli(['runs', 'import', file, '--db', db]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout.trim().split('\n')).toHaveLength(5);
    const report = await runCli(['report', '--input', file, '--out', join(dir, 'report.html')]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/: 5 results, \d+ charts?/);
  });

  it('demo --save and explain --save record their results', async () => {
    const dir = tempDir();
    const db = join(dir, 'runs.db');
    const demo = await runCli(['demo', '--out', join(dir, 'out'), '--save', '--db', db]);
    expect(demo.code, demo.stderr).toBe(0);
    expect(firstLine(demo)).toBe(`saved as runs 1, 2, 3, 4, 5 in ${db}`);
    const explain = await runCli(['explain', '--fabric', 'tcp-100g', '--save', '--db', db]);
    expect(explain.code, explain.stderr).toBe(0);
    expect(firstLine(explain)).toBe(`saved as run 6 in ${db}`);
    const listed = await runCli(['runs', 'list', '--json', '--db', db]);
    expect(idsOf(listed)).toEqual([
      [6, 'explain'],
      [5, 'collective'],
      [4, 'collective'],
      [3, 'collective'],
      [2, 'scale'],
      [1, 'compare'],
    ]);
  });
});
