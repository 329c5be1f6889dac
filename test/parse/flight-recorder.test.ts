/**
 * PyTorch NCCL flight-recorder dumps (src/parse/flight-recorder.ts) read from the pickles Python
 * wrote in test/fixtures/flight-recorder (make_dumps.py states every injected delay): ranks,
 * groups, op ids and nccl-tests sizes, exact nanosecond clocks, unfinished collectives, and the
 * errors a user sees. The never-crash property lives in flight-recorder-fuzz.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { parseProfilingName } from '../../src/parse/flight-recorder-ops.js';
import { rankFromFileName, readFlightRecorder } from '../../src/parse/flight-recorder.js';
import { readTraceFiles } from '../../src/parse/index.js';
import type { TraceCollective, TraceRankFacts } from '../../src/parse/trace-types.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'flight-recorder');
const T0 = 1733011200123456789n;

function read(path: string, name = path): TraceRankFacts {
  return readFlightRecorder(readFileSync(join(FIXTURES, path)), name);
}

function bySeq(facts: TraceRankFacts, seq: number, group = '0'): TraceCollective {
  const found = facts.collectives.find(
    (c) => c.seq === seq && c.group === group && c.op !== 'send' && c.op !== 'recv',
  );
  if (!found) throw new Error(`no collective ${group}/${seq} in ${facts.file}`);
  return found;
}

/** startUs back to absolute nanoseconds: exact, since startUs is a BigInt difference / 1000. */
function absoluteStartNs(facts: TraceRankFacts, c: TraceCollective): bigint {
  return BigInt(facts.clockBaseNs!) + BigInt(Math.round(c.startUs * 1000));
}

describe('readFlightRecorder: a straggler across 4 ranks (protocol 2)', () => {
  const ranks = [0, 1, 2, 3].map((rank) => read(`straggler-p2/nccl_trace_rank_${rank}`));

  it('takes the rank from the file name and the groups from pg_config', () => {
    expect(ranks.map((f) => [f.rank, f.rankSource])).toEqual([0, 1, 2, 3].map((rank) => [rank, 'file-name']));
    for (const facts of ranks) {
      expect(facts.format).toBe('flight-recorder');
      expect(facts.worldSize).toBe(4);
      expect(facts.ncclVersion).toBe('2.21.5');
      expect(facts.hasGpu).toBe(true);
      expect(facts.steps).toEqual([]);
      expect(facts.computeBusy).toEqual([]);
    }
    const first = bySeq(ranks[0]!, 1);
    expect(first).toMatchObject({
      group: '0',
      groupDesc: 'default_pg',
      groupRanks: [0, 1, 2, 3],
      groupSize: 4,
      op: 'all_reduce',
      name: 'nccl:all_reduce',
      state: 'completed',
    });
    expect(bySeq(ranks[0]!, 1, '1')).toMatchObject({
      groupDesc: 'mesh_dp',
      op: 'all_gather',
      name: 'nccl:_all_gather_base',
    });
  });

  it('seq is NCCL’s collective_seq_id, and p2p_seq_id for send/recv', () => {
    const rank0 = ranks[0]!;
    expect(rank0.collectives.map((c) => [c.group, c.seq, c.op])).toEqual([
      ['0', 1, 'all_reduce'],
      ['0', 2, 'all_reduce'],
      ['0', 3, 'all_reduce'],
      ['0', 4, 'all_reduce'],
      ['0', 5, 'all_reduce'],
      ['1', 1, 'all_gather'],
      ['0', 1, 'send'],
    ]);
    expect(ranks[1]!.collectives.at(-1)).toMatchObject({
      seq: 1,
      op: 'recv',
      name: 'nccl:recv 1<-0',
    });
    expect(ranks[2]!.collectives).toHaveLength(6);
  });

  it('sizes the nccl-tests way: all_reduce the buffer, all_gather the output, send/recv one side', () => {
    const rank0 = ranks[0]!;
    expect(bySeq(rank0, 1).sizeBytes).toBe(1048576 * 4);
    expect(bySeq(rank0, 1).dtype).toBe('Float');
    expect(bySeq(rank0, 1, '1').sizeBytes).toBe(1048576 * 2);
    expect(rank0.collectives.at(-1)?.sizeBytes).toBe(4096 * 4);
    expect(ranks[1]!.collectives.at(-1)?.sizeBytes).toBe(4096 * 4);
  });

  it('shows the injected delay: rank 2 starts collective 4 late by 1500 us; the others wait for it', () => {
    // Rank r's entries are created r x 3 us after rank 0's (make_dumps.py).
    const starts = ranks.map((facts) => absoluteStartNs(facts, bySeq(facts, 4)));
    expect(starts.map((ns) => ns - starts[0]!)).toEqual([0n, 3_000n, 1_500_000n + 6_000n, 9_000n]);
    expect(ranks.map((facts) => bySeq(facts, 4).durUs)).toEqual([1700, 1700, 200, 1700]);
    expect(ranks.map((facts) => bySeq(facts, 3).durUs)).toEqual([200, 200, 200, 200]);
  });

  it('startNs and clockBaseNs are exact decimal strings, and startUs is measured from the base', () => {
    const rank2 = ranks[2]!;
    expect(rank2.clockBaseNs).toBe((T0 + 6_000n).toString());
    for (const c of rank2.collectives) expect(absoluteStartNs(rank2, c)).toBe(BigInt(c.startNs!));
    expect(bySeq(rank2, 1).startUs).toBe(20);
    expect(bySeq(rank2, 4).startUs).toBe(30_000 + 20 + 1500);
  });
});

