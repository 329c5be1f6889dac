import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { makeResult } from '../../src/core/envelope.js';
import { AifabricError } from '../../src/core/errors.js';
import {
  LATEST_STORE_VERSION,
  RunStore,
  getRun,
  listRuns,
  parseRunId,
  resolveDbPath,
  saveResult,
} from '../../src/store/index.js';
import { startSaveWorker, tempDbPath } from './store-helpers.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

function rawDb(path: string): BetterSqlite3.Database {
  return new Database(path);
}

function expectAifabricError(action: () => unknown, exitCode: number, message: RegExp): void {
  let caught: unknown;
  try {
    action();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(AifabricError);
  expect((caught as AifabricError).exitCode).toBe(exitCode);
  expect((caught as AifabricError).message).toMatch(message);
}

const collective = (fabric: string) =>
  makeResult(
    'collective',
    { op: 'all_reduce', nodes: 2, fabric },
    { rows: [{ sizeBytes: 1024, busbwGBps: 1.5 }] },
  );

describe('saving, listing and showing runs in a real SQLite file', () => {
  it('saves envelopes verbatim and lists them newest first, filtered by kind', () => {
    const db = tempDbPath();
    const first = collective('tcp');
    const firstId = saveResult(db, first);
    const planId = saveResult(db, makeResult('plan', { model: 'llama-70b' }, { stepTimeMs: 1200.123456789 }));
    const thirdId = saveResult(db, collective('roce-v2'));
    expect([firstId, planId, thirdId]).toEqual([1, 2, 3]);

    expect(listRuns(db).map((run) => run.id)).toEqual([3, 2, 1]);
    const collectives = listRuns(db, { kind: 'collective' });
    expect(collectives.map((run) => [run.id, run.kind])).toEqual([
      [3, 'collective'],
      [1, 'collective'],
    ]);
    expect(collectives[1]).toMatchObject({
      createdAt: first.createdAt,
      toolVersion: first.tool.version,
      label: 'op=all_reduce fabric=tcp nodes=2',
    });
    expect(listRuns(db, { kind: 'collective', limit: 1 }).map((run) => run.id)).toEqual([3]);

    // Exactly what was saved comes back, unrounded.
    expect(getRun(db, firstId)?.envelope).toEqual(first);
    expect(getRun(db, planId)?.envelope.metrics).toEqual({ stepTimeMs: 1200.123456789 });
    expect(getRun(db, 99)).toBeUndefined();
  });

  it('uses WAL and an explicit busy timeout', () => {
    const db = tempDbPath();
    const store = new RunStore(db);
    store.close();
    const raw = rawDb(db);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(raw.pragma('user_version', { simple: true })).toBe(LATEST_STORE_VERSION);
    raw.close();
  });

  it('refuses what is not an envelope, and unknown ids, as bad input (exit 2)', () => {
    const db = tempDbPath();
    expectAifabricError(() => saveResult(db, { hello: 1 } as never), 2, /not a result envelope/);
    const store = new RunStore(db);
    expectAifabricError(() => store.require(5), 2, /no run 5 in .*aifabric\.db/);
    store.close();
    expect(parseRunId('#12')).toBe(12);
    expectAifabricError(() => parseRunId('12abc'), 2, /invalid run id "12abc"/);
    expectAifabricError(() => parseRunId('0'), 2, /invalid run id/);
  });

  it('readers never create a database that is not there', () => {
    const db = tempDbPath('missing.db');
    expectAifabricError(() => listRuns(db), 2, /no results database at .*missing\.db/);
  });

  it('the read-only store cannot write', () => {
    const db = tempDbPath();
    saveResult(db, collective('tcp'));
    const store = new RunStore(db, { readonly: true });
    expect(store.list()).toHaveLength(1);
    expect(() => store.save(collective('tcp'))).toThrow();
    store.close();
  });

  it('resolves the database path from --db, then AIFABRIC_DB, then ./aifabric.db', () => {
    const saved = process.env.AIFABRIC_DB;
    try {
      process.env.AIFABRIC_DB = '/tmp/from-env.db';
      expect(resolveDbPath('/tmp/flag.db')).toBe('/tmp/flag.db');
      expect(resolveDbPath(undefined)).toBe('/tmp/from-env.db');
      delete process.env.AIFABRIC_DB;
      expect(resolveDbPath(undefined)).toBe('aifabric.db');
    } finally {
      if (saved === undefined) delete process.env.AIFABRIC_DB;
      else process.env.AIFABRIC_DB = saved;
    }
  });
});

describe('migrations', () => {
  it('turn an empty file into the latest schema', () => {
    const db = tempDbPath();
    writeFileSync(db, '');
    const id = saveResult(db, collective('tcp'));
    expect(id).toBe(1);
    const raw = rawDb(db);
    expect(raw.pragma('user_version', { simple: true })).toBe(LATEST_STORE_VERSION);
    expect(raw.pragma('application_id', { simple: true })).toBe(0x41494642);
    raw.close();
  });

  it('upgrade a version-1 database, keeping every row and filling the new columns', () => {
    const db = tempDbPath();
    const raw = rawDb(db);
    raw.exec(readFileSync(join(import.meta.dirname, 'fixtures', 'schema-v1.sql'), 'utf8'));
    expect(raw.pragma('user_version', { simple: true })).toBe(1);
    raw.close();

    const store = new RunStore(db);
    const runs = store.list();
    expect(runs.map((run) => [run.id, run.kind])).toEqual([
      [3, 'broken'],
      [2, 'plan'],
      [1, 'collective'],
    ]);
    expect(runs[2]).toMatchObject({
      toolVersion: '0.0.9',
      savedAt: '2026-10-01T08:00:00.000Z',
      label: 'op=all_reduce fabric=roce-v2 nodes=2',
    });
    // A row whose JSON was already unreadable survives the migration untouched.
    expect(runs[0]).toMatchObject({ toolVersion: null, label: '' });
    expect(store.get(1)?.envelope.metrics).toEqual({ rows: [{ sizeBytes: 1048576, busbwGBps: 40.5 }] });
    // New ids continue after the old ones (AUTOINCREMENT: an id is never reused).
    expect(store.save(collective('tcp'))).toBe(4);
    store.close();
  });

  it('stop with a clear message on a database from a newer aifabric (exit 3)', () => {
    const db = tempDbPath();
    saveResult(db, collective('tcp'));
    const raw = rawDb(db);
    raw.pragma(`user_version = ${LATEST_STORE_VERSION + 1}`);
    raw.close();
    expectAifabricError(
      () => new RunStore(db),
      3,
      new RegExp(
        `written by a newer aifabric \\(store schema version ${LATEST_STORE_VERSION + 1}\\).*reads versions up to ${LATEST_STORE_VERSION}`,
      ),
    );
  });

  it('refuse files that are not aifabric stores (exit 2)', () => {
    const text = tempDbPath('notes.txt');
    writeFileSync(text, 'these are my notes, not a database\n'.repeat(200));
    expectAifabricError(() => new RunStore(text), 2, /not an aifabric results database/);

    const foreign = tempDbPath('other.db');
    const raw = rawDb(foreign);
    raw.exec('CREATE TABLE invoices (id INTEGER)');
    raw.close();
    expectAifabricError(() => new RunStore(foreign), 2, /without aifabric's tables/);
  });
});

describe('several processes', () => {
  it('two processes saving at once lose nothing', async () => {
    const db = tempDbPath();
    const perWorker = 200;
    const go = join(dirname(db), 'go');
    const hold = join(dirname(db), 'hold');
    const workers = [
      startSaveWorker(db, perWorker, 'tcp', 2000, go, hold),
      startSaveWorker(db, perWorker, 'roce-v2', 2000, go, hold),
    ];
    // Both processes are loaded and waiting before either writes, and each holds after its first commit until
    // both have committed one: the saves overlap in time even when the scheduler runs one process first.
    await Promise.all(workers.map((worker) => worker.waitForEvent('ready')));
    writeFileSync(go, '');
    await Promise.all(workers.map((worker) => worker.waitForIds(1)));
    writeFileSync(hold, '');
    const results = await Promise.all(workers.map((worker) => worker.done));
    const span = (worker: (typeof workers)[number], event: string) =>
      Number(worker.events.find((line) => line.startsWith(`${event} `))?.split(' ')[1]);
    expect(span(workers[0]!, 'start')).toBeLessThan(span(workers[1]!, 'end'));
    expect(span(workers[1]!, 'start')).toBeLessThan(span(workers[0]!, 'end'));
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });
    const reported = workers.flatMap((worker) => worker.ids);
    expect(new Set(reported).size).toBe(2 * perWorker);

    const store = new RunStore(db);
    const runs = store.list();
    expect(runs).toHaveLength(2 * perWorker);
    expect(runs.map((run) => run.id).sort((a, b) => a - b)).toEqual([...reported].sort((a, b) => a - b));
    expect(runs.filter((run) => run.label.includes('fabric=tcp'))).toHaveLength(perWorker);
    store.close();
  });

  it('a process killed mid-write leaves a consistent database with every committed run', async () => {
    const db = tempDbPath();
    // Large envelopes keep the writer inside a write most of the time, so the kill lands mid-transaction.
    const worker = startSaveWorker(db, 0, 'tcp', 400_000);
    await worker.waitForIds(25);
    worker.kill('SIGKILL');
    const ended = await worker.done;
    expect(ended.signal).toBe('SIGKILL');

    const raw = rawDb(db);
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    raw.close();
    const store = new RunStore(db);
    const ids = new Set(store.list().map((run) => run.id));
    for (const id of worker.ids) expect(ids.has(id)).toBe(true);
    // Every stored row is a whole envelope, never a torn one.
    for (const id of ids) expect(store.get(id)?.envelope.kind).toBe('collective');
    expect(store.save(collective('tcp'))).toBeGreaterThan(Math.max(...worker.ids));
    store.close();
  });
});
