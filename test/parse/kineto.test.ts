/**
 * The Kineto trace reader on real traces (read in place from ../shared/data/traces, see its
 * SOURCES.md): param's 8-rank DLRM tarball, HolisticTraceAnalysis's NCCL and size traces and its
 * negative cases, TraceLens's B200 trace; plus kernel names, comm args, the busy union and the
 * byte scanner on their own. The hand-written fixtures in test/fixtures/pytorch-trace have goldens
 * in the shared parser suite.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import {
  dtypeBytes,
  opOfCollectiveName,
  readCommArgs,
  sizeBytesOf,
} from '../../src/parse/kineto-comm-args.js';
import { NumberColumn, unionOfIntervals } from '../../src/parse/kineto-busy.js';
import { TraceJsonScanner } from '../../src/parse/json-scan.js';
import {
  parseKinetoTrace,
  parseKinetoTraceStream,
  readTraceFiles,
  parseNcclKernelName,
  rankFromFileName,
} from '../../src/parse/index.js';

const TRACES = join(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'traces');
const trace = (name: string): string => join(TRACES, name);
const haveTraces = existsSync(TRACES);

describe('NCCL and RCCL kernel names', () => {
  it.each([
    [
      'ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)',
      'all_reduce',
      'RING',
      'LL',
    ],
    [
      'ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)',
      'sendrecv',
      'RING',
      'SIMPLE',
    ],
    [
      'ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)',
      'broadcast',
      'RING',
      'LL',
    ],
    [
      'ncclKernel_AllReduce_COLLNET_DIRECT_SIMPLE_Sum_float(ncclWorkElem)',
      'all_reduce',
      'COLLNET_DIRECT',
      'SIMPLE',
    ],
    ['ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)', 'all_gather', 'RING', 'LL'],
    ['ncclDevKernel_AllReduce_Sum_f32_TREE_LL(ncclDevKernelArgsStorage<4096ul>)', 'all_reduce', 'TREE', 'LL'],
    ['ncclDevKernel_Reduce_Sum_u8_RING_LL', 'reduce', 'RING', 'LL'],
    ['ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)', 'sendrecv', null, null],
    ['ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)', 'Generic', null, null],
    ['ncclDevKernel_Generic_2(ncclDevKernelArgsStorage<4096ul>)', 'Generic', null, null],
    ['ncclDevKernelDebug_Generic_4(ncclDevKernelArgsStorage<4096ul>)', 'Generic', null, null],
    ['rccl_main_kernel(ncclDevComm*, unsigned long, ncclWork*)', 'Generic', null, null],
    [
      'ncclDevKernel_AllToAllGda_RING_SIMPLE_Sum_i8_Specialized(ncclDevKernelArgsStorage<4096ul>)',
      'alltoall',
      'RING',
      'SIMPLE',
    ],
    [
      'ncclDevKernel_ReduceScatter_PAT_SIMPLE_MinMax_bf16_acc1_Specialized',
      'reduce_scatter',
      'PAT',
      'SIMPLE',
    ],
    ['ncclKernelDebug_AllToAllPivot_RING_SIMPLE_Sum_int8_t(ncclDevComm*)', 'alltoall', 'RING', 'SIMPLE'],
    ['ncclAllReduceTreeLL128Kernel_sum_f16(ncclDevComm*)', 'all_reduce', 'TREE', 'LL128'],
    ['ncclBroadcastRingKernel_copy_i8(ncclDevComm*)', 'broadcast', 'RING', 'SIMPLE'],
    ['ncclAllToAllKernel_copy_i8(ncclDevComm*)', 'alltoall', null, null],
    ['ncclSymkDevKernel_AllGather_LLMC(ncclSymkDevWorkArgs4K)', 'all_gather', 'LLMC', null],
    ['ncclSymkDevKernel_ReduceScatter_LD_sum_f32(ncclSymkDevWorkArgs4K)', 'reduce_scatter', 'LD', null],
  ])('%s', (name, op, algo, proto) => {
    expect(parseNcclKernelName(name)).toEqual({ op, algo, proto });
  });

  it('refuses kernels that are not NCCL/RCCL and keeps unknown NCCL forms under their own name', () => {
    expect(parseNcclKernelName('void at::native::vectorized_elementwise_kernel<4>(int)')).toBeNull();
    expect(parseNcclKernelName('sm90_xmma_gemm_bf16bf16_bf16f32')).toBeNull();
    expect(parseNcclKernelName('ncclDevKernel_AllGatherV_Foo(x)')?.op).toBe('ncclDevKernel_AllGatherV_Foo');
  });
});

describe('comm args', () => {
  it('maps PyTorch collective names to project ops', () => {
    const cases: [string, string | null][] = [
      ['allreduce', 'all_reduce'],
      ['allreduce_coalesced', 'all_reduce'],
      ['_allgather_base', 'all_gather'],
      ['allgather_into_tensor_coalesced', 'all_gather'],
      ['_reduce_scatter_base', 'reduce_scatter'],
      ['reduce_scatter_tensor_coalesced', 'reduce_scatter'],
      ['all_to_all', 'alltoall'],
      ['alltoall_base', 'alltoall'],
      ['broadcast', 'broadcast'],
      ['reduce', 'reduce'],
      ['send', 'send'],
      ['recv', 'recv'],
      ['barrier', null],
      ['wait', null],
    ];
    for (const [name, op] of cases) expect(opOfCollectiveName(name), name).toBe(op);
  });

  it('sizes ops the nccl-tests way', () => {
    const args = readCommArgs({
      'Collective name': 'x',
      'In msg nelems': 25136,
      'Out msg nelems': 201088,
      dtype: 'BFloat16',
      'Process Group Ranks': '[0, 1]',
    })!;
    expect(args.groupRanks).toEqual([0, 1]);
    expect(sizeBytesOf('all_gather', args)).toBe(201088 * 2);
    expect(sizeBytesOf('reduce_scatter', { ...args, inNelems: 2048, outNelems: 1024 })).toBe(2048 * 2);
    expect(sizeBytesOf('all_reduce', { ...args, dtype: 'Float' })).toBe(25136 * 4);
    expect(sizeBytesOf('all_reduce', { ...args, dtype: 'Quaternion' })).toBeNull();
    expect(dtypeBytes('c10::BFloat16')).toBe(2);
    expect(readCommArgs({ 'External id': 3 })).toBeNull();
  });
});

describe('busy union', () => {
  it('merges overlapping and touching intervals in any order', () => {
    const starts = new NumberColumn();
    const ends = new NumberColumn();
    for (const [s, e] of [
      [10, 20],
      [0, 5],
      [5, 7],
      [15, 30],
      [40, 40],
      [50, 60],
      [52, 55],
    ]) {
      starts.push(s!);
      ends.push(e!);
    }
    expect(unionOfIntervals(starts, ends)).toEqual([0, 7, 10, 30, 40, 40, 50, 60]);
    expect(unionOfIntervals(new NumberColumn(), new NumberColumn())).toEqual([]);
  });
});

describe('byte scanner', () => {
  const text =
    '\uFEFF{"a": [1, {"b": "}"}], "distributedInfo": {"rank": 2, "s": "x\\"y"}, "traceEvents": [ {"cat": "kernel", "n": "a\\\\"}, 7, {"x": [{}]} ], "z": null}';

  function scan(chunkSize: number) {
    const tops: string[] = [];
    const events: string[] = [];
    const scanner = new TraceJsonScanner(new Set(['distributedInfo', 'z']), {
      onTopValue: (key, bytes) => tops.push(`${key}=${bytes.toString()}`),
      onEvent: (bytes) => events.push(bytes.toString()),
    });
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += chunkSize) scanner.push(bytes.subarray(i, i + chunkSize));
    return { tops, events, end: scanner.finish() };
  }

  it('hands over top-level values and events whatever the chunking', () => {
    const whole = scan(1 << 20);
    expect(whole.tops).toEqual(['distributedInfo={"rank": 2, "s": "x\\"y"}', 'z=null']);
    expect(whole.events).toEqual(['{"cat": "kernel", "n": "a\\\\"}', '{"x": [{}]}']);
    expect(whole.end).toMatchObject({
      sawObject: true,
      sawEvents: true,
      complete: true,
      skippedElements: 1,
      malformedAt: null,
    });
    for (const size of [1, 2, 3, 7, 13]) expect(scan(size)).toEqual(whole);
  });
});

describe.runIf(haveTraces)('real traces', () => {
  it('param DLRM tarball: 8 ranks, each the same 5 SendRecv and 3 AllReduce in one order, old names, no args', async () => {
    const ranks = await readTraceFiles([trace('param/dlrm_kineto.tar.gz')]);
    expect(ranks.map((r) => r.rank).sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    for (const rank of ranks) {
      expect(rank.file).toMatch(/dlrm_kineto\.tar\.gz:dlrm_kineto\/worker\d_step_12\.\d+\.pt\.trace\.json$/);
      expect(rank.worldSize).toBe(8);
      expect(rank.device).toBe('Tesla V100-SXM2-32GB');
      // The order the trace shows on every rank (launch order and GPU start order agree).
      expect(rank.collectives.map((c) => c.op)).toEqual([
        'sendrecv',
        'sendrecv',
        'sendrecv',
        'sendrecv',
        'all_reduce',
        'sendrecv',
        'all_reduce',
        'all_reduce',
      ]);
      expect(rank.collectives.map((c) => c.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(
        rank.collectives.every((c) => c.group === 'default' && c.sizeBytes === null && c.step === 10),
      ).toBe(true);
      expect(rank.counts.ncclKernels).toBe(8);
      expect(rank.steps).toHaveLength(1);
      expect(rank.computeBusy.length).toBeGreaterThan(0);
    }
  });

  it('HTA nccl_data: 15 AllReduce and 6 Broadcast with args, pg_config, NCCL 2.17.1', async () => {
    const [rank] = await readTraceFiles([trace('hta/nccl_data.json.gz')]);
    expect(rank).toMatchObject({
      rank: 0,
      rankSource: 'distributedInfo',
      worldSize: 2,
      ncclVersion: '2.17.1',
      device: 'NVIDIA A100-PG509-200',
      hasGpu: true,
    });
    const ops = rank!.collectives.map((c) => c.op);
    expect(ops.filter((op) => op === 'all_reduce')).toHaveLength(15);
    expect(ops.filter((op) => op === 'broadcast')).toHaveLength(6);
    const first = rank!.collectives.find((c) => c.op === 'all_reduce' && c.startUs === 4458677009853.422)!;
    // In msg nelems 6637568 Float: 4 bytes each.
    expect(first).toMatchObject({
      group: '0',
      groupDesc: 'default_pg',
      groupRanks: [0, 1],
      groupSize: 2,
      dtype: 'Float',
      sizeBytes: 6637568 * 4,
      algo: 'RING',
      proto: 'LL',
    });
    expect(rank!.collectives.map((c) => c.seq)).toEqual(ops.map((_, i) => i));
    expect(rank!.steps.map((s) => s.step)).toEqual([4, 5, 6]);
  });

  it('TraceLens B200: new kernel names with args', async () => {
    const [rank] = await readTraceFiles([trace('tracelens/b200_eager_trace.json.gz')]);
    expect(rank).toMatchObject({ rank: 0, worldSize: 8, ncclVersion: '2.27.5', device: 'NVIDIA B200' });
    expect(rank!.collectives).toEqual([
      expect.objectContaining({
        op: 'all_gather',
        group: '3',
        groupSize: 8,
        dtype: 'BFloat16',
        sizeBytes: 201088 * 2,
        name: 'ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)',
      }),
    ]);
  });

  it('HTA df_index_resolver: 2,020 AllReduce kernels over 5 steps (the size case)', async () => {
    const [rank] = await readTraceFiles([trace('hta/df_index_resolver.json.gz')]);
    expect(rank!.rank).toBe(1);
    expect(rank!.counts).toEqual({ events: 216092, kernels: 19370, ncclKernels: 2020 });
    expect(rank!.collectives).toHaveLength(2020);
    expect(rank!.collectives.every((c) => c.op === 'all_reduce' && c.step !== null)).toBe(true);
    expect(rank!.steps.map((s) => s.step)).toEqual([2, 3, 4, 5, 6]);
    const busy = rank!.computeBusy;
    for (let i = 2; i < busy.length; i += 2) expect(busy[i]!).toBeGreaterThan(busy[i - 1]!);
  });

  it('refuses traces without a rank, naming the file and what is missing', async () => {
    await expect(readTraceFiles([trace('hta/rank_not_found.json.gz')])).rejects.toThrow(
      /rank_not_found\.json\.gz: no rank: its distributedInfo has no "rank"/,
    );
    await expect(readTraceFiles([trace('hta/distributed_info_not_found.json.gz')])).rejects.toThrow(
      /distributed_info_not_found\.json\.gz: no rank: the trace has no distributedInfo/,
    );
    await expect(readTraceFiles([trace('hta/rank_not_found.json.gz')])).rejects.toBeInstanceOf(InputError);
  });

  it('reads a CPU-only rank as hasGpu false', async () => {
    const [rank] = await readTraceFiles([trace('hta/rank_non_gpu.json.gz')]);
    expect(rank).toMatchObject({ rank: 0, hasGpu: false, collectives: [], computeBusy: [] });
  });

  it('reads sampled ranks of a 128-rank job', async () => {
    const ranks = await readTraceFiles([
      trace('hta/sampled_rank-0.json.gz'),
      trace('hta/sampled_rank-1.json.gz'),
    ]);
    expect(ranks.map((r) => [r.rank, r.worldSize])).toEqual([
      [0, 128],
      [1, 128],
    ]);
    expect(ranks[0]!.collectives.length).toBeGreaterThan(0);
  });

  it('streams the same facts as the whole text, and a cut-off file gives facts with a warning', async () => {
    const text = gunzipSync(readFileSync(trace('hta/nccl_data.json.gz'))).toString('utf8');
    const whole = parseKinetoTrace(text);
    const bytes = Buffer.from(text);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 65537) }, (_, i) =>
      bytes.subarray(i * 65537, (i + 1) * 65537),
    );
    expect(await parseKinetoTraceStream(chunks)).toEqual(whole);
    const cut = parseKinetoTrace(text.slice(0, Math.floor(text.length * 0.6)));
    expect(cut.warnings[0]!.message).toMatch(/^truncated/);
    expect(cut.facts.counts.events).toBeLessThan(whole.facts.counts.events);
  });
});

describe('rank from the file name', () => {
  it.each([
    ['trace_rank-3.json', 3],
    ['x/rank_12.pt.trace.json.gz', 12],
    ['worker7_step_12.1694128201553.pt.trace.json', 7],
    ['a.tar.gz:dir/worker_2.json', 2],
    ['frank3.json', null],
    ['rank_not_found.json.gz', null],
  ])('%s', (name, rank) => {
    expect(rankFromFileName(name)).toBe(rank);
  });
});
