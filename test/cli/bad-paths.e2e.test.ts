/**
 * Every command that writes, given an output path it cannot use: one line
 * `aifabric: cannot write PATH: REASON`, exit 2 when the path is wrong as given, exit 3 when the
 * system refuses; checked before the work (stdout stays empty, so no bench or sim ran); afterwards
 * neither PATH nor a temporary file beside it exists, and a file already at PATH is unchanged.
 * Closed pipes: `aifabric ... | head -1` exits 0 without a stack trace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO_ROOT, runCli, type CliRun } from '../helpers/run-cli.js';
import { immutableFolder, readOnlyTmpfs, ScratchMounts, tinyTmpfs } from '../helpers/scratch-mounts.js';

const JOB = join(REPO_ROOT, 'examples/jobs/llama3-70b-8xh100.yaml');
const SCENARIO = join(REPO_ROOT, 'examples/scenarios/allreduce-leafspine-roce.yaml');
const CAPTURE = join(REPO_ROOT, 'test/fixtures/iperf3/blog-tcp-client-1stream-12g.txt');
const CHECK_TREE = join(REPO_ROOT, 'test/fixtures/check/healthy-roce');

let work: string;
let envelopeFile: string;
const mounts = new ScratchMounts();

/** Each command that takes `--out FILE`, with arguments that make it do real work. */
const OUT_COMMANDS: { name: string; args: (out: string) => string[] }[] = [
  { name: 'plan', args: (out) => ['plan', JOB, '--out', out] },
  { name: 'compare', args: (out) => ['compare', JOB, '--out', out] },
  { name: 'scale', args: (out) => ['scale', JOB, '--out', out] },
  { name: 'collective', args: (out) => ['collective', '-b', '1M', '-e', '64M', '--out', out] },
  { name: 'sim', args: (out) => ['sim', SCENARIO, '--out', out] },
  { name: 'parse', args: (out) => ['parse', CAPTURE, '--out', out] },
  { name: 'check', args: (out) => ['check', '--from', CHECK_TREE, '--out', out] },
  { name: 'check --junit', args: (out) => ['check', '--from', CHECK_TREE, '--junit', out] },
  {
    name: 'bench tcp',
    args: (out) => ['bench', 'tcp', '--np', '2', '-b', '8', '-e', '64K', '-n', '1', '-w', '0', '--out', out],
  },
  { name: 'report', args: (out) => ['report', '--input', envelopeFile, '--out', out] },
];

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

function expectRefused(result: CliRun, exitCode: 2 | 3, line: string): void {
  expect({ code: result.code, first: firstLine(result.stderr) }).toEqual({ code: exitCode, first: line });
  // Checked before any work: no header, no table, no envelope.
  expect(result.stdout).toBe('');
  expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
}

/** Nothing this run wrote sits in `folder`: exactly the entries that were there before. */
function expectNothingLeft(folder: string, before: readonly string[]): void {
  expect(readdirSync(folder).sort()).toEqual([...before].sort());
}

/** Fill a file system so that the next data block cannot be written (creating an empty file still can). */
function fillUp(folder: string): void {
  const fd = openSync(join(folder, 'filler'), 'w');
  const block = Buffer.alloc(4096, 1);
  try {
    for (let i = 0; i < 1 << 20; i++) writeSync(fd, block);
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
  } finally {
    closeSync(fd);
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'aifabric-bad-paths-'));
  envelopeFile = join(work, 'collective.json');
  const made = await runCli(['collective', '-b', '1M', '-e', '4M', '--out', envelopeFile]);
  expect(made.code).toBe(0);
});

afterAll(() => {
  mounts.cleanupAll();
  rmSync(work, { recursive: true, force: true });
});

