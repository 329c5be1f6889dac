/**
 * nccl-tests per-iteration output (`-I 1` / --per_iter_timing, 2.19.2+) in the text table and the
 * `-J` report. No public run with -I 1 was found, so the inputs are built here from nccl-tests' own
 * formats (NVIDIA/nccl-tests@0fdb00a src/util.cu): writeResultHeader's per-iteration branch,
 * writeBenchmarkLinePreamble `%12li  %12li  %8s  %6s  %6s`, writeBenchmarkLineBody
 * `  %7s  %6s  %6s  %6g`, writePerIterReport `  %7s  %7s  %7s  %7s` with getFloatStr, and the
 * JSON writer's `*_per_iter` objects (jsonDouble `%lf`, booleans as strings).
 */
import { describe, expect, it } from 'vitest';
import { parseNcclTests, type NcclTestsTest } from '../../src/parse/index.js';
import { footer, HEADER_2_19 } from './nccl-tests-synthetic.js';

/** C's `%*.Ne`: two exponent digits at least (JS writes `1.2e+7`). */
function cExp(value: number, digits: number, width: number): string {
  const [mantissa, exponent] = value.toExponential(digits).split('e') as [string, string];
  const sign = exponent.startsWith('-') ? '-' : '+';
  return `${mantissa}e${sign}${exponent.replace(/^[-+]/, '').padStart(2, '0')}`.padStart(width);
}

/** nccl-tests src/util.cu getFloatStr: fixed decimals by magnitude, exponent form when too wide. */
function getFloatStr(value: number, width: number): string {
  let power = 0;
  for (let val = 1; value >= val; val *= 10) power++;
  if (power < width - 2) return value.toFixed(2).padStart(width);
  if (power < width - 1) return value.toFixed(1).padStart(width);
  if (power < width + 1) return value.toFixed(0).padStart(width);
  if (width >= 7) return cExp(value, 1, width);
  return cExp(value, 0, width);
}

interface Half {
  timeUs: number;
  algbw: number;
  busbw: number;
  wrong: number;
  iter: [number, number, number, number];
}

/** One result row of the -I 1 table, byte for byte as nccl-tests prints it. */
function perIterRow(
  sizeBytes: number,
  count: number,
  type: string,
  redop: string,
  root: number,
  halves: [Half, Half],
): string {
  const preamble = `${String(sizeBytes).padStart(12)}  ${String(count).padStart(12)}  ${type.padStart(8)}  ${redop.padStart(6)}  ${String(root).padStart(6)}`;
  const body = halves.map((h) => {
    const main = `  ${getFloatStr(h.timeUs, 7)}  ${getFloatStr(h.algbw, 6)}  ${getFloatStr(h.busbw, 6)}  ${String(h.wrong).padStart(6)}`;
    return `${main}  ${h.iter.map((v) => getFloatStr(v, 7)).join('  ')}`;
  });
  return preamble + body.join('');
}

/** writeResultHeader with per_iter_timing (the `%7s`/`%6s` column titles). */
function perIterHeader(): string[] {
  const f = (values: string[], widths: number[]): string =>
    values.map((v, i) => v.padStart(widths[i]!)).join('  ');
  const widths = [10, 12, 8, 6, 6, 7, 6, 6, 6, 7, 7, 7, 7, 7, 6, 6, 6, 7, 7, 7, 7];
  return [
    `# ${f(['', '', '', '', ''], [10, 12, 8, 6, 6])}              out-of-place (+ per-iteration)                                in-place (+ per-iteration)`,
    `# ${f(['size', 'count', 'type', 'redop', 'root', 'time', 'algbw', 'busbw', '#wrong', 'i_min', 'i_max', 'i_p99', 'i_cv%', 'time', 'algbw', 'busbw', '#wrong', 'i_min', 'i_max', 'i_p99', 'i_cv%'], widths)} `,
    `# ${f(['(B)', '(elements)', '', '', '', '(us)', '(GB/s)', '(GB/s)', '', '(us)', '(us)', '(us)', '(%)', '(us)', '(GB/s)', '(GB/s)', '', '(us)', '(us)', '(us)', '(%)'], widths)} `,
  ];
}

function only(text: string): NcclTestsTest {
  const tests = parseNcclTests(text).facts.tests;
  expect(tests).toHaveLength(1);
  return tests[0]!;
}

