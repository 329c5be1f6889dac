/** End-to-end: the built CLI (`node dist/cli/main.js parse ...`) as a user runs it. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, type CliRun } from '../helpers/run-cli.js';

const ROOT = REPO_ROOT;
const FIXTURES = join(ROOT, 'test', 'fixtures', 'nccl-tests');

const cli = (...args: string[]): Promise<CliRun> => runCli(args);

let scratch = '';
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'aifabric-parse-cli-'));
});

describe('aifabric parse', () => {
  it('reads a real nccl-tests log: exit 0, a summary with rows and peak busbw', async () => {
    const result = await cli('parse', join(FIXTURES, 'aws-p5-h100-efa-all_reduce-mpi-prefixed.log'));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/nccl-tests \(text\), 1 run\(s\), 32 rows, peak busbw 483\.35 GB\/s/);
  });

  it('exits 0 on an output that reports failures, and shows them', async () => {
    const result = await cli(
      'parse',
      join(FIXTURES, 'nccl-tests-issue37-v100-all_gather-oldformat-oob-failed.txt'),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/out of bounds 2 FAILED/);
  });

  it('--json prints the parse envelope, with tests[] for a single nccl-tests file', async () => {
    const file = join(FIXTURES, 'moc-h100-2node-4gpu-roce-sendrecv-nccl-info.log');
    const result = await cli('parse', file, '--json');
    expect(result.code).toBe(0);
    const envelope = JSON.parse(result.stdout);
    expect(envelope).toMatchObject({
      kind: 'parse',
      schemaVersion: 1,
      inputs: { files: [file], kind: null },
    });
    expect(envelope.metrics.files).toHaveLength(1);
    expect(envelope.metrics.files[0]).toMatchObject({ file, kind: 'nccl-tests', warnings: [] });
    expect(envelope.metrics.tests).toHaveLength(1);
    expect(envelope.metrics.tests[0].rows).toHaveLength(13);
    expect(envelope.metrics.tests[0].peakBusbwGBps).toBe(5.86);
    expect(envelope.metrics.tests[0].rows[0].inPlace.wrong).toBeNull();
  });

  it('several files: files[] in order, no top-level tests[], warnings with file:line', async () => {
    const a = join(FIXTURES, 'nccl-issue644-8gpu-oldformat-rows-only-cut-at-start.txt');
    const b = join(FIXTURES, 'oci-2x8-a100-roce-all_reduce-v2.17.9.log');
    const envelope = JSON.parse((await cli('parse', '--json', a, b)).stdout);
    expect(envelope.metrics.files.map((f: { file: string }) => f.file)).toEqual([a, b]);
    expect(envelope.metrics.tests).toBeUndefined();
    expect(envelope.warnings[0]).toMatch(
      new RegExp(`^${a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1: rows without a column header`),
    );
  });

  it('garbage: exit 2, not a recognised tool output, naming the line', async () => {
    const file = join(scratch, 'garbage.txt');
    writeFileSync(file, '\nlorem ipsum dolor\nsit amet\n');
    const result = await cli('parse', file);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `aifabric: ${file}: not a recognised tool output (line 2: "lorem ipsum dolor"); known kinds: ${result.stderr.split('known kinds: ')[1]?.trim()}\n`,
    );
  });

  it('wrong --kind: exit 2, not a nccl-tests output (line N: ...)', async () => {
    const file = join(scratch, 'perftest.txt');
    writeFileSync(
      file,
      '---------------------------------------------------------------------------------------\n                    RDMA_Write BW Test\n Dual-port       : OFF\n',
    );
    const result = await cli('parse', '--kind', 'nccl-tests', file);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(`^aifabric: .*perftest\\.txt: not a nccl-tests output \\(line 1: -{20}`),
    );
  });

  it('unknown kind name, missing file: exit 2 with one line', async () => {
    const unknown = await cli('parse', '--kind', 'tcpdump', join(FIXTURES, 'SOURCES.md'));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /^aifabric: invalid value for --kind: "tcpdump" \(expected one of .*nccl-tests/,
    );
    const missing = await cli('parse', join(scratch, 'nope.log'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`aifabric: ${join(scratch, 'nope.log')}: cannot read (no such file)\n`);
  });
});
