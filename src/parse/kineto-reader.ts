/**
 * One Kineto (PyTorch profiler) trace, fed in chunks, to one rank's TraceRankFacts. The byte
 * scanner (json-scan.ts) hands over each event's bytes; a cheap look at its `cat` decides whether
 * it is parsed at all: GPU kernels (NCCL ones become collectives, the others busy time),
 * `cuda_runtime`/`cuda_driver` launches (their `correlation` and time, kept in typed columns),
 * `record_param_comms` CPU ops (their comm args, by `External id`) and `ProfilerStep#N` windows.
 * Everything else is counted and dropped, so memory is flat in the trace's size.
 *
 * computeBusy counts `kernel` events only: `gpu_memcpy` and `gpu_memset` run on copy engines beside
 * the SMs, so a copy overlapping an NCCL kernel does not hide its time the way compute does.
 */
import { readCommArgs, shared, sizeBytesOf, opOfCollectiveName, type CommArgs } from './kineto-comm-args.js';
import { NumberColumn, unionOfIntervals } from './kineto-busy.js';
import { TraceJsonScanner, type JsonScanSink } from './json-scan.js';
import { isNcclKernelName, parseNcclKernelName } from './nccl-kernel-names.js';
import type { TraceCollective, TraceRankFacts, TraceStep } from './trace-types.js';

interface NcclKernel {
  name: string;
  startUs: number;
  durUs: number;
  correlation: number | null;
  externalId: number | null;
  comm: CommArgs | null;
}

interface GroupConfig {
  desc: string | null;
  ranks: number[] | null;
  size: number | null;
}

export type KinetoOutcome =
  | { isTrace: false; reason: string }
  | {
      isTrace: true;
      facts: TraceRankFacts;
      warnings: string[];
      /** Whether the trace had a distributedInfo object (a missing rank is then named differently). */
      hasDistributedInfo: boolean;
    };

