/** `parseFiles`, the parse room's library call behind `aifabric parse`. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError, UsageError } from '../../src/core/errors.js';
import { parseFiles } from '../../src/parse/index.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const NCCL = join(FIXTURES, 'nccl-tests', 'a3mega-ztan-2x8-h100-tcpxo-all_reduce.log');
const SYSCTL = join(FIXTURES, 'sysctl', 'saphana-azure-anf-sysctl.conf');

describe('parseFiles', () => {
  it('one nccl-tests file: its runs also directly under metrics.tests', async () => {
    const result = await parseFiles([NCCL]);
    expect(result.kind).toBe('parse');
    expect(result.inputs).toEqual({ files: [NCCL], kind: null });
    expect(result.metrics.files.map((file) => file.kind)).toEqual(['nccl-tests']);
    expect(result.metrics.tests?.length).toBe(1);
    expect(result.metrics.failed).toBeUndefined();
  });

  it('files that cannot be read land in metrics.failed, in order, beside the ones read', async () => {
    const result = await parseFiles([SYSCTL, '/nonexistent/a', NCCL]);
    expect(result.metrics.files.map((file) => file.kind)).toEqual(['sysctl', 'nccl-tests']);
    expect(result.metrics.tests).toBeUndefined();
    expect(result.metrics.failed).toEqual([
      { file: '/nonexistent/a', message: '/nonexistent/a: cannot read (no such file)' },
    ]);
  });

  it('nothing readable is an InputError; an unknown --kind a UsageError', async () => {
    await expect(parseFiles(['/nonexistent/a', '/nonexistent/b'])).rejects.toThrow(InputError);
    await expect(parseFiles([SYSCTL], { kind: 'bogus' })).rejects.toThrow(UsageError);
    const asKind = await parseFiles([SYSCTL], { kind: 'sysctl' });
    expect(asKind.inputs.kind).toBe('sysctl');
  });
});
