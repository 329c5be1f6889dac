#!/usr/bin/env node
// Runs vitest in three phases, then prints the closing line CI reads: "N passed, N failed" alone on
// a line (vitest's own summary is not recognised by CI). Phase 1 is the whole suite but the
// testbed files and test/stress; phase 2 is the files that build namespace testbeds and measure
// rates through them (test/testbed, the accept runs on a testbed), one file at a time, so that no
// file's iperf3 or bench run shares the two cores with another's (a CI run measured 0.57 of a
// 200 Mbit/s port while the accept testbed ran beside it); phase 3 is test/stress alone, because
// the stress suite keeps both cores busy on purpose. Exit code: non-zero if any failed.
// Arguments after the script are passed to both phases (e.g. a test name filter).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const outDir = join(process.cwd(), 'test-output');
mkdirSync(outDir, { recursive: true });
const vitest = join(process.cwd(), 'node_modules', 'vitest', 'vitest.mjs');
const extra = process.argv.slice(2);

const testbedFiles = ['test/testbed', 'test/accept/accept-testbed.test.ts'];
const phases = [
  { name: 'suite', args: ['--exclude', 'test/stress/**', '--exclude', 'test/testbed/**', '--exclude', 'test/accept/accept-testbed.test.ts'] },
  { name: 'testbed', args: [...testbedFiles, '--no-file-parallelism'] },
  { name: 'stress', args: ['test/stress', '--no-file-parallelism'] },
];

let passed = 0;
let failed = 0;
let skipped = 0;
let code = 0;
const failures = [];
for (const phase of phases) {
  const jsonFile = join(outDir, `vitest-${phase.name}.json`);
  rmSync(jsonFile, { force: true });
  const args = [vitest, 'run', '--passWithNoTests', '--reporter=default', '--reporter=json', `--outputFile.json=${jsonFile}`, ...phase.args, ...extra];
  const run = spawnSync(process.execPath, args, { stdio: 'inherit' });
  let phaseFailed = 0;
  if (existsSync(jsonFile)) {
    const report = JSON.parse(readFileSync(jsonFile, 'utf8'));
    passed += report.numPassedTests ?? 0;
    phaseFailed = (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    for (const file of report.testResults ?? []) {
      const name = file.name?.replace(`${process.cwd()}/`, '') ?? '?';
      const failedTests = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
      for (const test of failedTests)
        failures.push(`${phase.name}: ${name} > ${test.fullName ?? test.title}: ${(test.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 300)}`);
      if (failedTests.length === 0 && file.status === 'failed') failures.push(`${phase.name}: ${name} (${(file.message ?? 'failed to run').split('\n')[0]})`);
    }
  } else {
    phaseFailed = 1;
  }
  const phaseCode = run.status ?? 1;
  if (phaseCode !== 0 && phaseFailed === 0) phaseFailed = 1;
  failed += phaseFailed;
  if (phaseCode !== 0) code = phaseCode;
}
// The names again at the very end, where a CI log's tail shows them.
for (const failure of failures) console.log(`FAILED ${failure}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(code);
