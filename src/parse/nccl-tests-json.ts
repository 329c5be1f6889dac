/**
 * The `-J FILE` report of nccl-tests (src/util.cu, JSON_FILE_VERSION 2): `config` with `devices`,
 * `results[]` with `out_of_place` / `in_place` {time|cpu_time, alg_bw, bus_bw, nwrong},
 * `out_of_bounds`, `average_bus_bandwidth`, `errors`; with -I 1 `out_of_place_per_iter` /
 * `in_place_per_iter` (NVIDIA/nccl-tests@0fdb00a src/util.cu writePerIterReport). Mapped onto the
 * same facts as the text layout.
 */
import { closeTruncatedJson } from './json-repair.js';
import { collectiveFromProgram } from './nccl-tests-lines.js';
import type {
  NcclTestsDevice,
  NcclTestsFacts,
  NcclTestsHeader,
  NcclTestsMeasurement,
  NcclTestsPerIteration,
  NcclTestsRow,
  NcclTestsTest,
} from './nccl-tests-types.js';
import { NotThisKindError, type ParseWarning } from './types.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** nccl-tests writes numbers with %lf and NaN as the string "nan". */
function num(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  return null;
}

/** Booleans are written as the strings "true"/"false". */
function flag(value: unknown): boolean {
  return value === true || value === 'true' || value === 1;
}

export function looksLikeNcclTestsJson(text: string): boolean {
  const head = text.trimStart();
  if (!head.startsWith('{')) return false;
  const sample = head.slice(0, 65536);
  // A PyTorch profiler trace also names "nccl_version" and "args"; it is the pytorch-trace kind's.
  if (sample.includes('"traceEvents"')) return false;
  return (
    sample.includes('"bus_bw"') ||
    sample.includes('"minimum_bytes"') ||
    (sample.includes('"nccl_version"') && sample.includes('"args"'))
  );
}

function header(config: Json): NcclTestsHeader {
  return {
    nThread: num(config.nthreads),
    nGpus: num(config.ngpus),
    minBytes: num(config.minimum_bytes),
    maxBytes: num(config.maximum_bytes),
    stepFactor: num(config.step_factor),
    stepBytes: num(config.step_bytes),
    warmupIters: num(config.warmup_iters),
    iters: num(config.iterations),
    aggIters: num(config.aggregated_iterations),
    validation: num(config.validation),
    graph: num(config.graph),
    unalign: num(config.unalign),
    blocking: flag(config.blocking_collectives),
    perIterationReport: flag(config.per_iter_timing),
    parallelInit: flag(config.parallel_init),
  };
}

function device(value: unknown): NcclTestsDevice | null {
  if (!isObject(value)) return null;
  const rank = num(value.rank);
  const dev = num(value.device);
  if (rank === null || dev === null) return null;
  return {
    rank,
    group: num(value.group),
    pid: num(value.pid),
    host: typeof value.hostname === 'string' ? value.hostname : '',
    device: dev,
    pciBusId: typeof value.device_hex === 'string' ? value.device_hex : null,
    name: typeof value.device_info === 'string' ? value.device_info : '',
  };
}

function measurement(value: unknown, perIter: unknown): NcclTestsMeasurement | null {
  if (!isObject(value)) return null;
  const timeUs = num(value.time ?? value.cpu_time);
  const algbwGBps = num(value.alg_bw);
  const busbwGBps = num(value.bus_bw);
  if (timeUs === null || algbwGBps === null || busbwGBps === null) return null;
  const result: NcclTestsMeasurement = { timeUs, algbwGBps, busbwGBps, wrong: num(value.nwrong) };
  if (isObject(perIter)) {
    const perIteration = perIterationStats(perIter);
    if (perIteration) result.perIteration = perIteration;
  }
  return result;
}

/** A list of numbers, or null when any item is not one (a "nan" time leaves the list out). */
function numbers(value: unknown): number[] | null {
  if (!Array.isArray(value)) return null;
  const out = value.map(num);
  return out.every((item): item is number => item !== null) ? out : null;
}

/** `*_per_iter` (src/util.cu writePerIterReport): min/max/p99/cv always, the rest when written. */
function perIterationStats(perIter: Json): NcclTestsPerIteration | null {
  const minUs = num(perIter.min_us);
  const maxUs = num(perIter.max_us);
  const p99Us = num(perIter.p99_us);
  const cvPct = num(perIter.cv_pct);
  if (minUs === null || maxUs === null || p99Us === null || cvPct === null) return null;
  const stats: NcclTestsPerIteration = { minUs, maxUs, p99Us, cvPct };
  const avgUs = num(perIter.avg_us);
  const p50Us = num(perIter.p50_us);
  const p95Us = num(perIter.p95_us);
  const stdevUs = num(perIter.stdev_us);
  const skipped = num(perIter.skipped_iterations);
  if (avgUs !== null) stats.avgUs = avgUs;
  if (p50Us !== null) stats.p50Us = p50Us;
  if (p95Us !== null) stats.p95Us = p95Us;
  if (stdevUs !== null) stats.stdevUs = stdevUs;
  const timesUs = numbers(perIter.times_us);
  if (timesUs) stats.timesUs = timesUs;
  if (Array.isArray(perIter.per_process_max_times_us)) {
    const perProcess = perIter.per_process_max_times_us.map(numbers);
    if (perProcess.every((times): times is number[] => times !== null)) stats.perProcessTimesUs = perProcess;
  }
  if (skipped !== null) stats.skippedIterations = skipped;
  return stats;
}

