/**
 * PyTorch's NCCL flight recorder dump (TORCH_NCCL_TRACE_BUFFER_SIZE=N; one file per rank, named
 * TORCH_NCCL_DEBUG_INFO_TEMP_FILE + rank, by default /tmp/nccl_trace_rank_<rank>) read into one
 * rank's TraceRankFacts.
 *
 * Layout followed (the pickled dict of FlightRecorder::dump_dict / getCollectiveTrace):
 *  - pytorch/pytorch@911ce84 torch/csrc/distributed/c10d/FlightRecorder.hpp, dump version "2.4":
 *    top level `version`, `pg_config` {name: {name, desc, ranks: "[0, 1]"}}, `pg_status`,
 *    `entries`, optional `nccl_comm_state`; each entry `record_id`, `pg_id`, `process_group`
 *    (name, desc), `collective_seq_id`, `p2p_seq_id`, `op_id`, `profiling_name`,
 *    `time_created_ns`, `duration_ms` (only when timing was on), `input_sizes`, `input_dtypes`,
 *    `output_sizes`, `output_dtypes`, `state`, `time_discovered_started_ns` /
 *    `time_discovered_completed_ns` (None until seen), `retired`, `timeout_ms`, `is_p2p`, `frames`.
 *  - pytorch/pytorch@1189309 torch/csrc/distributed/c10d/FlightRecorderDetail.hpp adds
 *    `comm_lib_version`, `thread_name`, `thread_id`; later dumps ("2.10") drop `p2p_seq_id` and
 *    `is_p2p`, so p2p is also read from the profiling name.
 * The dump does not name its rank (tools/flight_recorder/components/loader.py takes it from the
 * file name); a top-level `rank` is honoured where a writer adds one.
 *
 * Times stay exact: nanosecond integers (~1.7e18, beyond a double) are BigInts; startUs is
 * (start - clockBaseNs) / 1000 with clockBaseNs the smallest timestamp of the file.
 */
import { basename } from 'node:path';
import { InputError } from '../core/errors.js';
import { nccltestsBytes, parseProfilingName, tensorBytes } from './flight-recorder-ops.js';
import { readPickle, type PickleDict, type PickleValue } from './pickle.js';
import type { RankSource, TraceCollective, TraceRankFacts } from './trace-types.js';

type State = NonNullable<TraceCollective['state']>;

interface RawEntry {
  index: number;
  name: string;
  op: string;
  p2p: boolean;
  seq: number;
  group: string;
  groupDesc: string | null;
  createdNs: bigint;
  startedNs: bigint | null;
  completedNs: bigint | null;
  durationMs: number | null;
  state: State;
  sizeBytes: number | null;
  dtype: string | null;
}

function field(dict: PickleDict, key: string): PickleValue | undefined {
  return dict.get(key);
}

function asString(value: PickleValue | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

/** An integer as a BigInt (the pickle gives a number when it is safe, a BigInt beyond). */
function asBigInt(value: PickleValue | undefined): bigint | null {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  return null;
}

function asCount(value: PickleValue | undefined): number | null {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  return null;
}

/** [[2, 3], [4]] -> shapes, or null when it is not a list of integer lists. */
function asShapes(value: PickleValue | undefined): number[][] | null {
  if (!Array.isArray(value)) return null;
  const shapes: number[][] = [];
  for (const shape of value) {
    if (
      !Array.isArray(shape) ||
      !shape.every((dim) => typeof dim === 'number' && Number.isSafeInteger(dim) && dim >= 0)
    )
      return null;
    shapes.push(shape as number[]);
  }
  return shapes;
}

function asStrings(value: PickleValue | undefined): string[] | null {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) return null;
  return value;
}

/** The JSON form writes 0 for a time not seen; the pickle writes None. */
function optionalNs(value: PickleValue | undefined): bigint | null {
  const ns = asBigInt(value);
  return ns === null || ns === 0n ? null : ns;
}

/** `nccl_trace_rank_3`, `rank-3.pkl`, `trace_rank3` -> 3 (the last `rank` followed by digits). */
export function rankFromFileName(file: string): number | null {
  const matches = [...basename(file).matchAll(/rank[_-]?(\d+)/gi)];
  const last = matches[matches.length - 1];
  return last ? Number(last[1]) : null;
}

