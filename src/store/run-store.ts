/**
 * The store's queries: save an envelope, list runs, fetch one. A run's id is SQLite's rowid
 * (AUTOINCREMENT, so an id is never reused after a delete and `runs show 7` always means one result).
 * Envelopes are stored verbatim as JSON: `runs show ID --json` gives back exactly what was saved.
 */
import { InputError } from '../core/errors.js';
import type { ResultEnvelope } from '../core/envelope.js';
import { describeRun } from '../result/index.js';
import { normaliseKind } from './result-kinds.js';
import { openDatabase, storeError, type OpenStoreOptions, type SqliteDatabase } from './open-store.js';

export interface RunSummary {
  id: number;
  kind: string;
  createdAt: string;
  savedAt: string | null;
  toolVersion: string | null;
  label: string;
}

export interface StoredRun extends RunSummary {
  envelope: ResultEnvelope;
}

export interface ListRunsFilter {
  kind?: string;
  /** Newest first, at most this many. */
  limit?: number;
}

interface RunRow {
  id: number;
  kind: string;
  created_at: string;
  saved_at: string | null;
  tool_version: string | null;
  label: string;
}

function toSummary(row: RunRow): RunSummary {
  return {
    id: row.id,
    kind: row.kind,
    createdAt: row.created_at,
    savedAt: row.saved_at,
    toolVersion: row.tool_version,
    label: row.label,
  };
}

/** Only envelopes can be saved: anything else would make `runs show` and `report` fail later, far from the cause. */
function checkEnvelope(envelope: unknown): asserts envelope is ResultEnvelope<unknown> {
  const record = envelope as Partial<ResultEnvelope<unknown>> | null;
  if (
    typeof record !== 'object' ||
    record === null ||
    typeof record.kind !== 'string' ||
    record.kind === ''
  ) {
    throw new InputError('cannot save: not a result envelope (missing kind)');
  }
  if (typeof record.createdAt !== 'string')
    throw new InputError(`cannot save ${record.kind} result: missing createdAt`);
}

/** A saved row whose envelope no longer reads back (a hand-edited or damaged database): exit 2, naming the row. */
export class CorruptRunError extends InputError {
  readonly runId: number;

  constructor(path: string, id: number, reason: string) {
    super(`run ${id} in ${path} is corrupt: its saved envelope ${reason}`);
    this.name = 'CorruptRunError';
    this.runId = id;
  }
}

function readSavedEnvelope(path: string, id: number, json: string): ResultEnvelope {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new CorruptRunError(
      path,
      id,
      `is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const record = parsed as Partial<ResultEnvelope> | null;
  if (typeof record !== 'object' || record === null || Array.isArray(record))
    throw new CorruptRunError(path, id, 'is not a JSON object');
  if (typeof record.kind !== 'string') throw new CorruptRunError(path, id, 'has no kind');
  if (typeof record.metrics !== 'object' || record.metrics === null)
    throw new CorruptRunError(path, id, 'has no metrics');
  return record as ResultEnvelope;
}

/** Parses `7` or `#7`; anything else is a usage error naming what was given. */
export function parseRunId(text: string): number {
  const match = /^\s*#?(\d+)\s*$/.exec(text);
  const id = match ? Number(match[1]) : Number.NaN;
  if (!Number.isSafeInteger(id) || id < 1)
    throw new InputError(
      `invalid run id "${text}" (expected a whole number such as 7, from \`aifabric runs list\`)`,
    );
  return id;
}

export class RunStore {
  readonly path: string;
  private readonly db: SqliteDatabase;

  constructor(path: string, options: OpenStoreOptions = {}) {
    this.path = path;
    this.db = openDatabase(path, options);
  }

  save(envelope: ResultEnvelope<unknown>): number {
    checkEnvelope(envelope);
    const json = JSON.stringify(envelope);
    try {
      const info = this.db
        .prepare(
          `INSERT INTO runs (kind, created_at, envelope, saved_at, tool_version, schema_version, label)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          envelope.kind,
          envelope.createdAt,
          json,
          new Date().toISOString(),
          typeof envelope.tool?.version === 'string' ? envelope.tool.version : null,
          typeof envelope.schemaVersion === 'number' ? envelope.schemaVersion : null,
          describeRun(envelope as unknown as Record<string, unknown>),
        );
      return Number(info.lastInsertRowid);
    } catch (error) {
      throw storeError(this.path, error);
    }
  }

  list(filter: ListRunsFilter = {}): RunSummary[] {
    // Either spelling of a kind matches (bench.tcp, bench-tcp): see result-kinds.ts.
    const where = filter.kind !== undefined ? "WHERE lower(replace(kind, '-', '.')) = @kind" : '';
    const limit = filter.limit !== undefined ? 'LIMIT @limit' : '';
    const rows = this.db
      .prepare(
        `SELECT id, kind, created_at, saved_at, tool_version, label FROM runs ${where} ORDER BY id DESC ${limit}`,
      )
      .all({
        ...(filter.kind !== undefined ? { kind: normaliseKind(filter.kind) } : {}),
        ...(filter.limit !== undefined ? { limit: filter.limit } : {}),
      }) as RunRow[];
    return rows.map(toSummary);
  }

  get(id: number): StoredRun | undefined {
    const row = this.db
      .prepare('SELECT id, kind, created_at, saved_at, tool_version, label, envelope FROM runs WHERE id = ?')
      .get(id) as (RunRow & { envelope: string }) | undefined;
    if (!row) return undefined;
    return { ...toSummary(row), envelope: readSavedEnvelope(this.path, row.id, row.envelope) };
  }

  /** The id of a saved run whose envelope is exactly this one (same JSON), if any: `runs import` skips those. */
  findIdentical(envelope: ResultEnvelope<unknown>): number | undefined {
    const row = this.db
      .prepare('SELECT id FROM runs WHERE kind = ? AND created_at = ? AND envelope = ? ORDER BY id LIMIT 1')
      .get(envelope.kind, envelope.createdAt, JSON.stringify(envelope)) as { id: number } | undefined;
    return row?.id;
  }

  /** Like get, but a missing id is bad input (exit 2) that names the database. */
  require(id: number): StoredRun {
    const run = this.get(id);
    if (!run) throw new InputError(`no run ${id} in ${this.path} (see \`aifabric runs list\`)`);
    return run;
  }

  count(kind?: string): number {
    const row =
      kind === undefined
        ? this.db.prepare('SELECT count(*) AS n FROM runs').get()
        : this.db
            .prepare("SELECT count(*) AS n FROM runs WHERE lower(replace(kind, '-', '.')) = ?")
            .get(normaliseKind(kind));
    return (row as { n: number }).n;
  }

  /** Every kind present, for filters. */
  kinds(): string[] {
    return (this.db.prepare('SELECT DISTINCT kind FROM runs ORDER BY kind').all() as { kind: string }[]).map(
      (row) => row.kind,
    );
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** Opens the store, saves one envelope, closes: the `--save` path of every command. */
export function saveResult(dbPath: string, envelope: ResultEnvelope<unknown>): number {
  const store = new RunStore(dbPath);
  try {
    return store.save(envelope);
  } finally {
    store.close();
  }
}

export function listRuns(dbPath: string, filter: ListRunsFilter = {}): RunSummary[] {
  const store = new RunStore(dbPath, { mustExist: true });
  try {
    return store.list(filter);
  } finally {
    store.close();
  }
}

export function getRun(dbPath: string, id: number): StoredRun | undefined {
  const store = new RunStore(dbPath, { mustExist: true });
  try {
    return store.get(id);
  } finally {
    store.close();
  }
}
