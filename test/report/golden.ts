/**
 * Golden files in the manner of Observable Plot's snapshot tests: on mismatch the new output is
 * written beside the golden as `<name>-changed.<ext>` for a visual diff, and the test fails;
 * goldens are (re)written only with UPDATE_GOLDEN=1, never silently.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const GOLDEN_DIR = join(import.meta.dirname, 'golden');

export interface GoldenOutcome {
  matches: boolean;
  message: string;
}

export function checkGolden(fileName: string, actual: string): GoldenOutcome {
  const path = join(GOLDEN_DIR, fileName);
  const dot = fileName.lastIndexOf('.');
  const changedPath = join(GOLDEN_DIR, `${fileName.slice(0, dot)}-changed${fileName.slice(dot)}`);
  if (process.env.UPDATE_GOLDEN === '1') {
    writeFileSync(path, actual);
    rmSync(changedPath, { force: true });
    return { matches: true, message: `updated ${path}` };
  }
  if (!existsSync(path)) {
    writeFileSync(changedPath, actual);
    return { matches: false, message: `no golden ${path}; wrote ${changedPath} (review it, then run with UPDATE_GOLDEN=1)` };
  }
  if (readFileSync(path, 'utf8') === actual) {
    rmSync(changedPath, { force: true });
    return { matches: true, message: 'matches' };
  }
  writeFileSync(changedPath, actual);
  return { matches: false, message: `${fileName} differs from its golden; wrote ${changedPath} (UPDATE_GOLDEN=1 accepts it)` };
}