describe('nccl-tests -I 1 text table', () => {
  const small: [Half, Half] = [
    { timeUs: 28.5634, algbw: 36.71, busbw: 68.83, wrong: 0, iter: [27.101, 31.2049, 30.9, 3.2512] },
    { timeUs: 28.37, algbw: 36.96, busbw: 69.3, wrong: 0, iter: [27.0, 30.1, 29.95, 2.8] },
  ];
  // 8 GiB at ~0.7 GB/s: times past 7 characters print in getFloatStr's exponent form.
  const large: [Half, Half] = [
    {
      timeUs: 12345678.9,
      algbw: 0.6958,
      busbw: 1.3046,
      wrong: 0,
      iter: [9876543.2, 23456789, 22000000, 45.678],
    },
    { timeUs: 1234567.4, algbw: 6.958, busbw: 13.046, wrong: 2, iter: [1000000.4, 1999999.6, 1990000, 0.5] },
  ];
  const rows = [
    perIterRow(1048576, 262144, 'float', 'sum', -1, small),
    perIterRow(8589934592, 2147483648, 'float', 'sum', -1, large),
  ];
  const text = [
    ...HEADER_2_19,
    '# Per-Iteration Report: CUDA event timing; i_* uses max over process rows ',
    ...perIterHeader(),
    ...rows,
    ...footer('35.1'),
  ].join('\n');

  it('builds the row text nccl-tests prints', () => {
    expect(rows[0]).toBe(
      '     1048576        262144     float     sum      -1    28.56   36.71   68.83       0    27.10    31.20    30.90     3.25    28.37   36.96   69.30       0    27.00    30.10    29.95     2.80',
    );
    expect(rows[1]).toContain(
      ' 1.2e+07    0.70    1.30       0  9876543  2.3e+07  2.2e+07    45.68  1234567    6.96   13.05       2  1000000  2000000  1990000     0.50',
    );
  });

  it('keeps min, max, p99 and cv of every row, in- and out-of-place', () => {
    const test = only(text);
    expect(test.header?.perIterationReport).toBe(true);
    expect(test.layout).toMatchObject({ name: '2.13+', perIteration: true, fromHeader: true });
    expect(test.rows.map((row) => [row.outOfPlace.perIteration, row.inPlace.perIteration])).toEqual([
      [
        { minUs: 27.1, maxUs: 31.2, p99Us: 30.9, cvPct: 3.25 },
        { minUs: 27, maxUs: 30.1, p99Us: 29.95, cvPct: 2.8 },
      ],
      [
        { minUs: 9876543, maxUs: 2.3e7, p99Us: 2.2e7, cvPct: 45.68 },
        { minUs: 1000000, maxUs: 2000000, p99Us: 1990000, cvPct: 0.5 },
      ],
    ]);
    expect(test.rows[1]?.outOfPlace.timeUs).toBe(1.2e7);
    expect(test.rows[1]?.inPlace.wrong).toBe(2);
    expect(test.complete).toBe(true);
  });

  it('a row cut inside its per-iteration columns is not kept', () => {
    const cut = rows[1]!.slice(0, -12);
    const test = only([...HEADER_2_19, ...perIterHeader(), rows[0], cut, ...footer('35.1')].join('\n'));
    expect(test.rows).toHaveLength(1);
    expect(test.warnings.length).toBeGreaterThan(0);
  });
});

/** jsonDouble: `%lf`, six decimals. */
const lf = (value: number): string => value.toFixed(6);