describe('readFlightRecorder: exact nanoseconds (protocol 5)', () => {
  const rank0 = read('exact-p5/nccl_trace_rank_0');
  const rank1 = read('exact-p5/nccl_trace_rank_1');

  it('a timestamp 1 ns later gives a different start, though both are one double', () => {
    expect(Number(T0)).toBe(Number(T0 + 1n));
    expect(rank0.clockBaseNs).toBe('1733011200123456789');
    expect(rank1.clockBaseNs).toBe('1733011200123456790');
    expect(BigInt(rank1.clockBaseNs!) - BigInt(rank0.clockBaseNs!)).toBe(1n);
    expect(rank0.collectives.map((c) => c.startNs)).toEqual(['1733011200123456789', '1733011200123456791']);
    expect(rank0.collectives.map((c) => c.startUs)).toEqual([0, 0.002]);
    expect(rank1.collectives.map((c) => c.startUs)).toEqual([0, 0.001]);
  });

  it('start falls back to time_created_ns; duration is completed - started without duration_ms', () => {
    expect(rank0.collectives.map((c) => c.durUs)).toEqual([0.007, 0.001]);
    expect(rank0.collectives[0]).toMatchObject({ op: 'broadcast', sizeBytes: 64, dtype: 'Long' });
  });
});

describe('readFlightRecorder: a collective that never finished (protocol 4)', () => {
  const rank0 = read('hang-p4/nccl_trace_rank_0');
  const rank1 = read('hang-p4/nccl_trace_rank_1');

  it('keeps it, with its state and an unknown (NaN) duration', () => {
    expect(rank0.collectives.map((c) => c.state)).toEqual(['completed', 'completed', 'started']);
    expect(rank1.collectives.map((c) => c.state)).toEqual(['completed', 'completed', 'scheduled']);
    expect(Number.isNaN(bySeq(rank0, 3).durUs)).toBe(true);
    expect(Number.isNaN(bySeq(rank1, 3).durUs)).toBe(true);
    expect(JSON.parse(JSON.stringify(bySeq(rank1, 3))).durUs).toBeNull();
  });

  it('a scheduled entry starts at its creation; completed ones last completed - started', () => {
    expect(bySeq(rank1, 3).startUs).toBe(10_000);
    expect(bySeq(rank0, 3).startUs).toBe(10_015);
    expect(rank0.collectives.slice(0, 2).map((c) => c.durUs)).toEqual([250, 250]);
    expect(rank1.collectives.slice(0, 2).map((c) => c.durUs)).toEqual([251, 251]);
    expect(bySeq(rank0, 1)).toMatchObject({ sizeBytes: 2048 * 512 * 2, dtype: 'Half', groupRanks: [0, 1] });
  });
});

describe('readFlightRecorder: coalesced entries and a rank in the dump', () => {
  const facts = read('coalesced-p2/nccl_trace_rank_0');

  it('prefers the dump’s own rank over the file name', () => {
    expect([facts.rank, facts.rankSource, facts.worldSize]).toEqual([5, 'flight-recorder', 8]);
  });

  it('merges entries sharing one sequence number: sizes add, the span covers both', () => {
    expect(facts.collectives.map((c) => [c.seq, c.op, c.sizeBytes])).toEqual([
      [1, 'all_reduce', (1024 + 512) * 4],
      [2, 'reduce_scatter', 4096 * 2],
    ]);
    expect(facts.collectives[0]?.startUs).toBe(10);
    expect(facts.collectives[0]?.durUs).toBeCloseTo(120, 9);
    expect(facts.counts).toEqual({ events: 3, kernels: 3, ncclKernels: 3 });
  });
});

