/** Loads the report fixtures: result envelopes of every kind the report draws, in the shapes the engines emit. */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ResultEnvelope } from '../../src/core/envelope.js';

export const FIXTURE_DIR = join(import.meta.dirname, 'fixtures');

export function loadFixture(name: string): ResultEnvelope[] {
  const parsed = JSON.parse(readFileSync(join(FIXTURE_DIR, `${name}.json`), 'utf8')) as
    ResultEnvelope | ResultEnvelope[];
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** Every fixture, in file-name order: the demo-sized set of results. */
export function loadAllFixtures(): ResultEnvelope[] {
  return readdirSync(FIXTURE_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .flatMap((file) => loadFixture(file.replace(/\.json$/, '')));
}