describe.each(OUT_COMMANDS)('$name with a bad output path', ({ args }) => {
  it('an existing folder: exit 2, the folder untouched', async () => {
    const folder = mkdtempSync(join(work, 'folder-'));
    writeFileSync(join(folder, 'inside.txt'), 'kept');
    expectRefused(
      await runCli(args(folder)),
      2,
      `aifabric: cannot write ${folder}: it is a folder, not a file`,
    );
    expectNothingLeft(folder, ['inside.txt']);
  });

  it('a parent that is a file: exit 2, the file unchanged', async () => {
    const file = join(mkdtempSync(join(work, 'parent-')), 'plain.txt');
    writeFileSync(file, 'before');
    const path = join(file, 'out.json');
    expectRefused(
      await runCli(args(path)),
      2,
      `aifabric: cannot write ${path}: ${file} is a file, not a folder`,
    );
    expect(readFileSync(file, 'utf8')).toBe('before');
    expectNothingLeft(dirname(file), ['plain.txt']);
  });

  it('/proc/x and /sys/x: exit 3', async () => {
    expectRefused(
      await runCli(args('/proc/x')),
      3,
      "aifabric: cannot write /proc/x: /proc is the kernel's virtual file system and takes no output files",
    );
    expectRefused(
      await runCli(args('/sys/x/out.json')),
      3,
      "aifabric: cannot write /sys/x/out.json: /sys is the kernel's virtual file system and takes no output files",
    );
    expect(existsSync('/proc/x')).toBe(false);
  });

  it('a read-only file system: exit 3, the file there unchanged', async () => {
    const readOnly = mounts.use(() => readOnlyTmpfs({ 'out.json': 'old' }));
    if (!readOnly) return;
    const path = join(readOnly.path, 'out.json');
    expectRefused(await runCli(args(path)), 3, `aifabric: cannot write ${path}: read-only file system`);
    expect(readFileSync(path, 'utf8')).toBe('old');
  });

  it('a folder that refuses new files (immutable, so root is refused too): exit 3', async () => {
    const immutable = mounts.use(immutableFolder);
    if (!immutable) return;
    const path = join(immutable.path, 'out.json');
    expectRefused(await runCli(args(path)), 3, `aifabric: cannot write ${path}: operation not permitted`);
    expectNothingLeft(immutable.path, []);
  });

  it('no space left (a full tiny tmpfs): exit 3 at write time, the old file unchanged, no temporary file', async () => {
    const tiny = mounts.use(() => tinyTmpfs(16 * 1024));
    if (!tiny) return;
    const path = join(tiny.path, 'out.json');
    writeFileSync(path, 'old');
    fillUp(tiny.path);
    const result = await runCli(args(path));
    expect({ code: result.code, first: firstLine(result.stderr) }).toEqual({
      code: 3,
      first: `aifabric: cannot write ${path}: no space left on device`,
    });
    expect(readFileSync(path, 'utf8')).toBe('old');
    expectNothingLeft(tiny.path, ['filler', 'out.json']);
  });
});

describe('demo --out FOLDER', () => {
  it('/proc/foo fails at once with exit 3 (it used to spin in mkdir forever)', async () => {
    const result = await runCli(['demo', '--out', '/proc/foo'], { timeoutMs: 20_000 });
    expectRefused(
      result,
      3,
      "aifabric: cannot write /proc/foo: /proc is the kernel's virtual file system and takes no output files",
    );
  });

  it('an existing file: exit 2, the file unchanged', async () => {
    const file = join(mkdtempSync(join(work, 'demo-file-')), 'results');
    writeFileSync(file, 'before');
    expectRefused(
      await runCli(['demo', '--out', file]),
      2,
      `aifabric: cannot write ${file}: it is a file, not a folder`,
    );
    expect(readFileSync(file, 'utf8')).toBe('before');
  });

  it('a parent that is a file: exit 2', async () => {
    const file = join(mkdtempSync(join(work, 'demo-parent-')), 'plain');
    writeFileSync(file, 'x');
    expectRefused(
      await runCli(['demo', '--out', join(file, 'out')]),
      2,
      `aifabric: cannot write ${join(file, 'out')}: ${file} is a file, not a folder`,
    );
  });

  it('a read-only file system: exit 3', async () => {
    const readOnly = mounts.use(() => readOnlyTmpfs());
    if (!readOnly) return;
    const folder = join(readOnly.path, 'demo-out');
    expectRefused(
      await runCli(['demo', '--out', folder]),
      3,
      `aifabric: cannot write ${folder}: read-only file system`,
    );
  });

  it('no space part-way: exit 3, and the folder it made is gone again', async () => {
    const tiny = mounts.use(() => tinyTmpfs(16 * 1024));
    if (!tiny) return;
    fillUp(tiny.path);
    const folder = join(tiny.path, 'demo-out');
    const result = await runCli(['demo', '--out', folder]);
    expect(result.code).toBe(3);
    expect(firstLine(result.stderr)).toMatch(
      new RegExp(`^aifabric: cannot write ${folder}/[a-z-]+\\.json: no space left on device$`),
    );
    expectNothingLeft(tiny.path, ['filler']);
  });
});

