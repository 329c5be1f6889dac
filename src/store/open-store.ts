/**
 * Opening the SQLite store: WAL so readers (report, serve) never block a writer (`--save`) and two
 * writers queue behind a busy timeout instead of failing; migrations to the latest schema; and a
 * clear stop when the file was written by a newer aifabric. better-sqlite3 is loaded here, on first
 * use, so neither `aifabric --help` nor `import 'aifabric'` pays for the native module.
 */
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { EnvironmentError, InputError } from '../core/errors.js';
import { checkOutputFile } from '../core/output-path.js';
import { VERSION } from '../core/version.js';
import { LATEST_STORE_VERSION, MIGRATIONS, STORE_APPLICATION_ID } from './migrations.js';

export type SqliteDatabase = BetterSqlite3.Database;

export interface OpenStoreOptions {
  /** Fail with a usage-level error instead of creating an empty store (readers: runs, report, serve). */
  mustExist?: boolean;
  /** Open read-only after migrating (the dashboard). */
  readonly?: boolean;
  /** How long a writer waits for another writer's lock, in milliseconds. */
  busyTimeoutMs?: number;
}

/** Where results go: `--db PATH`, else AIFABRIC_DB, else ./aifabric.db. */
export function resolveDbPath(option?: string): string {
  if (option !== undefined && option !== '') return option;
  const fromEnvironment = process.env.AIFABRIC_DB;
  return fromEnvironment !== undefined && fromEnvironment !== '' ? fromEnvironment : 'aifabric.db';
}

const DEFAULT_BUSY_TIMEOUT_MS = 10_000;

let driver: typeof BetterSqlite3 | undefined;

function loadDriver(): typeof BetterSqlite3 {
  if (!driver) {
    try {
      driver = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
    } catch (error) {
      throw new EnvironmentError(
        `cannot load better-sqlite3 (the results store): ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }
  return driver;
}

function sqliteCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

/** Turns SQLite's own failures into the contract's errors: not a database is bad input (2), locks and disks are environment (3). */
export function storeError(path: string, error: unknown): Error {
  const code = sqliteCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT')
    return new InputError(`${path}: not an aifabric results database (${message})`);
  if (code?.startsWith('SQLITE_')) return new EnvironmentError(`${path}: ${message}`, { cause: error });
  return error instanceof Error ? error : new Error(message);
}

function tableNames(db: SqliteDatabase): string[] {
  return (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as {
      name: string;
    }[]
  ).map((row) => row.name);
}

function checkOwnership(path: string, db: SqliteDatabase, version: number): void {
  const applicationId = db.pragma('application_id', { simple: true }) as number;
  if (applicationId !== 0 && applicationId !== STORE_APPLICATION_ID) {
    throw new InputError(
      `${path}: an SQLite database of another application (application_id ${applicationId}), not an aifabric store`,
    );
  }
  // Version 0 with tables of its own is someone else's database: never add ours beside them.
  if (version === 0 && tableNames(db).length > 0) {
    throw new InputError(`${path}: an SQLite database without aifabric's tables; use another --db`);
  }
  if (version > LATEST_STORE_VERSION) {
    // Exit 3: the file is fine, this installation is too old to read it.
    throw new EnvironmentError(
      `${path} was written by a newer aifabric (store schema version ${version}); this aifabric ${VERSION} reads versions up to ${LATEST_STORE_VERSION}. Upgrade aifabric, or use another --db`,
    );
  }
}

/** Applies every migration above the file's version; returns the version it ended at. */
export function migrate(path: string, db: SqliteDatabase): number {
  const apply = db.transaction(() => {
    // Read the version inside the write lock: another process may have migrated while we waited.
    const version = db.pragma('user_version', { simple: true }) as number;
    checkOwnership(path, db, version);
    for (const migration of MIGRATIONS) {
      if (migration.version <= version) continue;
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    }
    return db.pragma('user_version', { simple: true }) as number;
  });
  return apply.immediate();
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED';
}

/**
 * Opening is retried while another process holds the lock: two processes opening a new file at
 * once race on switching it to WAL, where SQLite answers SQLITE_BUSY without calling the busy
 * handler (seen here when two `--save` runs start together). Later writes wait on the busy timeout.
 */
export function openDatabase(path: string, options: OpenStoreOptions = {}): SqliteDatabase {
  const deadline = Date.now() + (options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
  for (let attempt = 0; ; attempt++) {
    try {
      return openDatabaseOnce(path, options);
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause ?? error;
      if (!isBusy(cause)) throw error;
      // Bounded: past the busy timeout the lock holder is stuck or long-running; say so (exit 3).
      if (Date.now() >= deadline) {
        throw new EnvironmentError(
          `${path}: the results database stayed locked by another process for ${(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS) / 1000} s`,
          { cause },
        );
      }
      // Synchronous back-off (the store API is synchronous, as better-sqlite3's is).
      Atomics.wait(
        new Int32Array(new SharedArrayBuffer(4)),
        0,
        0,
        Math.min(200, 10 * 2 ** Math.min(attempt, 4)),
      );
    }
  }
}

function openDatabaseOnce(path: string, options: OpenStoreOptions): SqliteDatabase {
  if (options.mustExist && !existsSync(path)) {
    throw new InputError(
      `no results database at ${path} (save results with --save, or point --db / AIFABRIC_DB at one)`,
    );
  }
  if (options.mustExist && statSync(path).isDirectory())
    throw new InputError(`${path}: a folder, not a results database`);
  // A writer may create the file but never its folder: a missing or unwritable folder is one clear line (exit 2 or 3), not SQLite's own error.
  if (!options.mustExist && path !== ':memory:') checkOutputFile(path, { createParents: false });
  const Database = loadDriver();
  const timeout = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  let db: SqliteDatabase | undefined;
  try {
    db = new Database(path, { timeout });
    // One read transaction, so the version and the table list come from the same snapshot even
    // while another process is creating the schema.
    const readVersion = db.transaction(() => {
      const current = db!.pragma('user_version', { simple: true }) as number;
      checkOwnership(path, db!, current);
      return current;
    });
    const version = readVersion();
    // WAL: concurrent readers never block the one writer; NORMAL sync is crash-safe for the
    // process (a killed writer loses at most its open transaction) without an fsync per commit.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    if (version < LATEST_STORE_VERSION) migrate(path, db);
    if (options.readonly) {
      db.close();
      db = new Database(path, { timeout, readonly: true, fileMustExist: true });
    }
    return db;
  } catch (error) {
    db?.close();
    throw storeError(path, error);
  }
}
