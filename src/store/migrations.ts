/**
 * Versioned schema migrations of the results store. The schema version lives in SQLite's own
 * `PRAGMA user_version`, so any sqlite3 shell can tell which aifabric wrote a file. Migrations only
 * ever move forward; each runs in the same IMMEDIATE transaction as the version bump, so a crash
 * leaves the file at the old version or the new one, never between.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { describeRun } from '../result/index.js';

export interface Migration {
  /** The schema version the file has once this migration ran. */
  version: number;
  description: string;
  up(db: BetterSqlite3.Database): void;
}

/** 'AIFB' as a 32-bit integer: marks the file as an aifabric store for `file(1)` and for us. */
export const STORE_APPLICATION_ID = 0x41494642;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'runs table: one row per saved result envelope',
    up(db) {
      db.exec(`
        CREATE TABLE runs (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          kind TEXT NOT NULL,
          created_at TEXT NOT NULL,
          envelope TEXT NOT NULL
        );
        CREATE INDEX runs_kind ON runs (kind);
      `);
    },
  },
  {
    version: 2,
    description:
      'who saved what and when: tool version, envelope schema version, save time, a one-line label',
    up(db) {
      db.exec(`
        ALTER TABLE runs ADD COLUMN saved_at TEXT;
        ALTER TABLE runs ADD COLUMN tool_version TEXT;
        ALTER TABLE runs ADD COLUMN schema_version INTEGER;
        ALTER TABLE runs ADD COLUMN label TEXT NOT NULL DEFAULT '';
        CREATE INDEX runs_kind_created ON runs (kind, created_at);
      `);
      // Rows saved by version 1 get the same derived columns new rows get, computed from their JSON.
      const rows = db.prepare('SELECT id, created_at, envelope FROM runs').all() as {
        id: number;
        created_at: string;
        envelope: string;
      }[];
      const update = db.prepare(
        'UPDATE runs SET saved_at = ?, tool_version = ?, schema_version = ?, label = ? WHERE id = ?',
      );
      for (const row of rows) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(row.envelope);
        } catch {
          parsed = undefined;
        }
        const envelope = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<
          string,
          unknown
        >;
        const tool = envelope.tool as { version?: unknown } | undefined;
        update.run(
          row.created_at,
          typeof tool?.version === 'string' ? tool.version : null,
          typeof envelope.schemaVersion === 'number' ? envelope.schemaVersion : null,
          describeRun(envelope),
          row.id,
        );
      }
      db.pragma(`application_id = ${STORE_APPLICATION_ID}`);
    },
  },
];

export const LATEST_STORE_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
