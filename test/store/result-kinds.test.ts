import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AifabricError } from '../../src/core/errors.js';
import { KNOWN_RESULT_KINDS, checkKindFilter, normaliseKind, sameKind } from '../../src/store/index.js';
import { REPO_ROOT } from '../helpers/run-cli.js';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('result kinds for filters', () => {
  it('KNOWN_RESULT_KINDS lists every kind a command emits (every makeResult call in src/)', () => {
    const emitted = new Set<string>();
    for (const file of sourceFiles(join(REPO_ROOT, 'src'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/makeResult(?:<[^>]*>)?\(\s*'([^']+)'/g))
        emitted.add(match[1]!);
    }
    expect(emitted.size).toBeGreaterThan(10);
    expect([...emitted].filter((kind) => !KNOWN_RESULT_KINDS.includes(kind)).sort()).toEqual([]);
  });

  it('bench.tcp and bench-tcp are one kind; others stay apart', () => {
    expect(normaliseKind('bench-tcp')).toBe(normaliseKind('bench.tcp'));
    expect(sameKind('Bench-TCP', 'bench.tcp')).toBe(true);
    expect(sameKind('testbed.up', 'testbed-down')).toBe(false);
    expect(sameKind('plan', 'compare')).toBe(false);
  });

  it('a filter passes for an emitted or a stored kind in either spelling, and otherwise lists the known kinds (exit 2)', () => {
    expect(() => checkKindFilter('bench-tcp', [])).not.toThrow();
    expect(() => checkKindFilter('mystery-kind', ['mystery.kind'])).not.toThrow();
    let error: unknown;
    try {
      checkKindFilter('bench_tcp', ['mystery-kind']);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AifabricError);
    expect((error as AifabricError).exitCode).toBe(2);
    expect((error as AifabricError).message).toMatch(
      /^unknown kind "bench_tcp" \(known kinds: accept, bench\.tcp, check, .*mystery-kind.*\)$/,
    );
  });
});