describe('--save --db PATH', () => {
  it('a missing folder: exit 2 before the work (bench runs no rank)', async () => {
    const db = join(work, 'no-such-folder', 'aifabric.db');
    const expected = `aifabric: cannot write ${db}: folder ${dirname(db)} does not exist`;
    expectRefused(await runCli(['plan', JOB, '--save', '--db', db]), 2, expected);
    expectRefused(
      await runCli([
        'bench',
        'tcp',
        '--np',
        '2',
        '-b',
        '8',
        '-e',
        '8',
        '-n',
        '1',
        '-w',
        '0',
        '--save',
        '--db',
        db,
      ]),
      2,
      expected,
    );
    expect(existsSync(dirname(db))).toBe(false);
  });

  it('an existing folder: exit 2', async () => {
    const folder = mkdtempSync(join(work, 'db-folder-'));
    expectRefused(
      await runCli(['sim', SCENARIO, '--save', '--db', folder]),
      2,
      `aifabric: cannot write ${folder}: it is a folder, not a file`,
    );
    expectNothingLeft(folder, []);
  });

  it('under /proc: exit 3; on a read-only file system: exit 3', async () => {
    expectRefused(
      await runCli(['plan', JOB, '--save', '--db', '/proc/aifabric.db']),
      3,
      "aifabric: cannot write /proc/aifabric.db: /proc is the kernel's virtual file system and takes no output files",
    );
    const readOnly = mounts.use(() => readOnlyTmpfs());
    if (!readOnly) return;
    const db = join(readOnly.path, 'aifabric.db');
    expectRefused(
      await runCli(['plan', JOB, '--save', '--db', db]),
      3,
      `aifabric: cannot write ${db}: read-only file system`,
    );
  });

  it('AIFABRIC_DB in a missing folder is checked the same way', async () => {
    const db = join(work, 'env-missing', 'x.db');
    expectRefused(
      await runCli(['collective', '--save'], { env: { AIFABRIC_DB: db } }),
      2,
      `aifabric: cannot write ${db}: folder ${dirname(db)} does not exist`,
    );
  });

  it('runs import into a database in a missing folder: exit 2, not an internal error', async () => {
    const db = join(work, 'import-missing', 'x.db');
    const result = await runCli(['runs', 'import', envelopeFile, '--db', db]);
    expect({ code: result.code, first: firstLine(result.stderr) }).toEqual({
      code: 2,
      first: `aifabric: cannot write ${db}: folder ${dirname(db)} does not exist`,
    });
  });

  it('a reader given a folder as --db: exit 2, one line', async () => {
    const folder = mkdtempSync(join(work, 'db-read-'));
    const result = await runCli(['runs', 'list', '--db', folder]);
    expect({ code: result.code, first: firstLine(result.stderr) }).toEqual({
      code: 2,
      first: `aifabric: ${folder}: a folder, not a results database`,
    });
  });
});

/** Runs the CLI with stdout on a pipe that is closed after the first chunk, as `| head -1` does. */
async function runIntoClosedPipe(
  args: string[],
  env: Record<string, string> = {},
): Promise<Pick<CliRun, 'code' | 'signal' | 'stderr'>> {
  const { code, signal, stderr } = await runCli(args, {
    env,
    onSpawn: (child) => child.stdout?.once('data', () => child.stdout?.destroy()),
  });
  return { code, signal, stderr };
}

/** Processes whose environment carries `mark` (the ranks a --np run started inherit it). */
function processesMarked(mark: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(`AIFABRIC_E2E_MARK=${mark}`))
        found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

describe('output into a closed pipe (`| head -1`)', () => {
  it('sim --json larger than the pipe buffer exits 0 with nothing on stderr', async () => {
    const result = await runIntoClosedPipe(['sim', SCENARIO, '--json']);
    expect(result).toEqual({ code: 0, signal: null, stderr: '' });
  });

  it('parse --json of many captures (about 250 KB) exits 0 with nothing on stderr', async () => {
    const folder = join(REPO_ROOT, 'test/fixtures/nccl-tests');
    const captures = readdirSync(folder)
      .filter((name) => /\.(txt|log)$/.test(name))
      .map((name) => join(folder, name));
    const result = await runIntoClosedPipe(['parse', ...captures, '--json']);
    expect(result).toEqual({ code: 0, signal: null, stderr: '' });
  });

  it('bench tcp --np 2 exits 0 and leaves no rank behind', async () => {
    const mark = randomBytes(6).toString('hex');
    const result = await runIntoClosedPipe(
      ['bench', 'tcp', '--np', '2', '-b', '8', '-e', '64M', '-f', '2', '-n', '20', '-w', '1'],
      { AIFABRIC_E2E_MARK: mark },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
    // The ranks are told to stop; wait (bounded) for them to be gone.
    for (let i = 0; i < 100 && processesMarked(mark).length > 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(processesMarked(mark)).toEqual([]);
  });
});