const TOP_KEYS: ReadonlySet<string> = new Set(['distributedInfo', 'deviceProperties', 'hostname']);
const CAT_KEY = Buffer.from('"cat"');
const PROFILER_STEP = Buffer.from('ProfilerStep#');
const RECORD_PARAM_COMMS = Buffer.from('record_param_comms');

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function finite(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function nonNegativeInteger(value: unknown): number | null {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isSafeInteger(number) && number >= 0 ? number : null;
}

/** The `cat` string of an event's bytes without parsing it (Kineto writes `"cat"` before `args`). */
function categoryOf(bytes: Buffer): string | null {
  const at = bytes.indexOf(CAT_KEY);
  if (at === -1) return null;
  let i = at + CAT_KEY.length;
  while (
    i < bytes.length &&
    (bytes[i] === 0x20 || bytes[i] === 0x3a || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)
  )
    i++;
  if (bytes[i] !== 0x22) return null;
  const end = bytes.indexOf(0x22, i + 1);
  if (end === -1 || end - i > 64) return null;
  return bytes.toString('latin1', i + 1, end);
}

export class KinetoTraceReader implements JsonScanSink {
  private readonly scanner = new TraceJsonScanner(TOP_KEYS, this);
  private distributedInfo: JsonObject | null = null;
  private deviceNames = new Map<number, string>();
  private firstDeviceName: string | null = null;
  private host: string | null = null;
  private kernelDevice: number | null = null;
  private events = 0;
  private kernels = 0;
  private gpuActivity = 0;
  private unparsable = 0;
  private readonly nccl: NcclKernel[] = [];
  private readonly busyStarts = new NumberColumn();
  private readonly busyEnds = new NumberColumn();
  private readonly launchCorrelations = new NumberColumn();
  private readonly launchTimes = new NumberColumn();
  private readonly commByExternalId = new Map<number, CommArgs>();
  private readonly gpuSteps: TraceStep[] = [];
  private readonly cpuSteps: TraceStep[] = [];

  constructor(private readonly file: string) {}

  get done(): boolean {
    return this.scanner.done;
  }

  push(chunk: Buffer): void {
    this.scanner.push(chunk);
  }

  onTopValue(key: string, bytes: Buffer): void {
    const value = this.parse(bytes);
    if (key === 'distributedInfo' && isObject(value)) this.distributedInfo = value;
    else if (key === 'hostname' && typeof value === 'string') this.host = value;
    else if (key === 'deviceProperties' && Array.isArray(value)) {
      for (const device of value) {
        if (!isObject(device) || typeof device.name !== 'string') continue;
        this.firstDeviceName ??= device.name;
        const id = nonNegativeInteger(device.id);
        if (id !== null) this.deviceNames.set(id, device.name);
      }
    }
  }

  onEvent(bytes: Buffer): void {
    this.events++;
    const cat = categoryOf(bytes);
    switch (cat) {
      case 'kernel':
        this.kernels++;
        this.gpuActivity++;
        this.onKernel(bytes);
        return;
      case 'gpu_memcpy':
      case 'gpu_memset':
        this.gpuActivity++;
        return;
      case 'cuda_runtime':
      case 'cuda_driver':
        this.onLaunch(bytes);
        return;
      case 'cpu_op':
        if (bytes.includes(RECORD_PARAM_COMMS)) this.onParamComms(bytes);
        return;
      case 'user_annotation':
      case 'gpu_user_annotation':
        if (bytes.includes(PROFILER_STEP))
          this.onStep(bytes, cat === 'gpu_user_annotation' ? this.gpuSteps : this.cpuSteps);
        return;
      default:
        return;
    }
  }

  private parse(bytes: Buffer): unknown {
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch {
      this.unparsable++;
      return null;
    }
  }

  private onKernel(bytes: Buffer): void {
    const event = this.parse(bytes);
    if (!isObject(event)) return;
    const startUs = finite(event.ts);
    const durUs = Math.max(finite(event.dur) ?? 0, 0);
    const name = typeof event.name === 'string' ? event.name : '';
    if (startUs === null) return;
    const args = isObject(event.args) ? event.args : {};
    this.kernelDevice ??= nonNegativeInteger(args.device);
    if (!isNcclKernelName(name)) {
      this.busyStarts.push(startUs);
      this.busyEnds.push(startUs + durUs);
      return;
    }
    this.nccl.push({
      name: shared(name),
      startUs,
      durUs,
      correlation: nonNegativeInteger(args.correlation),
      externalId: nonNegativeInteger(args['External id']),
      comm: readCommArgs(args),
    });
  }

  private onLaunch(bytes: Buffer): void {
    const event = this.parse(bytes);
    if (!isObject(event) || !isObject(event.args)) return;
    const correlation = nonNegativeInteger(event.args.correlation);
    const ts = finite(event.ts);
    if (correlation === null || ts === null) return;
    this.launchCorrelations.push(correlation);
    this.launchTimes.push(ts);
  }

  private onParamComms(bytes: Buffer): void {
    const event = this.parse(bytes);
    if (!isObject(event) || event.name !== 'record_param_comms' || !isObject(event.args)) return;
    const externalId = nonNegativeInteger(event.args['External id']);
    const comm = readCommArgs(event.args);
    if (externalId !== null && comm?.collectiveName) this.commByExternalId.set(externalId, comm);
  }

  private onStep(bytes: Buffer, into: TraceStep[]): void {
    const event = this.parse(bytes);
    if (!isObject(event) || typeof event.name !== 'string') return;
    const match = /^ProfilerStep#(\d+)$/.exec(event.name);
    const startUs = finite(event.ts);
    if (!match || startUs === null) return;
    into.push({ step: Number(match[1]), startUs, endUs: startUs + Math.max(finite(event.dur) ?? 0, 0) });
  }

  private groupConfigs(): Map<string, GroupConfig> {
    const configs = new Map<string, GroupConfig>();
    const list = this.distributedInfo?.pg_config;
    if (!Array.isArray(list)) return configs;
    for (const entry of list) {
      if (!isObject(entry)) continue;
      const name =
        typeof entry.pg_name === 'string'
          ? entry.pg_name
          : typeof entry.pg_name === 'number'
            ? String(entry.pg_name)
            : null;
      if (name === null) continue;
      const ranks =
        Array.isArray(entry.ranks) && entry.ranks.every((rank) => nonNegativeInteger(rank) !== null)
          ? (entry.ranks as number[])
          : null;
      configs.set(name, {
        desc: typeof entry.pg_desc === 'string' ? entry.pg_desc : null,
        ranks,
        size: nonNegativeInteger(entry.pg_size),
      });
    }
    return configs;
  }

  /** Launch time of each NCCL kernel's correlation id, from the typed launch columns. */
  private launchTimesOfNccl(): Map<number, number> {
    const wanted = new Set<number>();
    for (const kernel of this.nccl) if (kernel.correlation !== null) wanted.add(kernel.correlation);
    const times = new Map<number, number>();
    for (let k = 0; k < this.launchCorrelations.length; k++) {
      const correlation = this.launchCorrelations.get(k);
      if (wanted.has(correlation) && !times.has(correlation)) times.set(correlation, this.launchTimes.get(k));
    }
    return times;
  }

  finish(): KinetoOutcome {
    const end = this.scanner.finish();
    if (!end.sawObject) return { isTrace: false, reason: 'not a JSON object' };
    if (!end.sawEvents)
      return {
        isTrace: false,
        reason: end.complete ? 'no traceEvents array' : 'no traceEvents array before the file ends',
      };
    const warnings: string[] = [];
    if (end.malformedAt !== null)
      warnings.push(`malformed JSON at byte ${end.malformedAt}: read ${this.events} events up to there`);
    else if (!end.complete)
      warnings.push(`truncated: the file ends after ${this.events} events, before the trace closes`);
    if (this.unparsable > 0) warnings.push(`${this.unparsable} events are not valid JSON and were skipped`);
    if (end.skippedElements > 0)
      warnings.push(`${end.skippedElements} traceEvents elements are not events and were skipped`);

    const steps = (this.gpuSteps.length > 0 ? this.gpuSteps : this.cpuSteps).sort(
      (a, b) => a.startUs - b.startUs || a.step - b.step,
    );
    const stepsOnGpu = this.gpuSteps.length > 0;
    const launches = this.launchTimesOfNccl();
    const launchOf = (kernel: NcclKernel): number | undefined =>
      kernel.correlation === null ? undefined : launches.get(kernel.correlation);
    const byLaunch = this.nccl.length > 0 && this.nccl.every((kernel) => launchOf(kernel) !== undefined);
    // Issue order: launch order where every NCCL kernel's launch is in the trace, else GPU start order.
    const ordered = this.nccl
      .map((kernel, index) => ({ kernel, index, key: byLaunch ? launchOf(kernel)! : kernel.startUs }))
      .sort((a, b) => a.key - b.key || a.kernel.startUs - b.kernel.startUs || a.index - b.index)
      .map((entry) => entry.kernel);

    const configs = this.groupConfigs();
    const nextSeq = new Map<string, number>();
    // Steps are sorted by start and do not overlap: the last one starting at or before `time`.
    const stepAt = (time: number): number | null => {
      let low = 0;
      let high = steps.length;
      while (low < high) {
        const mid = (low + high) >> 1;
        if (steps[mid]!.startUs <= time) low = mid + 1;
        else high = mid;
      }
      const step = steps[low - 1];
      return step !== undefined && time < step.endUs ? step.step : null;
    };
    const collectives: TraceCollective[] = ordered.map((kernel) => {
      const comm =
        kernel.comm ??
        (kernel.externalId === null ? undefined : this.commByExternalId.get(kernel.externalId)) ??
        null;
      const fromName = parseNcclKernelName(kernel.name);
      const op =
        (comm?.collectiveName ? opOfCollectiveName(comm.collectiveName) : null) ?? fromName?.op ?? 'Generic';
      const group = comm?.groupName ?? 'default';
      const config = configs.get(group);
      const seq = nextSeq.get(group) ?? 0;
      nextSeq.set(group, seq + 1);
      const ranks = comm?.groupRanks ?? config?.ranks ?? null;
      const launch = launchOf(kernel);
      const step = stepsOnGpu
        ? stepAt(kernel.startUs)
        : ((launch === undefined ? null : stepAt(launch)) ?? stepAt(kernel.startUs));
      return {
        seq,
        group,
        groupDesc: comm?.groupDesc ?? config?.desc ?? null,
        groupRanks: ranks,
        groupSize: comm?.groupSize ?? config?.size ?? ranks?.length ?? null,
        op,
        name: kernel.name,
        startUs: kernel.startUs,
        durUs: kernel.durUs,
        sizeBytes: sizeBytesOf(op, comm),
        dtype: comm?.dtype ?? null,
        algo: fromName?.algo ?? null,
        proto: fromName?.proto ?? null,
        step,
      };
    });

    const info = this.distributedInfo;
    const rank = info ? nonNegativeInteger(info.rank) : null;
    const facts: TraceRankFacts = {
      format: 'kineto',
      file: this.file,
      rank,
      rankSource: rank === null ? null : 'distributedInfo',
      worldSize: info ? nonNegativeInteger(info.world_size) : null,
      host: this.host,
      device:
        (this.kernelDevice === null ? undefined : this.deviceNames.get(this.kernelDevice)) ??
        this.firstDeviceName,
      hasGpu: this.gpuActivity > 0,
      ncclVersion: info && typeof info.nccl_version === 'string' ? info.nccl_version : null,
      collectives,
      steps,
      computeBusy: unionOfIntervals(this.busyStarts, this.busyEnds),
      counts: { events: this.events, kernels: this.kernels, ncclKernels: this.nccl.length },
    };
    return { isTrace: true, facts, warnings, hasDistributedInfo: info !== null };
  }
}
