import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { emitResult } from '../../src/cli/emit.js';
import { makeResult } from '../../src/core/envelope.js';
import { LATEST_STORE_VERSION, listRuns } from '../../src/store/index.js';
import { FIXTURE_DIR, loadFixture } from '../report/fixtures.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDbPath } from './store-helpers.js';

const fixture = (name: string) => join(FIXTURE_DIR, `${name}.json`);

async function seededDb(): Promise<string> {
  const db = tempDbPath();
  const imported = await runCli([
    'runs',
    'import',
    fixture('collective-roce'),
    fixture('plan'),
    fixture('bench-tcp'),
    '--db',
    db,
  ]);
  expect(imported.code, imported.stderr).toBe(0);
  return db;
}

describe('aifabric runs', () => {
  it('list --json: metrics.runs[] with id, kind and createdAt, filtered by --kind; AIFABRIC_DB honoured', async () => {
    const db = await seededDb();
    const all = await runCli(['runs', 'list', '--json'], { env: { AIFABRIC_DB: db } });
    expect(all.code, all.stderr).toBe(0);
    const envelope = JSON.parse(all.stdout);
    expect(envelope.kind).toBe('runs-list');
    expect(envelope.metrics.runs.map((run: { id: number; kind: string }) => [run.id, run.kind])).toEqual([
      [3, 'bench-tcp'],
      [2, 'plan'],
      [1, 'collective'],
    ]);
    expect(envelope.metrics.runs[2].createdAt).toBe(loadFixture('collective-roce')[0]!.createdAt);
    const plans = JSON.parse((await runCli(['runs', 'list', '--kind', 'plan', '--json', '--db', db])).stdout);
    expect(plans.metrics.runs.map((run: { id: number }) => run.id)).toEqual([2]);
    expect((await runCli(['runs', 'list', '--db', db])).stdout).toMatch(/^ID\s+KIND\s+CREATED/);
  });

  it('show --json gives back exactly the saved envelope; unknown ids are exit 2', async () => {
    const db = await seededDb();
    const shown = await runCli(['runs', 'show', '2', '--json', '--db', db]);
    expect(JSON.parse(shown.stdout)).toEqual(loadFixture('plan')[0]);
    expect((await runCli(['runs', 'show', '2', '--db', db])).stdout).toContain('stepTimeMs: 1080');
    const missing = await runCli(['runs', 'show', '42', '--db', db]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect((await runCli(['runs', 'show', 'abc', '--db', db])).code).toBe(2);
  });

  it('diff names each size where busbw fell more than 5% and exits 1; same kind only (exit 2)', async () => {
    const db = await seededDb();
    const slower = structuredClone(loadFixture('collective-roce')[0]!);
    for (const row of (slower.metrics as { rows: { sizeBytes: number; busbwGBps: number }[] }).rows) {
      if (row.sizeBytes === 65536 || row.sizeBytes === 16777216) row.busbwGBps *= 0.9;
    }
    const file = join(dirname(db), 'slower.json');
    writeFileSync(file, JSON.stringify(slower));
    expect((await runCli(['runs', 'import', file, '--db', db])).code).toBe(0);

    const diff = await runCli(['runs', 'diff', '1', '4', '--db', db]);
    expect(diff.code).toBe(1);
    expect(diff.stdout).toContain('busbw fell by more than 5% at 2 message sizes');
    expect(diff.stdout).toMatch(/all_reduce\s+64K\s/);
    expect(diff.stdout).toMatch(/all_reduce\s+16M\s/);
    const json = JSON.parse((await runCli(['runs', 'diff', '1', '4', '--json', '--db', db])).stdout);
    expect(json.metrics.regressions.map((entry: { sizeBytes: number }) => entry.sizeBytes)).toEqual([
      65536, 16777216,
    ]);
    expect(json.findings.map((finding: { ruleId: string }) => finding.ruleId)).toEqual([
      'busbw-regression',
      'busbw-regression',
    ]);

    expect((await runCli(['runs', 'diff', '4', '1', '--db', db])).code).toBe(0);
    const mixed = await runCli(['runs', 'diff', '1', '2', '--db', db]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toBe(
      'aifabric: cannot diff a collective result with a plan result: diff compares two results of the same kind\n',
    );
  });

  it('never creates a database when reading one; refuses a newer one with exit 3', async () => {
    const missing = tempDbPath('nothing.db');
    const listed = await runCli(['runs', 'list', '--db', missing]);
    expect(listed.code).toBe(2);
    expect(existsSync(missing)).toBe(false);

    const db = await seededDb();
    const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
    const raw = new Database(db);
    raw.pragma(`user_version = ${LATEST_STORE_VERSION + 5}`);
    raw.close();
    const newer = await runCli(['runs', 'list', '--db', db]);
    expect(newer.code).toBe(3);
    expect(newer.stderr).toMatch(/written by a newer aifabric .* Upgrade aifabric/);
  });
});

describe('--save through emitResult', () => {
  it('saves the envelope it prints, into --db or AIFABRIC_DB, and says where on stderr', async () => {
    const db = tempDbPath();
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const saved = process.env.AIFABRIC_DB;
    try {
      const result = makeResult('collective', { op: 'all_reduce', fabric: 'tcp' }, { rows: [] });
      await emitResult(result, { json: true, save: true, db }, () => '');
      process.env.AIFABRIC_DB = db;
      await emitResult(result, { json: false, save: true }, () => 'text\n');
      await emitResult(result, { json: false }, () => 'text\n');
      expect(stderr.mock.calls.map((call) => String(call[0]))).toEqual([
        `saved as run 1 in ${db}\n`,
        `saved as run 2 in ${db}\n`,
      ]);
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
      if (saved === undefined) delete process.env.AIFABRIC_DB;
      else process.env.AIFABRIC_DB = saved;
    }
    expect(listRuns(db).map((run) => run.id)).toEqual([2, 1]);
  });
});

describe('aifabric report and serve', () => {
  it('report writes one HTML file from --run ids, or from --input files without a database', async () => {
    const db = await seededDb();
    const out = join(dirname(db), 'out', 'report.html');
    const written = await runCli(['report', '--run', '1', '--run', '3', '--out', out, '--db', db, '--json']);
    expect(written.code, written.stderr).toBe(0);
    const envelope = JSON.parse(written.stdout);
    expect(envelope.metrics).toMatchObject({ path: out, results: 2, charts: 1 });
    expect(readFileSync(out, 'utf8')).toContain('<figure class="chart" id="busbw-all-reduce"');

    const fromFiles = join(dirname(db), 'files.html');
    const noDb = await runCli(
      ['report', '--input', fixture('scale'), '--input', fixture('sim-incast-sweep'), '--out', fromFiles],
      { env: { AIFABRIC_DB: join(dirname(db), 'absent.db') } },
    );
    expect(noDb.code, noDb.stderr).toBe(0);
    expect(noDb.stdout).toMatch(/wrote .*files\.html: 11 results, 2 charts/);

    const bad = await runCli(['report', '--input', join(dirname(db), 'nope.json'), '--out', fromFiles]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/nope\.json: cannot read result JSON \(no such file\)/);
  });

  it('serve listens on 127.0.0.1 by default and stops cleanly on SIGTERM', async () => {
    const db = await seededDb();
    let announce: (url: string) => void = () => undefined;
    const announced = new Promise<string>((resolve) => (announce = resolve));
    let server: ChildProcess | undefined;
    const served = runCli(['serve', '--port', '0', '--db', db], {
      onSpawn: (child) => (server = child),
      onStdout: (text) => {
        const match = /(http:\/\/[^\s]+\/)/.exec(text);
        if (match?.[1]) announce(match[1]);
      },
    });
    const url = await Promise.race([announced, served]);
    // A serve that exits before it announces a URL fails here with its own output.
    if (typeof url !== 'string') throw new Error(`serve exited with ${url.code}: ${url.stderr}`);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const response = await fetch(`${url}api/runs`);
    expect(((await response.json()) as { runs: unknown[] }).runs).toHaveLength(3);
    server!.kill('SIGTERM');
    expect((await served).code).toBe(0);
  });

  it('`aifabric --help` loads none of the store, report, server, vega, hono or SQLite', async () => {
    // A resolve hook records every module the CLI asks for while printing help.
    const hook = `data:text/javascript,${encodeURIComponent(
      "import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent(\"export async function resolve(specifier, context, next) { const result = await next(specifier, context); if (/vega|hono|better-sqlite3|\\\\/(store|report|server)\\\\//.test(result.url)) process._rawDebug('HEAVY ' + result.url); return result; }\"));",
    )}`;
    const help = await runCli(['--help'], { nodeArgs: ['--import', hook] });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('report');
    expect(help.stderr).not.toContain('HEAVY');
    const sanity = await runCli(['runs', 'list', '--db', tempDbPath('none.db')], {
      nodeArgs: ['--import', hook],
    });
    expect(sanity.stderr).toContain('HEAVY');
  });
});
