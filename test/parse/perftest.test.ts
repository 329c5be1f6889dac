import { describe, expect, it } from 'vitest';
import { parsePerftest } from '../../src/parse/perftest.js';
import { NotThisKindError } from '../../src/parse/types.js';
import { fixtureText } from './tool-output-fixtures.js';

// Golden facts, never-throw, every-cut and refusal of other kinds: the shared suite, parser-suite.test.ts.

const KIND = 'perftest';

describe('perftest parser: facts checked by hand against the text', () => {
  it('reads the -a table of two interleaved processes once, with MB/sec converted from 2^20 bytes', () => {
    const { facts, warnings } = parsePerftest(
      fixtureText(KIND, 'superbench-fixture-ib_write_bw-loopback-all-sizes-interleaved.log'),
    );
    expect(facts.runs).toHaveLength(1);
    const run = facts.runs[0]!;
    expect(run.interleaved).toBe(true);
    expect(run.verb).toBe('write');
    expect(run.header.txDepth).toBe(128); // printed by only one of the two processes
    expect(run.bandwidthRows.map((row) => row.sizeBytes)).toEqual(
      Array.from({ length: 23 }, (_, i) => 2 ** (i + 1)),
    );
    const row4M = run.bandwidthRows.find((row) => row.sizeBytes === 4194304)!;
    expect(row4M.bwAverage).toBe(23277.91);
    expect(row4M.bwAverageGbps).toBeCloseTo((23277.91 * 1048576 * 8) / 1e9, 9);
    expect(run.peakBwAverageGbps).toBe(row4M.bwAverageGbps);
    expect(run.addresses.filter((a) => a.side === 'local').map((a) => a.qpn)).toEqual([0x092f, 0x092e]);
    expect(warnings).toEqual([]);
  });

  it('keeps server and client outputs printed one after the other as two runs', () => {
    const { facts } = parsePerftest(
      fixtureText(KIND, 'superbench-fixture-ib_write_bw-8M-loopback-interleaved.log'),
    );
    expect(facts.runs.map((run) => run.bandwidthRows.map((row) => row.bwAverage))).toEqual([
      [24056.72],
      [24056.72],
    ]);
  });

  it('reads --report_gbits rows as Gb/sec and RoCE header fields', () => {
    const { facts } = parsePerftest(
      fixtureText(KIND, 'perftest-issue273-ib_write_bw-postlist-roce-gbits.txt'),
    );
    const run = facts.runs[0]!;
    expect(run.title).toBe('RDMA_Write Post List BW Test');
    expect(run.bandwidthUnit).toBe('Gb/sec');
    expect(run.header).toMatchObject({
      linkType: 'Ethernet',
      gidIndex: 2,
      postList: 128,
      txDepth: 256,
      mtuBytes: 4096,
    });
    expect(run.bandwidthRows).toEqual([
      {
        sizeBytes: 8,
        iterations: 224958464,
        bwPeak: 0,
        bwAverage: 0.48,
        bwPeakGbps: 0,
        bwAverageGbps: 0.48,
        msgRateMpps: 7.498617,
      },
    ]);
  });

  it('decodes RoCE GIDs and warns about a row cut short instead of inventing it', () => {
    const { facts, warnings } = parsePerftest(
      fixtureText(KIND, 'perftest-issue234-ib_write_bw-roce-gid-server-truncated.txt'),
    );
    const run = facts.runs[0]!;
    expect(run.addresses.map((a) => a.gidIpv6)).toEqual(['::ffff:10.255.255.5', '::ffff:10.255.255.4']);
    expect(run.addresses[0]).toMatchObject({ lid: 0, qpn: 0x0108, psn: 0x63ad7d });
    expect(run.bandwidthRows).toEqual([]);
    expect(warnings[0]).toEqual({ line: 26, message: 'bandwidth row cut short (2 of 5 fields); skipped' });
  });

  it('reads all nine latency columns of ib_send_lat -a', () => {
    const { facts } = parsePerftest(fixtureText(KIND, 'notes-ib_send_lat-all-sizes-mlx4.txt'));
    const run = facts.runs[0]!;
    expect(run.measure).toBe('latency');
    expect(run.latencyRows).toHaveLength(23);
    expect(run.latencyRows.at(-1)).toEqual({
      sizeBytes: 8388608,
      iterations: 20000,
      tMinUs: 2239.42,
      tMaxUs: 4189.77,
      tTypicalUs: 2247.02,
      tAvgUs: 2252.46,
      tStdevUs: 65.03,
      p99Us: 2287.38,
      p999Us: 3761.26,
    });
  });

  it('reports perftest warnings between the table header and the row', () => {
    const { facts, warnings } = parsePerftest(fixtureText(KIND, 'wiki-ib_read_lat-mlx4-client.txt'));
    expect(facts.runs[0]!.latencyRows[0]).toMatchObject({ sizeBytes: 2, tTypicalUs: 1.79, p99Us: 1.88 });
    expect(warnings.map((w) => w.line)).toEqual([19]);
  });

  it('flags bidirectional runs', () => {
    const { facts } = parsePerftest(fixtureText(KIND, 'blog-ib_write_bw-bidirectional-roce-gbits.txt'));
    expect(facts.runs[0]).toMatchObject({ bidirectional: true, peakBwAverageGbps: 98.02 });
  });

  it('reads the older three-column latency table (perftest printf without t_avg and percentiles)', () => {
    const text =
      ' #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]\n 2       1000          1.23           4.56         1.30\n';
    expect(parsePerftest(text).facts.runs[0]!.latencyRows[0]).toEqual({
      sizeBytes: 2,
      iterations: 1000,
      tMinUs: 1.23,
      tMaxUs: 4.56,
      tTypicalUs: 1.3,
      tAvgUs: null,
      tStdevUs: null,
      p99Us: null,
      p999Us: null,
    });
  });

  it('refuses other tools’ outputs', () => {
    expect(() => parsePerftest(fixtureText('iperf3', 'blog-tcp-client-1stream-12g.txt'))).toThrow(
      NotThisKindError,
    );
    expect(() => parsePerftest('')).toThrow(NotThisKindError);
  });
});