describe('readFlightRecorder errors', () => {
  it('names the file when the rank cannot be told', () => {
    const bytes = readFileSync(join(FIXTURES, 'straggler-p2/nccl_trace_rank_0'));
    expect(() => readFlightRecorder(bytes, 'dumps/trace.pkl')).toThrow(InputError);
    expect(() => readFlightRecorder(bytes, 'dumps/trace.pkl')).toThrow(/^dumps\/trace\.pkl: .*rank/);
  });

  it('refuses a pickle that would run code', () => {
    expect(() => read('refused/nccl_trace_rank_0')).toThrow(
      /refused\/nccl_trace_rank_0: pickle byte \d+: opcode GLOBAL/,
    );
  });

  it('refuses a pickle that is not a dump', () => {
    // pickle.dumps([1, 2], protocol=2)
    const list = Buffer.from('80025d7100284b014b02652e', 'hex');
    expect(() => readFlightRecorder(list, 'nccl_trace_rank_0')).toThrow(/not a flight-recorder dump/);
  });
});

describe('profiling names and file names', () => {
  it('maps ProcessGroupNCCL profiling names to op ids', () => {
    const cases: [string, string, boolean][] = [
      ['nccl:all_reduce', 'all_reduce', false],
      ['nccl:all_reduce_coalesced', 'all_reduce', false],
      ['nccl:all_reduce_barrier', 'all_reduce', false],
      ['nccl:_all_gather_base', 'all_gather', false],
      ['nccl:all_gather_into_tensor_coalesced', 'all_gather', false],
      ['nccl:_reduce_scatter_base', 'reduce_scatter', false],
      ['nccl:reduce_scatter_tensor_coalesced', 'reduce_scatter', false],
      ['nccl:broadcast', 'broadcast', false],
      ['nccl:_broadcast_oop', 'broadcast', false],
      ['nccl:reduce', 'reduce', false],
      ['nccl:all_to_all', 'alltoall', false],
      ['nccl:send 1->2', 'send', true],
      ['nccl:recv 3<-0', 'recv', true],
      ['nccl:gather', 'gather', false],
      ['nccl:coalesced', 'coalesced', false],
    ];
    for (const [name, op, p2p] of cases) expect(parseProfilingName(name), name).toEqual({ op, p2p });
  });

  it('reads the rank from the usual dump names', () => {
    expect(rankFromFileName('/tmp/nccl_trace_rank_12')).toBe(12);
    expect(rankFromFileName('fr/rank-3.pkl')).toBe(3);
    expect(rankFromFileName('trace_rank3')).toBe(3);
    expect(rankFromFileName('job.tar.gz:dumps/nccl_trace_rank_7')).toBe(7);
    expect(rankFromFileName('trace.pkl')).toBeNull();
  });
});

describe('readTraceFiles recognises flight-recorder dumps by their first bytes', () => {
  it('a folder of nccl_trace_rank_N dumps gives one rank each', async () => {
    const ranks = await readTraceFiles([join(FIXTURES, 'straggler-p2')]);
    expect(ranks.map((facts) => [facts.format, facts.rank])).toEqual(
      [0, 1, 2, 3].map((rank) => ['flight-recorder', rank]),
    );
    expect(ranks[2]?.collectives[3]?.startNs).toBe(
      (T0 + 6_000n + 30n * 1_000_000n + 20_000n + 1_500_000n).toString(),
    );
  });

  it('puts the dumps on one clock zero, so starts compare across ranks without loss', async () => {
    const ranks = await readTraceFiles([join(FIXTURES, 'straggler-p2')]);
    expect(ranks.map((facts) => facts.clockBaseNs)).toEqual([T0, T0, T0, T0].map(String));
    const seq4 = ranks.map((facts) => bySeq(facts, 4).startUs);
    expect(seq4.map((us) => us - seq4[0]!)).toEqual([0, 3, 1506, 9]);
    for (const facts of ranks)
      for (const c of facts.collectives) expect(absoluteStartNs(facts, c)).toBe(BigInt(c.startNs!));
  });

  it('a gzipped dump under any name reads the same as the pickle', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aifabric-fr-'));
    try {
      const gz = join(dir, 'dump_rank-1.gz');
      writeFileSync(gz, gzipSync(readFileSync(join(FIXTURES, 'hang-p4/nccl_trace_rank_1'))));
      const [facts] = await readTraceFiles([gz]);
      expect(facts?.format).toBe('flight-recorder');
      expect(facts?.rank).toBe(1);
      expect(facts?.collectives.map((c) => c.state)).toEqual(['completed', 'completed', 'scheduled']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a dump refused by the pickle reader is an InputError naming the file', async () => {
    await expect(readTraceFiles([join(FIXTURES, 'refused/nccl_trace_rank_0')])).rejects.toThrow(
      /nccl_trace_rank_0: pickle byte \d+: opcode GLOBAL/,
    );
  });
});
