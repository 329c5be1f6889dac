/**
 * The table is nccl-tests' layout to the character: header lines equal those of a real
 * nccl-tests run (copied from /work/shared samples), rows follow its printf widths, and our
 * own nccl-tests parser reads the whole output back unchanged.
 */
import { describe, expect, it } from 'vitest';
import { floatStr, formatFooter, formatG, formatHeader, formatRow } from '../../src/bench/format.js';
import { busbwFactor, collCounts } from '../../src/bench/sizes.js';
import { parseNcclTests } from '../../src/parse/index.js';
import type { BenchRow } from '../../src/bench/types.js';
import { baseParams } from './helpers.js';

// From a real all_reduce_perf v2.17.9 log (oci-2x8-a100-roce-all_reduce-v2.17.9.log), trailing spaces as printed by util.cu.
const NCCL_COLUMN_HEADER = [
  '#                                                              out-of-place                       in-place          ',
  '#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong ',
  '#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         ',
];

const row: BenchRow = {
  op: 'all_reduce',
  sizeBytes: 1073741824,
  count: 268435456,
  type: 'float',
  redop: 'sum',
  root: -1,
  outOfPlace: { timeUs: 10887.4, algbwGBps: 98.62, busbwGBps: 184.92, wrong: 0, settleIterations: 0 },
  inPlace: { timeUs: 10867.5, algbwGBps: 98.8, busbwGBps: 185.26, wrong: 0, settleIterations: 0 },
};

describe('nccl-tests layout', () => {
  const params = { ...baseParams, minBytes: 8, maxBytes: 1 << 20, stepFactor: 2 };
  const header = formatHeader({
    params,
    peers: [{ rank: 0, host: 'node-a', pid: 4242, addr: '10.0.0.1', port: 40000, cores: 8 }],
    version: '0.1.0',
    launcher: 'Open MPI',
  });

  it('prints the column header lines exactly as nccl-tests', () => {
    const lines = header.split('\n').slice(0, -1);
    expect(lines.slice(-3)).toEqual(NCCL_COLUMN_HEADER);
  });

  it('prints the run parameters and one line per rank with host and pid in nccl-tests form', () => {
    expect(header).toContain('# Collective test starting: all_reduce_perf\n');
    expect(header).toContain(
      '# nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 0 iters: 1 agg iters: 1 validation: 1 graph: 0 unalign: 0\n',
    );
    expect(header).toMatch(
      /^# {2}Rank {2}0 Group {2}0 Pid {3}4242 on {5}node-a device {2}0 \[0000:00:00\] tcp sockets=2 10\.0\.0\.1:40000$/m,
    );
  });

  it('prints rows with the printf widths of a real run', () => {
    // The same row as printed by nccl-tests 2.17.9 in that log.
    expect(formatRow(row)).toBe(
      '  1073741824     268435456     float     sum      -1  10887.4   98.62  184.92       0  10867.5   98.80  185.26       0\n',
    );
    const unchecked = formatRow({
      ...row,
      outOfPlace: { ...row.outOfPlace, wrong: null },
      inPlace: { ...row.inPlace, wrong: null },
    });
    expect(
      unchecked
        .trimEnd()
        .split(/\s+/)
        .filter((field) => field === 'N/A'),
    ).toHaveLength(2);
    expect(unchecked.trim().split(/\s+/)).toHaveLength(13);
  });

  it('formats numbers like getFloatStr and %g', () => {
    expect(floatStr(1.5, 7)).toBe('   1.50');
    expect(floatStr(12345.678, 7)).toBe('12345.7');
    expect(floatStr(123456.7, 7)).toBe(' 123457');
    expect(floatStr(0.004, 6)).toBe('  0.00');
    expect(formatG(0)).toBe('0');
    expect(formatG(0.139421234)).toBe('0.139421');
    expect(formatG(185.09)).toBe('185.09');
    expect(formatG(1234567)).toBe('1.23457e+06');
  });

  it('ends with the Out of bounds and Avg bus bandwidth footer', () => {
    expect(formatFooter(params, 0, 185.09)).toBe(
      '# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 185.09 \n#\n# Collective test concluded: all_reduce_perf\n\n',
    );
    expect(formatFooter(params, 2, 1)).toContain('# Out of bounds values : 2 FAILED\n');
  });

  it('parses back with our nccl-tests parser: same rows, devices and footer', () => {
    const text =
      header +
      formatRow(row) +
      formatRow({ ...row, sizeBytes: 2048, count: 512 }) +
      formatFooter(params, 0, 185.09);
    const parsed = parseNcclTests(text);
    const test = parsed.facts.tests[0]!;
    expect(test.collective).toBe('all_reduce');
    expect(test.layout?.name).toBe('2.13+');
    expect(test.devices.map((device) => [device.rank, device.host, device.pid])).toEqual([
      [0, 'node-a', 4242],
    ]);
    expect(
      test.rows.map((r) => [
        r.sizeBytes,
        r.count,
        r.type,
        r.redop,
        r.root,
        r.outOfPlace.timeUs,
        r.inPlace.busbwGBps,
        r.inPlace.wrong,
      ]),
    ).toEqual([
      [1073741824, 268435456, 'float', 'sum', -1, 10887.4, 185.26, 0],
      [2048, 512, 'float', 'sum', -1, 10887.4, 185.26, 0],
    ]);
    expect(test.outOfBounds).toEqual({ count: 0, ok: true });
    expect(test.avgBusbwGBps).toBe(185.09);
    expect(test.header?.iters).toBe(1);
  });
});

describe('sizes and bus bandwidth as nccl-tests', () => {
  it('uses the busbw factors of nccl-tests', () => {
    expect(busbwFactor('all_reduce', 8)).toBe(1.75);
    expect(busbwFactor('all_gather', 8)).toBe(0.875);
    expect(busbwFactor('reduce_scatter', 4)).toBe(0.75);
    expect(busbwFactor('alltoall', 2)).toBe(0.5);
    expect(busbwFactor('broadcast', 8)).toBe(1);
    expect(busbwFactor('reduce', 8)).toBe(1);
    expect(busbwFactor('sendrecv', 8)).toBe(1);
  });

  it('rounds gather/scatter/alltoall counts down to a multiple of the rank count', () => {
    expect(collCounts('all_gather', 1000, 3)).toMatchObject({
      sendCount: 333,
      recvCount: 999,
      paramCount: 333,
    });
    expect(collCounts('reduce_scatter', 1000, 3)).toMatchObject({
      sendCount: 999,
      recvCount: 333,
      paramCount: 333,
      recvInplaceOffset: 333,
    });
    expect(collCounts('all_reduce', 1000, 3)).toMatchObject({
      sendCount: 1000,
      recvCount: 1000,
      paramCount: 1000,
    });
  });
});
