/**
 * Golden tests: every real nccl-tests output in test/fixtures/nccl-tests parses to exactly the facts
 * in its `.golden.json`. Regenerate with UPDATE_GOLDEN=1 and review the diff by hand; the streaming
 * path must give the same facts as the string path.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectKind, parseNcclTests, parseNcclTestsFile } from '../../src/parse/index.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'nccl-tests');
const fixtures = readdirSync(FIXTURES).filter((name) => !name.endsWith('.golden.json') && !name.endsWith('.md'));
const update = process.env.UPDATE_GOLDEN === '1';

describe('nccl-tests goldens', () => {
  it('has at least 20 fixtures', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(20);
  });

  for (const name of fixtures) {
    it(`${name} matches its golden facts`, async () => {
      const text = readFileSync(join(FIXTURES, name), 'utf8');
      const result = parseNcclTests(text);
      const goldenPath = join(FIXTURES, `${name}.golden.json`);
      const actual = `${JSON.stringify(result, null, 2)}\n`;
      if (update) writeFileSync(goldenPath, actual);
      expect(existsSync(goldenPath), `missing ${goldenPath}: run with UPDATE_GOLDEN=1 and review it`).toBe(true);
      expect(actual).toBe(readFileSync(goldenPath, 'utf8'));
      const streamed = await parseNcclTestsFile(join(FIXTURES, name));
      expect(streamed).toEqual(result);
      expect(detectKind(text)?.kind).toBe('nccl-tests');
    });
  }
});
