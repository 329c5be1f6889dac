/**
 * Broken job, scenario and cluster files through the built CLI: YAML syntax errors at their real
 * `file:line:col` (not 1:1), an alias bomb refused quickly in bounded memory, and inputs that would
 * block or never end (a FIFO, /dev/zero, a huge file) refused with exit 2 and one line naming the file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, runCli, type CliRun } from '../helpers/run-cli.js';

const JOB = readFileSync(join(REPO_ROOT, 'examples/jobs/llama3-70b-8xh100.yaml'), 'utf8');
const SCENARIO = readFileSync(join(REPO_ROOT, 'examples/scenarios/allreduce-leafspine-roce.yaml'), 'utf8');
const CLUSTER = readFileSync(join(REPO_ROOT, 'examples/clusters/h100-roce-16nodes.yaml'), 'utf8');
const CHECK_TREE = join(REPO_ROOT, 'test/fixtures/check/healthy-roce');

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'aifabric-yaml-errors-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `text` with its 1-based line `line` replaced by `replacement` (which may hold several lines). */
function replaceLine(text: string, line: number, expected: string, replacement: string): string {
  const lines = text.split('\n');
  expect(lines[line - 1]).toBe(expected);
  lines.splice(line - 1, 1, replacement);
  return lines.join('\n');
}

function file(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}

function expectInputError(result: CliRun, first: string): void {
  expect({ code: result.code, first: result.stderr.split('\n')[0] }).toEqual({ code: 2, first });
  expect(result.stdout).toBe('');
  expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
}

describe('YAML syntax errors are reported where they are', () => {
  it('a duplicate key in a job file: its line and column', async () => {
    const path = file('dup.yaml', replaceLine(JOB, 17, '  tp: 8', '  tp: 8\n  tp: 4'));
    expectInputError(await runCli(['plan', path]), `aifabric: ${path}:18:3 Map keys must be unique`);
  });

  it('an unclosed [ in a job file: at the bracket, not where the parser gave up', async () => {
    const path = file('open.yaml', replaceLine(JOB, 19, 'sharding: zero1', 'sharding: [zero1, zero3'));
    expectInputError(
      await runCli(['plan', path]),
      `aifabric: ${path}:19:11 unclosed [: Flow sequence in block collection must be sufficiently indented and end with a ]`,
    );
  });

  it('an unclosed { in a scenario file', async () => {
    const path = file(
      'open-scenario.yaml',
      replaceLine(SCENARIO, 10, '  hostsPerLeaf: 4', '  hostsPerLeaf: {a: 4'),
    );
    const result = await runCli(['sim', path]);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toMatch(new RegExp(`^aifabric: ${path}:10:17 unclosed \\{: `));
  });

  it('a tab used as indentation: its line', async () => {
    const path = file('tab.yaml', replaceLine(JOB, 7, '  gpusPerNode: 8', '\tgpusPerNode: 8'));
    expectInputError(
      await runCli(['plan', path]),
      `aifabric: ${path}:7:1 Tabs are not allowed as indentation`,
    );
  });

  it('a duplicate key in a cluster file given to check --cluster', async () => {
    const path = file(
      'cluster-dup.yaml',
      replaceLine(CLUSTER, 6, 'fabric: roce-400g', 'fabric: roce-400g\nfabric: tcp-100g'),
    );
    expectInputError(
      await runCli(['check', '--from', CHECK_TREE, '--cluster', path]),
      `aifabric: ${path}:7:1 Map keys must be unique`,
    );
  });
});

/** Nine levels of nine aliases: 9^9 (387 million) strings if expanded. */
function aliasBomb(prefix: string): string {
  const names = 'abcdefghi'.split('');
  const lines = [
    prefix,
    `${names[0]!}: &${names[0]!} ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]`,
  ];
  for (let level = 1; level < names.length; level++) {
    const previous = names[level - 1]!;
    lines.push(
      `${names[level]!}: &${names[level]!} [${Array.from({ length: 9 }, () => `*${previous}`).join(',')}]`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The CLI with a small V8 heap: an expansion would die of heap exhaustion (exit 134), a refusal exits 2. */
function runWithSmallHeap(args: string[]): Promise<CliRun> {
  return runCli(args, { nodeArgs: ['--max-old-space-size=96'] });
}

describe('a YAML alias bomb ("billion laughs")', () => {
  it('in a job file: exit 2 at the first alias, in a 96 MB heap', async () => {
    const path = file('bomb-job.yaml', aliasBomb('name: bomb'));
    expectInputError(
      await runWithSmallHeap(['plan', path]),
      `aifabric: ${path}:3:8 too many alias expansions (more than 100; an alias bomb?)`,
    );
  });

  it('in a scenario file: the same', async () => {
    const path = file('bomb-scenario.yaml', aliasBomb('name: bomb'));
    expectInputError(
      await runWithSmallHeap(['sim', path]),
      `aifabric: ${path}:3:8 too many alias expansions (more than 100; an alias bomb?)`,
    );
  });

  it('a few ordinary aliases still work', async () => {
    const text = replaceLine(
      replaceLine(JOB, 6, '  nodes: 8', '  nodes: &eight 8'),
      8,
      '  nicsPerNode: 8',
      '  nicsPerNode: *eight',
    );
    const result = await runCli(['plan', file('ordinary-aliases.yaml', text), '--json']);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  });
});

describe('inputs that would block or never end', () => {
  const fifo = (): string => {
    const path = join(mkdtempSync(join(work, 'fifo-')), 'input.yaml');
    execFileSync('mkfifo', [path]);
    return path;
  };

  it('a FIFO as the job file: exit 2 at once, not a hang', async () => {
    const path = fifo();
    expectInputError(
      await runCli(['plan', path], { timeoutMs: 20_000 }),
      `aifabric: ${path}: cannot read file (a FIFO (named pipe), expected a regular file)`,
    );
  });

  it('a FIFO as the scenario file', async () => {
    const path = fifo();
    expectInputError(
      await runCli(['sim', path], { timeoutMs: 20_000 }),
      `aifabric: ${path}: cannot read file (a FIFO (named pipe), expected a regular file)`,
    );
  });

  it('a FIFO as the cluster file', async () => {
    const path = fifo();
    expectInputError(
      await runCli(['check', '--from', CHECK_TREE, '--cluster', path], { timeoutMs: 20_000 }),
      `aifabric: ${path}: cannot read file (a FIFO (named pipe), expected a regular file)`,
    );
  });

  it('/dev/zero as the job file: exit 2, no unbounded read', async () => {
    expectInputError(
      await runWithSmallHeap(['plan', '/dev/zero']),
      'aifabric: /dev/zero: cannot read file (a character device, expected a regular file)',
    );
  });

  it('a job file over the 4 MiB cap: exit 2', async () => {
    const path = file('huge.yaml', `${JOB}\n${'#'.repeat(5 * 1024 * 1024)}\n`);
    const result = await runCli(['plan', path]);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toMatch(
      new RegExp(`^aifabric: ${path}: cannot read file \\(\\d+ bytes is larger than the limit of 4 MiB\\)$`),
    );
  });

  it('a folder as the job file: exit 2', async () => {
    expectInputError(
      await runCli(['plan', work]),
      `aifabric: ${work}: cannot read file (a directory, expected a regular file)`,
    );
  });
});
