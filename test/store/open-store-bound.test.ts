import { afterAll, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { openDatabase } from '../../src/store/index.js';
import { EnvironmentError } from '../../src/core/errors.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const dir = mkdtempSync(join(tmpdir(), 'aifabric-store-bound-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('opening a locked store', () => {
  it('gives up after the busy timeout with one clear line (exit 3), never loops forever', () => {
    const path = join(dir, 'locked.db');
    // Another writer holds an exclusive lock in rollback-journal mode, so even reading the schema version is refused.
    const holder = new Database(path);
    holder.pragma('journal_mode = DELETE');
    holder.exec('CREATE TABLE other (x)');
    holder.exec('BEGIN EXCLUSIVE');
    holder.exec('INSERT INTO other VALUES (1)');
    try {
      let caught: unknown;
      try {
        openDatabase(path, { busyTimeoutMs: 300 }).close();
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(EnvironmentError);
      expect((caught as EnvironmentError).exitCode).toBe(3);
      expect((caught as Error).message).toBe(
        `${path}: the results database stayed locked by another process for 0.3 s`,
      );
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });
});
