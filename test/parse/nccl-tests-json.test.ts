/** The -J report: key names and value forms of src/util.cu, and reports cut off by a killed job. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNcclTests } from '../../src/parse/index.js';
import { closeTruncatedJson } from '../../src/parse/json-repair.js';

const report = readFileSync(
  join(import.meta.dirname, '..', 'fixtures', 'nccl-tests', 'constructed-J-report-v2-not-a-real-run.json'),
  'utf8',
);

describe('nccl-tests -J report', () => {
  it('maps config, devices, results and footer onto the text facts', () => {
    const result = parseNcclTests(report);
    expect(result.facts.format).toBe('json');
    const test = result.facts.tests[0]!;
    expect(test).toMatchObject({
      collective: 'all_reduce',
      collectiveSource: 'json-args',
      ranks: 16,
      avgBusbwGBps: 187.55,
      avgBusbwCheck: null,
    });
    expect(test.outOfBounds).toEqual({ count: 0, ok: true });
    expect(test.rows).toHaveLength(4);
    expect(test.rows[3]).toMatchObject({ sizeBytes: 8589934592, root: -1, redop: 'sum' });
    expect(test.peakBusbwGBps).toBe(189.6);
    expect(result.warnings).toEqual([]);
  });

  it('reads a report cut anywhere without throwing, keeping only complete results', () => {
    const start = report.indexOf('"results"');
    for (let cut = start; cut < report.length; cut += 37) {
      const result = parseNcclTests(report.slice(0, cut));
      const rows = result.facts.tests[0]!.rows;
      for (const row of rows) expect(row.inPlace.busbwGBps).toBeGreaterThan(0);
      expect(result.warnings.length).toBeGreaterThan(0);
    }
  });

  it('cpu_time, NaN written as "nan", nwrong null, per-iteration stats', () => {
    const doc = {
      version: 2,
      args: ['./build/sendrecv_perf'],
      config: {
        nthreads: 1,
        ngpus: 2,
        minimum_bytes: 8,
        maximum_bytes: 8,
        step_factor: 2,
        per_iter_timing: 'true',
        devices: [],
      },
      results: [
        {
          size: 8,
          count: 2,
          type: 'float',
          redop: 'sum',
          root: '    -1',
          out_of_place: { cpu_time: 12.5, alg_bw: 0.0, bus_bw: 0.0, nwrong: null },
          out_of_place_per_iter: { min_us: 11, max_us: 14, p99_us: 13.9, cv_pct: 4.1 },
          in_place: { cpu_time: 'nan', alg_bw: 0.0, bus_bw: 0.0, nwrong: 0 },
        },
      ],
      out_of_bounds: { count: 0, okay: 'true' },
      average_bus_bandwidth: { bandwidth: 0, okay: 'false' },
    };
    const result = parseNcclTests(JSON.stringify(doc));
    const test = result.facts.tests[0]!;
    expect(test.collective).toBe('sendrecv');
    expect(test.layout).toMatchObject({ cpuTime: true, perIteration: true });
    expect(test.avgBusbwCheck).toBe('FAILED');
    // The in-place time is NaN: the row is not complete, so it is left out with a warning.
    expect(test.rows).toHaveLength(0);
    expect(result.warnings[0]?.message).toMatch(/results\[0\] is incomplete/);
  });
});

describe('closeTruncatedJson', () => {
  it('closes open containers at the last complete member', () => {
    // The element just opened survives as an empty object; the reader skips it as incomplete.
    expect(JSON.parse(closeTruncatedJson('{"a":[1,2,{"b":3},{"c":').text)).toEqual({
      a: [1, 2, { b: 3 }, {}],
    });
    expect(JSON.parse(closeTruncatedJson('{"s":"x,y').text)).toEqual({});
    expect(closeTruncatedJson('{"a":1}')).toEqual({ text: '{"a":1}', truncated: false });
  });
});
