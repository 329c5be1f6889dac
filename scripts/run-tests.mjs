#!/usr/bin/env node
// Runs vitest, then prints the closing line CI reads: "N passed, N failed" alone on a line
// (vitest's own summary is not recognised by CI). Exit code is vitest's.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const outDir = join(process.cwd(), 'test-output');
mkdirSync(outDir, { recursive: true });
const jsonFile = join(outDir, 'vitest-results.json');
const vitest = join(process.cwd(), 'node_modules', 'vitest', 'vitest.mjs');
const args = [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${jsonFile}`, ...process.argv.slice(2)];
const run = spawnSync(process.execPath, args, { stdio: 'inherit' });

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(jsonFile)) {
  const report = JSON.parse(readFileSync(jsonFile, 'utf8'));
  passed = report.numPassedTests ?? 0;
  failed = (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
} else {
  failed = 1;
}
const code = run.status ?? 1;
if (code !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(code);