function row(value: unknown): NcclTestsRow | null {
  if (!isObject(value)) return null;
  const sizeBytes = num(value.size);
  const count = num(value.count);
  const outOfPlace = measurement(value.out_of_place, value.out_of_place_per_iter);
  const inPlace = measurement(value.in_place, value.in_place_per_iter);
  if (sizeBytes === null || count === null || !outOfPlace || !inPlace || typeof value.type !== 'string')
    return null;
  return {
    sizeBytes,
    count,
    type: value.type,
    redop: typeof value.redop === 'string' && value.redop.trim() !== '' ? value.redop.trim() : null,
    root: num(value.root),
    outOfPlace,
    inPlace,
    line: 0,
  };
}

export function parseNcclTestsJson(text: string): NcclTestsFacts {
  const warnings: ParseWarning[] = [];
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    const repaired = closeTruncatedJson(text);
    try {
      doc = JSON.parse(repaired.text);
      warnings.push({
        message: 'the JSON report is cut off (job killed?): read up to the last complete entry',
      });
    } catch {
      throw new NotThisKindError('nccl-tests', 1, 'not valid JSON');
    }
  }
  if (!isObject(doc) || !(isObject(doc.config) || Array.isArray(doc.results))) {
    throw new NotThisKindError('nccl-tests', 1, 'JSON without nccl-tests config or results');
  }
  const config = isObject(doc.config) ? doc.config : {};
  const devices = (Array.isArray(config.devices) ? config.devices : [])
    .map(device)
    .filter((d): d is NcclTestsDevice => d !== null);
  const rows: NcclTestsRow[] = [];
  const results = Array.isArray(doc.results) ? doc.results : [];
  results.forEach((entry, index) => {
    const parsed = row(entry);
    if (parsed) rows.push(parsed);
    else warnings.push({ message: `results[${index}] is incomplete and was skipped` });
  });
  const program = Array.isArray(doc.args) && typeof doc.args[0] === 'string' ? doc.args[0] : null;
  const outOfBounds = isObject(doc.out_of_bounds) ? doc.out_of_bounds : null;
  const average = isObject(doc.average_bus_bandwidth) ? doc.average_bus_bandwidth : null;
  const oobCount = outOfBounds ? num(outOfBounds.count) : null;
  const firstResult = results.find(isObject);
  const perIteration = flag(config.per_iter_timing);
  const test: NcclTestsTest = {
    collective: program && /_perf(?:_mpi)?$/.test(program) ? collectiveFromProgram(program) : null,
    collectiveSource: program && /_perf(?:_mpi)?$/.test(program) ? 'json-args' : null,
    ncclTestsVersion: null,
    ncclHeadersCode: null,
    ncclLibraryCode: num(doc.nccl_version),
    ncclVersion: null,
    header: isObject(doc.config) ? header(config) : null,
    ranks: devices.length > 0 ? devices.reduce((most, d) => Math.max(most, d.rank + 1), 0) : null,
    devices,
    layout: {
      name: '2.13+',
      hasRedop: true,
      hasRoot: true,
      checkColumn: 'wrong',
      perIteration,
      timestamps: false,
      cpuTime: isObject(firstResult?.out_of_place) && 'cpu_time' in firstResult.out_of_place,
      fromHeader: true,
    },
    rows,
    avgBusbwGBps: average ? num(average.bandwidth) : null,
    avgBusbwCheck:
      average && average.okay !== 'unchecked' && average.okay !== undefined
        ? flag(average.okay)
          ? 'OK'
          : 'FAILED'
        : null,
    peakBusbwGBps:
      rows.length > 0
        ? rows.reduce((peak, r) => Math.max(peak, r.outOfPlace.busbwGBps, r.inPlace.busbwGBps), -Infinity)
        : null,
    outOfBounds: oobCount === null ? null : { count: oobCount, ok: oobCount === 0 },
    errors: Array.isArray(doc.errors) ? doc.errors.filter((e): e is string => typeof e === 'string') : [],
    complete: outOfBounds !== null || average !== null,
    startLine: 1,
    endLine: 1,
    warnings,
  };
  if (!test.complete)
    warnings.push({
      message: 'the JSON report has no out_of_bounds or average_bus_bandwidth (run interrupted?)',
    });
  return { format: 'json', tests: [test] };
}
