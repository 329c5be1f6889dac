import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readInputFile } from '../../src/core/read-input.js';
import { InputError } from '../../src/core/errors.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'aifabric-read-input-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function refusal(path: string, options?: { maxBytes?: number }): InputError {
  try {
    readInputFile(path, options);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error(`readInputFile(${path}) did not refuse`);
}

describe('readInputFile', () => {
  it('reads a regular file as UTF-8, whole', () => {
    const file = join(dir, 'job.yaml');
    const text = `name: é\n${'x'.repeat(3 * 1024 * 1024)}\n`;
    writeFileSync(file, text);
    expect(readInputFile(file)).toBe(text);
  });

  it('refuses a FIFO at once instead of blocking on it', () => {
    const fifo = join(dir, 'job.fifo');
    execFileSync('mkfifo', [fifo]);
    const error = refusal(fifo);
    expect(error.message).toBe(`${fifo}: cannot read file (a FIFO (named pipe), expected a regular file)`);
    expect(error.exitCode).toBe(2);
  });

  it('refuses a device (/dev/zero would grow memory without bound)', () => {
    expect(refusal('/dev/zero').message).toBe(
      '/dev/zero: cannot read file (a character device, expected a regular file)',
    );
  });

  it('refuses a folder and a missing file, naming the file', () => {
    expect(refusal(dir).message).toBe(`${dir}: cannot read file (a directory, expected a regular file)`);
    expect(refusal(join(dir, 'none.yaml')).message).toBe(
      `${join(dir, 'none.yaml')}: cannot read file (no such file)`,
    );
  });

  it('refuses a file over the cap, and accepts one exactly at it', () => {
    const file = join(dir, 'big.yaml');
    writeFileSync(file, 'a'.repeat(2048));
    expect(refusal(file, { maxBytes: 2047 }).message).toBe(
      `${file}: cannot read file (2 KiB is larger than the limit of 2047 bytes)`,
    );
    expect(readInputFile(file, { maxBytes: 2048 })).toHaveLength(2048);
  });

  it('caps what it reads where stat says 0 bytes (/proc)', () => {
    expect(readInputFile('/proc/self/status')).toMatch(/^Name:/);
    expect(refusal('/proc/self/status', { maxBytes: 8 }).message).toBe(
      '/proc/self/status: cannot read file (larger than the limit of 8 bytes)',
    );
  });
});
