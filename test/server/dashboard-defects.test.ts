import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type RunningDashboard } from '../../src/server/index.js';
import { saveResult } from '../../src/store/index.js';
import { loadFixture } from '../report/fixtures.js';
import { tempDbPath } from '../store/store-helpers.js';

// issue 9 in the dashboard: either spelling of a kind filters (defect 13), and a corrupt row is a
// 400 page naming it while the rest of the dashboard keeps working (defect 7).
describe('dashboard over a store with both kind spellings and one corrupt row', () => {
  let dashboard: RunningDashboard;

  beforeAll(async () => {
    const db = tempDbPath();
    for (const name of ['bench-tcp-engine', 'bench-tcp', 'plan', 'collective-roce'])
      saveResult(db, loadFixture(name)[0]!);
    const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
    const raw = new Database(db);
    raw.prepare('UPDATE runs SET envelope = ? WHERE id = 3').run('not json');
    raw.close();
    dashboard = await startDashboard({ dbPath: db, port: 0 });
  });

  afterAll(async () => {
    await dashboard?.close();
  });

  it('/api/runs?kind=bench-tcp lists the bench.tcp run too', async () => {
    const response = await fetch(`${dashboard.url}api/runs?kind=bench-tcp`);
    const body = (await response.json()) as { runs: { id: number; kind: string }[] };
    expect(body.runs.map((run) => [run.id, run.kind])).toEqual([
      [2, 'bench-tcp'],
      [1, 'bench.tcp'],
    ]);
  });

  it('the corrupt run is a 400 naming it; the list and the other runs still render', async () => {
    const corrupt = await fetch(`${dashboard.url}runs/3`);
    expect(corrupt.status).toBe(400);
    expect(await corrupt.text()).toMatch(/run 3 in .* is corrupt: its saved envelope is not valid JSON/);
    expect((await fetch(dashboard.url)).status).toBe(200);
    expect((await fetch(`${dashboard.url}runs/4`)).status).toBe(200);
  });

  it('a diff of runs of different kinds is a 400 saying why', async () => {
    const response = await fetch(`${dashboard.url}diff?a=1&b=4`);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('cannot diff a bench.tcp result with a collective result');
  });
});