describe('nccl-tests -J report with per-iteration timing', () => {
  const times = [31.2, 27.1, 28.0, 28.4, 29.9, 28.2, 28.1, 27.9, 28.3, 30.9];
  const perProcess = [times, times.map((t) => t - 0.5)];
  // What computeIterStats prints for these times (sorted: p50 = [n/2], p95/p99 = [min(n-1, (n*p+99)/100-1)]).
  const sorted = [...times].sort((a, b) => a - b);
  const avg = times.reduce((s, t) => s + t, 0) / times.length;
  const stdev = Math.sqrt(times.reduce((s, t) => s + (t - avg) ** 2, 0) / times.length);
  const perIter = [
    `"skipped_iterations":0`,
    `"min_us":${lf(sorted[0]!)}`,
    `"max_us":${lf(sorted[9]!)}`,
    `"avg_us":${lf(avg)}`,
    `"p50_us":${lf(sorted[5]!)}`,
    `"p95_us":${lf(sorted[9]!)}`,
    `"p99_us":${lf(sorted[9]!)}`,
    `"stdev_us":${lf(stdev)}`,
    `"cv_pct":${lf((stdev / avg) * 100)}`,
    `"times_us":[${times.map(lf).join(',')}]`,
    `"per_process_max_times_us":[${perProcess.map((list) => `[${list.map(lf).join(',')}]`).join(',')}]`,
  ].join(',');
  const result = (place: string) =>
    `"${place}":{"time":28.563400,"alg_bw":36.710000,"bus_bw":68.830000,"nwrong":0.000000},"${place}_per_iter":{${perIter}}`;
  const json =
    `{"version":2,"start_time":"2025-11-03 10:12:01","args":["\\/opt\\/nccl-tests\\/bin\\/all_reduce_perf","-I","1","-J","\\/tmp\\/ar.json"],"env":[],"nccl_version":22907,` +
    `"config":{"nthreads":1,"ngpus":1,"minimum_bytes":1048576,"maximum_bytes":1048576,"step_factor":2,"warmup_iters":1,"iterations":10,"aggregated_iterations":1,"validation":1,"graph":0,` +
    `"blocking_collectives":"false","per_iter_timing":"true","per_iter_skip":0,"parallel_init":"false","devices":[]},` +
    `"results":[{"size":1048576,"count":262144,"type":"float","redop":"sum","root":"    -1",${result('out_of_place')},${result('in_place')},"actual_iterations":10,"experiment_name":""}],` +
    `"out_of_bounds":{"count":0,"okay":"true"},"average_bus_bandwidth":{"bandwidth":68.830000,"okay":"unchecked"},"errors":[],"end_time":"2025-11-03 10:12:40"}`;

  it('keeps every statistic and every iteration’s time', () => {
    const test = only(json);
    expect(test.header?.perIterationReport).toBe(true);
    const stats = test.rows[0]?.outOfPlace.perIteration;
    expect(stats).toEqual({
      minUs: 27.1,
      maxUs: 31.2,
      p99Us: 31.2,
      cvPct: Number(lf((stdev / avg) * 100)),
      avgUs: Number(lf(avg)),
      p50Us: 28.3,
      p95Us: 31.2,
      stdevUs: Number(lf(stdev)),
      timesUs: times,
      perProcessTimesUs: [times, perProcess[1]!.map((t) => Number(lf(t)))],
      skippedIterations: 0,
    });
    expect(test.rows[0]?.inPlace.perIteration?.timesUs).toHaveLength(10);
  });

  it('the printed min, max and p99 are the sorted times at nccl-tests’ percentile indices', () => {
    const stats = only(json).rows[0]?.outOfPlace.perIteration;
    const list = [...(stats?.timesUs ?? [])].sort((a, b) => a - b);
    const percentile = (p: number): number =>
      list[Math.min(list.length - 1, Math.floor((list.length * p + 99) / 100) - 1)]!;
    expect([list[0], list.at(-1), percentile(99), percentile(95), list[Math.floor(list.length / 2)]]).toEqual(
      [stats?.minUs, stats?.maxUs, stats?.p99Us, stats?.p95Us, stats?.p50Us],
    );
  });

  it('older reports with only min/max/p99/cv still read; a "nan" time drops only the list', () => {
    const old = json
      .replace(/"(?:skipped_iterations|avg_us|p50_us|p95_us|stdev_us)":[\d.]+,/g, '')
      .replace(/,"times_us":\[[^\]]*\]/g, '')
      .replace(/,"per_process_max_times_us":\[\[.*?\]\]/g, '');
    expect(old).not.toContain('avg_us');
    expect(only(old).rows[0]?.outOfPlace.perIteration).toEqual({
      minUs: 27.1,
      maxUs: 31.2,
      p99Us: 31.2,
      cvPct: Number(lf((stdev / avg) * 100)),
    });
    const nan = json.replace('"times_us":[31.200000', '"times_us":["nan"');
    const stats = only(nan).rows[0]?.outOfPlace.perIteration;
    expect(stats?.timesUs).toBeUndefined();
    expect(stats?.minUs).toBe(27.1);
  });
});
