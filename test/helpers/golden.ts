/**
 * The one golden-file helper (parsers' facts, nccl-tests output, report SVG and HTML), in the manner
 * of Observable Plot's snapshot tests: the output must equal the golden byte for byte; on mismatch
 * it is written beside the golden as `<name>-changed.<ext>` for a diff, and the test fails. Goldens
 * are (re)written only with UPDATE_GOLDEN=1, never silently.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { expect } from 'vitest';

export interface GoldenOutcome {
  matches: boolean;
  message: string;
}

/** `golden/x.svg` -> `golden/x-changed.svg`, `a.log.golden.json` -> `a-changed.log.golden.json`: the name keeps its extensions, so no reader of fixtures takes it for one. */
export function changedPath(path: string): string {
  const name = basename(path);
  const dot = name.indexOf('.', 1);
  return join(
    dirname(path),
    dot === -1 ? `${name}-changed` : `${name.slice(0, dot)}-changed${name.slice(dot)}`,
  );
}

export function checkGolden(path: string, actual: string): GoldenOutcome {
  const changed = changedPath(path);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    rmSync(changed, { force: true });
    return { matches: true, message: `updated ${path}` };
  }
  if (!existsSync(path)) {
    writeFileSync(changed, actual);
    return {
      matches: false,
      message: `no golden ${path}; wrote ${changed} (review it, then run with UPDATE_GOLDEN=1)`,
    };
  }
  if (readFileSync(path, 'utf8') === actual) {
    rmSync(changed, { force: true });
    return { matches: true, message: 'matches' };
  }
  writeFileSync(changed, actual);
  return {
    matches: false,
    message: `${path} differs from its golden; wrote ${changed} (UPDATE_GOLDEN=1 accepts it)`,
  };
}

export function expectGolden(path: string, actual: string): void {
  const outcome = checkGolden(path, actual);
  expect(outcome.matches, outcome.message).toBe(true);
}

/** A value as indented JSON with a final newline, compared as text. */
export function expectGoldenJson(path: string, value: unknown): void {
  expectGolden(path, `${JSON.stringify(value, null, 2)}\n`);
}