/** "[0, 1, 2]" (ranks_str) or a list of ints -> ranks. */
function parseRanks(value: PickleValue | undefined): number[] | null {
  if (typeof value === 'string') {
    const ranks = [...value.matchAll(/\d+/g)].map((match) => Number(match[0]));
    return ranks;
  }
  if (Array.isArray(value) && value.every((rank) => typeof rank === 'number')) return value;
  return null;
}

function readEntry(value: PickleValue, index: number, file: string): RawEntry {
  const where = `${file}: flight-recorder entries[${index}]`;
  if (!(value instanceof Map))
    throw new InputError(`${where} is not a dict (expected one entry per collective)`);
  const name = asString(field(value, 'profiling_name'));
  if (name === null)
    throw new InputError(`${where} has no profiling_name (expected a string such as "nccl:all_reduce")`);
  const createdNs = asBigInt(field(value, 'time_created_ns'));
  if (createdNs === null)
    throw new InputError(`${where} has no time_created_ns (expected an integer of nanoseconds)`);
  const parsed = parseProfilingName(name);
  const isP2pField = field(value, 'is_p2p');
  const p2p = typeof isP2pField === 'boolean' ? isP2pField : parsed.p2p;
  const collectiveSeq = asCount(field(value, 'collective_seq_id')) ?? asCount(field(value, 'seq_id'));
  const p2pSeq = asCount(field(value, 'p2p_seq_id'));
  const seq = p2p ? (p2pSeq ?? collectiveSeq) : collectiveSeq;
  if (seq === null)
    throw new InputError(
      `${where} has no ${p2p ? 'p2p_seq_id' : 'collective_seq_id'} (expected a whole number)`,
    );
  const processGroup = field(value, 'process_group');
  let group = asCount(field(value, 'pg_id'))?.toString() ?? 'default';
  let groupDesc: string | null = null;
  if (Array.isArray(processGroup) && typeof processGroup[0] === 'string') {
    group = processGroup[0];
    groupDesc = typeof processGroup[1] === 'string' ? processGroup[1] : null;
  }
  const startedNs = optionalNs(field(value, 'time_discovered_started_ns'));
  const completedNs = optionalNs(field(value, 'time_discovered_completed_ns'));
  const stateField = asString(field(value, 'state'));
  const state: State =
    stateField === 'completed' || stateField === 'started' || stateField === 'scheduled'
      ? stateField
      : completedNs !== null
        ? 'completed'
        : startedNs !== null
          ? 'started'
          : 'scheduled';
  const duration = field(value, 'duration_ms');
  const inputDtypes = asStrings(field(value, 'input_dtypes'));
  const outputDtypes = asStrings(field(value, 'output_dtypes'));
  const input = tensorBytes(asShapes(field(value, 'input_sizes')), inputDtypes);
  const output = tensorBytes(asShapes(field(value, 'output_sizes')), outputDtypes);
  return {
    index,
    name,
    op: parsed.op,
    p2p,
    seq,
    group,
    groupDesc,
    createdNs,
    startedNs,
    completedNs,
    durationMs: typeof duration === 'number' && Number.isFinite(duration) ? duration : null,
    state,
    sizeBytes: nccltestsBytes(parsed.op, input, output),
    dtype: inputDtypes?.[0] ?? outputDtypes?.[0] ?? null,
  };
}

/** Microseconds from `base` to `ns`, from an exact BigInt difference. */
export function microsSince(ns: bigint, base: bigint): number {
  return Number(ns - base) / 1000;
}

/** duration_ms (CUDA events) when timing was on, else completed - started; NaN when not known. */
function durationUs(entry: RawEntry, startNs: bigint): number {
  if (entry.state !== 'completed') return Number.NaN;
  const us =
    entry.durationMs !== null
      ? entry.durationMs * 1000
      : entry.completedNs !== null
        ? Number(entry.completedNs - startNs) / 1000
        : Number.NaN;
  return Number.isFinite(us) ? us : Number.NaN;
}

const STATE_ORDER: Record<State, number> = { scheduled: 0, started: 1, completed: 2 };

/**
 * Read one rank's flight-recorder dump (the pickle bytes). The rank comes from a `rank` key when
 * the dump has one, else from the file name; without either, an InputError names the file.
 */
