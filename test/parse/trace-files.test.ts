/**
 * readTraceFiles on files made here: plain, gzip, a tarball of ranks (ranks from distributedInfo
 * and from member names), a folder, and refusals naming the file; then a fuzz property: cuts and
 * byte mutations of a small trace, plain and gzip, always give facts or an InputError, never a crash.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { readTraceFiles } from '../../src/parse/index.js';
import { buildTar } from './tar-fixture.js';

const FIXTURE = readFileSync(
  join(import.meta.dirname, '..', 'fixtures', 'pytorch-trace', 'nccl-old-new-no-args.json'),
);
const RANKLESS = Buffer.from(
  FIXTURE.toString().replace('"distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 4},', ''),
);
const dir = mkdtempSync(join(tmpdir(), 'aifabric-trace-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, bytes: Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

describe('readTraceFiles', () => {
  it('reads plain and gzip traces to the same facts', async () => {
    const [plain] = await readTraceFiles([write('t.json', FIXTURE)]);
    const [zipped] = await readTraceFiles([write('t.json.gz', gzipSync(FIXTURE))]);
    expect(plain!.collectives).toHaveLength(5);
    expect({ ...zipped, file: '' }).toEqual({ ...plain, file: '' });
  });

  it('reads a tarball of ranks, taking a missing rank from the member name', async () => {
    const tar = buildTar([
      { name: 'job/rank_0.json', data: FIXTURE },
      { name: 'job/README.txt', data: Buffer.from('not a trace') },
      { name: 'job/worker_5.pt.trace.json.gz', data: gzipSync(RANKLESS) },
    ]);
    const ranks = await readTraceFiles([write('job.tar.gz', gzipSync(tar)), write('job.tar', tar)]);
    expect(ranks.map((r) => [r.file.replace(dir, ''), r.rank, r.rankSource])).toEqual([
      ['/job.tar.gz:job/rank_0.json', 1, 'distributedInfo'],
      ['/job.tar.gz:job/worker_5.pt.trace.json.gz', 5, 'file-name'],
      ['/job.tar:job/rank_0.json', 1, 'distributedInfo'],
      ['/job.tar:job/worker_5.pt.trace.json.gz', 5, 'file-name'],
    ]);
  });

  it('expands a folder and refuses what is no trace, naming it', async () => {
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    writeFileSync(join(folder, 'b_rank-2.json'), RANKLESS);
    writeFileSync(join(folder, 'a.json.gz'), gzipSync(FIXTURE));
    writeFileSync(join(folder, 'notes.txt'), 'skipped: not a trace name');
    expect((await readTraceFiles([folder])).map((r) => r.rank)).toEqual([1, 2]);
    await expect(readTraceFiles([write('x.json', Buffer.from('{"hello": 1}'))])).rejects.toThrow(
      /x\.json: not a PyTorch profiler trace \(no traceEvents array\)/,
    );
    await expect(readTraceFiles([write('anon.json', RANKLESS)])).rejects.toThrow(
      /anon\.json: no rank: the trace has no distributedInfo/,
    );
    await expect(readTraceFiles([join(dir, 'missing.json')])).rejects.toThrow(
      /missing\.json: cannot read \(no such file\)/,
    );
    await expect(
      readTraceFiles([write('bad.tar.gz', gzipSync(Buffer.alloc(600, 1)))]),
    ).rejects.toBeInstanceOf(InputError);
  });

  it('never crashes on cut or mutated traces, plain or gzip: facts or an InputError', async () => {
    let index = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
        fc.boolean(),
        fc.boolean(),
        async (cutAt, edits, zip, cutCompressed) => {
          let bytes = Buffer.from(FIXTURE);
          for (const [at, value] of edits) bytes[at % bytes.length] = value;
          if (!cutCompressed) bytes = bytes.subarray(0, cutAt % (bytes.length + 1));
          let file = zip ? gzipSync(bytes) : bytes;
          if (cutCompressed) file = file.subarray(0, cutAt % (file.length + 1));
          const path = write(`fuzz-${index++}_rank-1.json${zip ? '.gz' : ''}`, file);
          try {
            const ranks = await readTraceFiles([path]);
            expect(ranks).toHaveLength(1);
            expect(Number.isSafeInteger(ranks[0]!.rank)).toBe(true);
          } catch (error) {
            if (!(error instanceof InputError)) throw error;
            expect(error.message.startsWith(path)).toBe(true);
          }
        },
      ),
      { numRuns: 300, seed: 20261201 },
    );
  });
});
