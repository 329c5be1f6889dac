/**
 * Every file in examples/ through every command that reads it, text and `--json`, held byte for byte
 * against goldens in test/cli/golden/examples (createdAt and timing left out of the JSON: they change
 * every run; the checkout's path held as `<repo>`). A restructuring that changes what a user sees fails here; a deliberate change is
 * accepted with UPDATE_GOLDEN=1 and shows as a diff of the goldens. Scenarios are held by the
 * simulator's fingerprints (test/sim), which this does not repeat.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectGolden } from '../helpers/golden.js';
import { REPO_ROOT, requireBuild, runCli } from '../helpers/run-cli.js';

const GOLDEN = join(REPO_ROOT, 'test/cli/golden/examples');
const examples = (folder: string) =>
  readdirSync(join(REPO_ROOT, 'examples', folder))
    .filter((name) => name.endsWith('.yaml'))
    .sort();

/** The envelope without the two fields that differ run to run, as indented JSON. */
function stableJson(stdout: string): string {
  const parsed = JSON.parse(stdout) as unknown;
  const strip = (envelope: unknown) => {
    if (envelope === null || typeof envelope !== 'object') return envelope;
    const { createdAt: _createdAt, timing: _timing, ...rest } = envelope as Record<string, unknown>;
    return rest;
  };
  return `${JSON.stringify(Array.isArray(parsed) ? parsed.map(strip) : strip(parsed), null, 2)}\n`;
}

/** Paths the commands echo (check's inputs.from and inputs.cluster) name the checkout: held as `<repo>/...`. */
const portable = (text: string) => text.split(REPO_ROOT).join('<repo>/');

async function expectCommand(name: string, args: string[]): Promise<void> {
  const text = await runCli(args);
  expect(text.code, text.stderr).toBe(0);
  expectGolden(join(GOLDEN, `${name}.txt`), portable(text.stdout));
  const json = await runCli([...args, '--json']);
  expect(json.code, json.stderr).toBe(0);
  expectGolden(join(GOLDEN, `${name}.json`), portable(stableJson(json.stdout)));
}

describe('examples/ through every command that reads them', () => {
  requireBuild();
  const jobs = examples('jobs');
  const clusters = examples('clusters');

  it('reads the folders, not a list', () => {
    expect(jobs.length).toBeGreaterThanOrEqual(7);
    expect(clusters.length).toBeGreaterThanOrEqual(1);
  });

  for (const job of jobs) {
    const file = join('examples/jobs', job);
    const base = job.replace(/\.yaml$/, '');
    for (const command of ['plan', 'compare', 'scale']) {
      it(`${command} ${file}`, async () => {
        await expectCommand(`${command}-${base}`, [command, file]);
      }, 60_000);
    }
  }

  for (const cluster of clusters) {
    const file = join('examples/clusters', cluster);
    const base = cluster.replace(/\.yaml$/, '');
    it(`check --cluster ${file} on the healthy RoCE captures`, async () => {
      await expectCommand(`check-${base}`, [
        'check',
        '--cluster',
        file,
        '--from',
        'test/fixtures/check/healthy-roce',
      ]);
    }, 60_000);
  }
});
