import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkOutputFile,
  checkOutputFolder,
  prepareOutputFolder,
  writeOutputFile,
} from '../../src/core/output-path.js';
import { AifabricError } from '../../src/core/errors.js';
import { immutableFolder, readOnlyTmpfs, ScratchMounts, tinyTmpfs } from '../helpers/scratch-mounts.js';

let dir: string;
const mounts = new ScratchMounts();
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'aifabric-output-path-'));
});
afterAll(() => {
  mounts.cleanupAll();
  rmSync(dir, { recursive: true, force: true });
});

function failure(action: () => unknown): AifabricError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(AifabricError);
    return error as AifabricError;
  }
  throw new Error('expected the call to fail');
}

describe('checkOutputFile and writeOutputFile', () => {
  it('writes atomically, creating missing folders, and leaves no temporary file', () => {
    const target = join(dir, 'a', 'b', 'result.json');
    writeOutputFile(target, '{"ok":true}\n');
    expect(readFileSync(target, 'utf8')).toBe('{"ok":true}\n');
    expect(readdirSync(join(dir, 'a', 'b'))).toEqual(['result.json']);
  });

  it('refuses a folder where a file goes (exit 2)', () => {
    const error = failure(() => writeOutputFile(dir, 'x'));
    expect(error.message).toBe(`cannot write ${dir}: it is a folder, not a file`);
    expect(error.exitCode).toBe(2);
  });

  it('refuses a parent that is a file, naming it (exit 2), and leaves the file as it was', () => {
    const file = join(dir, 'plain.txt');
    writeFileSync(file, 'before');
    const error = failure(() => writeOutputFile(join(file, 'deeper', 'out.json'), 'x'));
    expect(error.message).toBe(
      `cannot write ${join(file, 'deeper', 'out.json')}: ${file} is a file, not a folder`,
    );
    expect(error.exitCode).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe('before');
  });

  it('refuses /proc and /sys at once (exit 3)', () => {
    for (const path of ['/proc/foo', '/proc/foo/bar/out.json', '/sys/out.json', '/proc/self/status']) {
      const error = failure(() => checkOutputFile(path));
      expect(error.exitCode).toBe(3);
      expect(error.message).toMatch(
        new RegExp(`^cannot write ${path}: /(proc|sys) is the kernel's virtual file system`),
      );
    }
  });

  it('with createParents false, a missing folder is a path wrong as given (exit 2)', () => {
    const path = join(dir, 'missing', 'aifabric.db');
    const error = failure(() => checkOutputFile(path, { createParents: false }));
    expect(error.message).toBe(`cannot write ${path}: folder ${join(dir, 'missing')} does not exist`);
    expect(error.exitCode).toBe(2);
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });

  it('on a full disk: exit 3, the old file unchanged, no temporary file, no folder it made', () => {
    const tiny = mounts.use(() => tinyTmpfs(16 * 1024));
    if (!tiny) return;
    writeFileSync(join(tiny.path, 'old.json'), 'old');
    const big = 'x'.repeat(256 * 1024);
    const error = failure(() => writeOutputFile(join(tiny.path, 'old.json'), big));
    expect(error.message).toBe(`cannot write ${join(tiny.path, 'old.json')}: no space left on device`);
    expect(error.exitCode).toBe(3);
    expect(readFileSync(join(tiny.path, 'old.json'), 'utf8')).toBe('old');
    const nested = join(tiny.path, 'new', 'deeper', 'out.json');
    expect(failure(() => writeOutputFile(nested, big)).exitCode).toBe(3);
    expect(readdirSync(tiny.path)).toEqual(['old.json']);
  });

  it('on a read-only file system: exit 3, before anything is written', () => {
    const readOnly = mounts.use(() => readOnlyTmpfs({ 'kept.json': 'kept' }));
    if (!readOnly) return;
    const error = failure(() => checkOutputFile(join(readOnly.path, 'kept.json')));
    expect(error.message).toBe(`cannot write ${join(readOnly.path, 'kept.json')}: read-only file system`);
    expect(error.exitCode).toBe(3);
    expect(failure(() => checkOutputFolder(join(readOnly.path, 'out'))).exitCode).toBe(3);
    expect(readdirSync(readOnly.path)).toEqual(['kept.json']);
  });

  it('in a folder that refuses new files even to root (immutable): exit 3', () => {
    const immutable = mounts.use(immutableFolder);
    if (!immutable) return;
    const error = failure(() => writeOutputFile(join(immutable.path, 'out.json'), 'x'));
    expect(error.message).toBe(`cannot write ${join(immutable.path, 'out.json')}: operation not permitted`);
    expect(error.exitCode).toBe(3);
  });
});

describe('output folders', () => {
  it('refuses a file given as a folder (exit 2) and creates a missing one', () => {
    const file = join(dir, 'not-a-folder');
    writeFileSync(file, 'x');
    const error = failure(() => checkOutputFolder(file));
    expect(error.message).toBe(`cannot write ${file}: it is a file, not a folder`);
    expect(error.exitCode).toBe(2);
    const created = prepareOutputFolder(join(dir, 'demo', 'out'));
    expect(created).toEqual([join(dir, 'demo'), join(dir, 'demo', 'out')]);
    mkdirSync(join(dir, 'demo', 'out', 'inside'));
  });
});