export function readFlightRecorder(bytes: Buffer, file: string): TraceRankFacts {
  const dump = readPickle(bytes, file);
  if (!(dump instanceof Map) || !(dump.has('entries') || dump.has('pg_config') || dump.has('version'))) {
    throw new InputError(
      `${file}: not a flight-recorder dump (expected a pickled dict with "entries", "pg_config" and "version")`,
    );
  }
  const entriesValue = field(dump, 'entries') ?? [];
  if (!Array.isArray(entriesValue)) throw new InputError(`${file}: flight-recorder "entries" is not a list`);
  const rawEntries = entriesValue.map((entry, index) => readEntry(entry, index, file));

  let rank: number | null = asCount(field(dump, 'rank'));
  let rankSource: RankSource | null = rank === null ? null : 'flight-recorder';
  if (rank === null) {
    rank = rankFromFileName(file);
    rankSource = rank === null ? null : 'file-name';
  }
  if (rank === null) {
    throw new InputError(
      `${file}: the flight-recorder dump does not say its rank; name the file like nccl_trace_rank_<N> or rank-<N>`,
    );
  }

  const ranksByGroup = new Map<string, number[]>();
  let worldSize: number | null = null;
  const pgConfig = field(dump, 'pg_config');
  if (pgConfig instanceof Map) {
    for (const [key, info] of pgConfig) {
      if (!(info instanceof Map)) continue;
      const name = asString(info.get('name')) ?? (typeof key === 'string' ? key : null);
      const ranks = parseRanks(info.get('ranks'));
      if (name === null || ranks === null) continue;
      ranksByGroup.set(name, ranks);
      if (info.get('desc') === 'default_pg') worldSize = ranks.length;
    }
  }

  let base: bigint | null = null;
  for (const entry of rawEntries) {
    for (const ns of [entry.createdNs, entry.startedNs, entry.completedNs]) {
      if (ns !== null && (base === null || ns < base)) base = ns;
    }
  }

  // Coalesced ops can share one NCCL launch and so one sequence number: one collective per key.
  const collectives: TraceCollective[] = [];
  const byKey = new Map<string, { collective: TraceCollective; startNs: bigint; endUs: number }>();
  for (const entry of rawEntries) {
    const startNs = entry.startedNs ?? entry.createdNs;
    const startUs = microsSince(startNs, base ?? startNs);
    const durUs = durationUs(entry, startNs);
    const key = `${entry.group}\u0000${entry.p2p ? 'p2p' : 'coll'}\u0000${entry.seq}`;
    const seen = byKey.get(key);
    if (seen) {
      const c = seen.collective;
      if (c.op !== entry.op) c.op = 'coalesced';
      c.sizeBytes = c.sizeBytes !== null && entry.sizeBytes !== null ? c.sizeBytes + entry.sizeBytes : null;
      if (STATE_ORDER[entry.state] < STATE_ORDER[c.state ?? 'completed']) c.state = entry.state;
      if (startNs < seen.startNs) {
        seen.startNs = startNs;
        c.startUs = startUs;
        c.startNs = startNs.toString();
      }
      seen.endUs = Math.max(seen.endUs, startUs + durUs);
      c.durUs = c.state === 'completed' ? seen.endUs - c.startUs : Number.NaN;
      continue;
    }
    const groupRanks = ranksByGroup.get(entry.group) ?? null;
    const collective: TraceCollective = {
      seq: entry.seq,
      group: entry.group,
      groupDesc: entry.groupDesc,
      groupRanks,
      groupSize: groupRanks ? groupRanks.length : null,
      op: entry.op,
      name: entry.name,
      startUs,
      durUs,
      sizeBytes: entry.sizeBytes,
      dtype: entry.dtype,
      algo: null,
      proto: null,
      step: null,
      state: entry.state,
      startNs: startNs.toString(),
    };
    byKey.set(key, { collective, startNs, endUs: startUs + durUs });
    collectives.push(collective);
  }

  const facts: TraceRankFacts = {
    format: 'flight-recorder',
    file,
    rank,
    rankSource,
    worldSize,
    host: null,
    device: null,
    hasGpu: rawEntries.length > 0,
    ncclVersion: asString(field(dump, 'comm_lib_version')) ?? asString(field(dump, 'nccl_version')),
    collectives,
    steps: [],
    computeBusy: [],
    counts: { events: rawEntries.length, kernels: rawEntries.length, ncclKernels: rawEntries.length },
  };
  if (base !== null) facts.clockBaseNs = base.toString();
  return facts;
}
