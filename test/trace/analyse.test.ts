/**
 * analyseTrace on hand-built cases (exact values) and on generated runs with known delays and clock
 * offsets (test/trace/generate.ts): the analysis must name the late rank and recover the delay
 * within 1 us.
 */
import { describe, expect, it } from 'vitest';
import { busbwGBps } from '../../src/model/index.js';
import { analyseTrace, type TraceModel } from '../../src/trace/index.js';
import { collective, rankFacts } from './facts.js';
import { generateFacts } from './generate.js';

describe('matching', () => {
  it('matches by group and sequence, not by kernel name', () => {
    const a = rankFacts(0, [
      collective(0, 100, 10, { name: 'ncclKernel_AllReduce_RING_LL_Sum_float' }),
      collective(0, 200, 10, { group: '1' }),
    ]);
    const b = rankFacts(1, [
      collective(0, 205, 6, { group: '1', name: 'other' }),
      collective(0, 103, 7, { name: 'ncclDevKernel_AllReduce_Sum_f32_RING_LL' }),
    ]);
    const m = analyseTrace([a, b]).metrics;
    expect(m.collectives.map((c) => [c.group, c.seq, c.ranksSeen, c.startSkewUs, c.trueTimeUs])).toEqual([
      ['default', 0, [0, 1], 3, 7],
      ['1', 0, [0, 1], 5, 6],
    ]);
    // The name is the lowest rank's.
    expect(m.collectives[0]?.name).toBe('ncclKernel_AllReduce_RING_LL_Sum_float');
  });

  it('reports missing ranks, non-GPU ranks and untraced group members', () => {
    const ranks = [
      rankFacts(
        0,
        [
          collective(0, 0, 5, { group: '0', groupRanks: [0, 1, 2, 3] }),
          collective(1, 10, 5, { group: '0', groupRanks: [0, 1, 2, 3] }),
        ],
        { worldSize: 4 },
      ),
      rankFacts(1, [collective(0, 1, 4, { group: '0', groupRanks: [0, 1, 2, 3] })], { worldSize: 4 }),
      rankFacts(2, [], { hasGpu: false, worldSize: 4 }),
    ];
    const r = analyseTrace(ranks);
    expect(r.metrics.collectives.map((c) => c.ranksMissing)).toEqual([
      [2, 3],
      [1, 2, 3],
    ]);
    const missing = (r.findings ?? []).filter((f) => f.ruleId === 'trace.rank-missing').map((f) => f.message);
    expect(missing.some((m) => m.includes('rank 2') && m.includes('no GPU kernels'))).toBe(true);
    expect(missing.some((m) => m.includes('no trace for rank 3'))).toBe(true);
    expect(missing.some((m) => m.startsWith("rank 1's trace lacks 1 collective"))).toBe(true);
    expect(r.metrics.ranks.map((s) => [s.rank, s.hasGpu])).toEqual([
      [0, true],
      [1, true],
      [2, false],
    ]);
    expect(r.warnings?.length).toBeGreaterThan(0);
  });

  it('numbers ranks without a number after the known ones, and refuses two traces of one rank', () => {
    const r = analyseTrace([rankFacts(null, [collective(0, 0, 1)]), rankFacts(3, [collective(0, 0, 1)])]);
    expect(r.metrics.ranks.map((s) => s.rank)).toEqual([3, 4]);
    expect(() => analyseTrace([rankFacts(1, []), rankFacts(1, [])])).toThrow(/rank 1 is also/);
  });
});

describe('per-collective analysis', () => {
  it('gives skew, true time, waits and the last arriver exactly', () => {
    const sizeBytes = 8 * 1024 * 1024;
    const ranks = [0, 1, 2, 3].map((r) =>
      rankFacts(r, [
        collective(0, [100, 130, 110, 125][r]!, [80, 50, 70, 55][r]!, {
          sizeBytes,
          groupSize: 4,
        }),
      ]),
    );
    const row = analyseTrace(ranks).metrics.collectives[0];
    expect(row?.startSkewUs).toBe(30);
    expect(row?.trueTimeUs).toBe(50);
    expect(row?.lastRank).toBe(1);
    expect(row?.waitUs).toEqual([30, 0, 20, 5]);
    expect(row?.busbwGBps).toBeCloseTo(busbwGBps('all_reduce', 4, sizeBytes, 50), 12);
    expect(row?.busbwIsBound).toBe(false);
  });

  it('labels busbw a bound when one rank is traced', () => {
    const row = analyseTrace([
      rankFacts(0, [collective(0, 0, 100, { sizeBytes: 1e6, groupSize: 2, op: 'all_gather' })]),
    ]).metrics.collectives[0];
    expect(row?.busbwIsBound).toBe(true);
    expect(row?.busbwGBps).toBeCloseTo(busbwGBps('all_gather', 2, 1e6, 100), 12);
  });

  it('names rank r late by d us at collective k, within 1 us, with jitter', () => {
    for (const where of ['compute', 'collective'] as const) {
      const m = analyseTrace(
        generateFacts({
          ranks: 8,
          steps: 2,
          collectivesPerStep: 3,
          jitterUs: 0.5,
          delays: [{ rank: 5, collective: 4, us: 237, where }],
        }),
      ).metrics;
      const row = m.collectives.find((c) => c.seq === 4);
      expect(row?.lastRank).toBe(5);
      expect(Math.abs((row?.startSkewUs ?? 0) - 237)).toBeLessThan(1);
      expect(row?.trueTimeUs).toBeCloseTo(50, 9);
      for (const [i, r] of (row?.ranksSeen ?? []).entries())
        if (r !== 5) expect(Math.abs((row?.waitUs[i] ?? 0) - 237)).toBeLessThan(1);
      expect(m.stragglers[0]?.rank).toBe(5);
      expect(m.stragglers[0]?.cause).toBe(where);
    }
  });
});

describe('clock alignment', () => {
  it('recovers two hosts offsets and does not shift ranks on one host', () => {
    const facts = generateFacts({
      ranks: 8,
      hosts: 2,
      clockOffsetsUs: [1000, -52_345.25],
      steps: 2,
      delays: [{ rank: 6, collective: 2, us: 40, where: 'collective' }],
    });
    const r = analyseTrace(facts);
    expect(r.metrics.clockAligned).toBe(true);
    expect(r.metrics.clockOffsetsUs.host0).toBe(0);
    expect(Math.abs(r.metrics.clockOffsetsUs.host1! - 53_345.25)).toBeLessThan(1e-6);
    const row = r.metrics.collectives.find((c) => c.seq === 2);
    expect(row?.lastRank).toBe(6);
    expect(row?.startSkewUs).toBeCloseTo(40, 6);
    expect(r.warnings?.some((w) => w.includes('after alignment'))).toBe(true);
    expect(r.findings?.some((f) => f.ruleId === 'trace.clock-aligned' && f.severity === 'info')).toBe(true);
  });

  it('three hosts, robust to an outlier collective; ranks of one host keep their relative times', () => {
    const facts = generateFacts({
      ranks: 6,
      hosts: 3,
      clockOffsetsUs: [5, 905, -395],
      steps: 2,
      collectivesPerStep: 3,
    });
    // One collective whose ends on host2 are off by 500 us (a stall at its end): the median ignores it.
    for (const f of facts.filter((x) => x.host === 'host2'))
      (f.collectives[1] as { durUs: number }).durUs += 500;
    const before = facts.map((f) => f.collectives[0]!.startUs);
    const m = analyseTrace(facts).metrics;
    expect(m.clockOffsetsUs.host0).toBe(0);
    expect(m.clockOffsetsUs.host1).toBeCloseTo(-900, 6);
    expect(m.clockOffsetsUs.host2).toBeCloseTo(400, 6);
    expect(m.collectives.find((c) => c.seq === 0)?.startSkewUs).toBeCloseTo(0, 6);
    // The engine does not change its input.
    expect(facts.map((f) => f.collectives[0]?.startUs)).toEqual(before);
  });

  it('one host: no shift even when the clock is far off', () => {
    const r = analyseTrace(generateFacts({ ranks: 4, clockOffsetsUs: [123_456] }));
    expect(r.metrics.clockAligned).toBe(false);
    expect(r.metrics.clockOffsetsUs).toEqual({ host0: 0 });
    expect(r.findings?.some((f) => f.ruleId === 'trace.clock-aligned')).toBe(false);
  });

  it('null hosts are one host', () => {
    const r = analyseTrace(
      generateFacts({ ranks: 4, hosts: 2, hostNames: [null, null], clockOffsetsUs: [0, 0] }),
    );
    expect(r.metrics.nodes).toBe(1);
    expect(Object.keys(r.metrics.clockOffsetsUs)).toEqual(['(no host)']);
  });
});

describe('stragglers', () => {
  it('tells compute lateness from collective lateness and counts time lost', () => {
    const delays = [
      { rank: 2, collective: 0, us: 100, where: 'compute' as const },
      { rank: 2, collective: 1, us: 100, where: 'compute' as const },
      { rank: 3, collective: 2, us: 30, where: 'collective' as const },
    ];
    const r = analyseTrace(generateFacts({ ranks: 4, collectivesPerStep: 3, delays }));
    expect(r.metrics.stragglers).toEqual([
      { rank: 2, lastCount: 2, lostUs: 600, cause: 'compute' },
      { rank: 3, lastCount: 1, lostUs: 90, cause: 'collective' },
    ]);
    const f = (r.findings ?? []).filter((x) => x.ruleId === 'trace.straggler');
    expect(f).toHaveLength(1); // rank 3 lost 90 of 690 us: under the 20% share
    expect(f[0]?.message).toContain('rank 2');
    expect(f[0]?.message).toContain('compute');
    expect(f[0]?.severity).toBe('warn');
  });
});

describe('--steps', () => {
  it('keeps collectives and iterations of ProfilerStep A..B inclusive', () => {
    const facts = generateFacts({ ranks: 2, steps: 5, firstStep: 1, collectivesPerStep: 2 });
    const r = analyseTrace(facts, { steps: { from: 3, to: 4 } });
    expect(r.metrics.iterations.map((i) => i.step)).toEqual([3, 4]);
    expect(r.metrics.collectives.map((c) => c.seq)).toEqual([4, 5, 6, 7]);
    expect(r.inputs.steps).toEqual({ from: 3, to: 4 });
    expect(() => analyseTrace(facts, { steps: { from: 4, to: 3 } })).toThrow(/--steps/);
  });
});

describe('iteration terms', () => {
  it('computes the compute union, NCCL time and exposed communication by hand', () => {
    // Rank 0, step 7 window [0, 100]: compute [0,30] [20,50] [90,120] -> union in window 50 + 10 = 60.
    // NCCL [40,70] [80,95] -> 30 + 15 = 45; exposed (no compute) [50,70] [80,90] = 30.
    const r0 = rankFacts(0, [collective(0, 40, 30, { step: 7 }), collective(1, 80, 15, { step: 7 })], {
      steps: [{ step: 7, startUs: 0, endUs: 100 }],
      computeBusy: [0, 30, 20, 50, 90, 120],
    });
    // Rank 1, window [5, 95]: compute [5,40]; NCCL [42,70] [82,95] -> 28 + 13 = 41, all exposed.
    const r1 = rankFacts(1, [collective(0, 42, 28, { step: 7 }), collective(1, 82, 20, { step: 7 })], {
      steps: [{ step: 7, startUs: 5, endUs: 95 }],
      computeBusy: [5, 40],
    });
    const it = analyseTrace([r0, r1]).metrics.iterations[0];
    expect(it).toEqual({
      step: 7,
      ranks: [0, 1],
      stepUs: [100, 90],
      computeUs: [60, 35],
      commUs: [45, 41],
      exposedCommUs: [30, 41],
      maxComputeUs: 60,
      maxCommUs: 45,
      maxStepUs: 100,
    });
  });

  it('on a generated run: compute is the kernels, comm the collectives with their waits', () => {
    const it = analyseTrace(
      generateFacts({
        ranks: 2,
        collectivesPerStep: 2,
        computeKernels: 2,
        computeUs: 100,
        gapUs: 5,
        collectiveUs: 50,
      }),
    ).metrics.iterations[0];
    // Per collective 2 x 100 us compute, trailing 100 us: 500 us; comm 2 x 50, no overlap: all exposed.
    expect(it?.computeUs).toEqual([500, 500]);
    expect(it?.commUs).toEqual([100, 100]);
    expect(it?.exposedCommUs).toEqual([100, 100]);
    // Step: 2 x (201 + 5 + 50) + 100 + 5.
    expect(it?.stepUs).toEqual([617, 617]);
  });
});

describe('against the model', () => {
  const model: TraceModel = {
    fabric: 'test-fabric',
    gpu: 'h100-sxm',
    predict: (op, size) => (op === 'all_reduce' ? size / 1e4 : null),
    stepUs: 900,
  };

  it('puts the prediction beside the true time; fraction = predicted / true', () => {
    const facts = generateFacts({
      ranks: 4,
      collectivesPerStep: 4,
      collectiveUs: 50,
      ops: [
        { op: 'all_reduce', sizeBytes: 1e6 },
        { op: 'all_gather', sizeBytes: 2e6 },
      ],
    });
    const r = analyseTrace(facts, { model });
    const ar = r.metrics.collectives.filter((c) => c.op === 'all_reduce');
    expect(ar.map((c) => [c.predictedUs, c.modelFraction])).toEqual([
      [100, 2],
      [100, 2],
    ]);
    expect(r.metrics.collectives.filter((c) => c.op === 'all_gather').map((c) => c.predictedUs)).toEqual([
      null,
      null,
    ]);
    expect(r.metrics.iterations[0]?.predictedStepUs).toBe(900);
    expect(r.findings?.some((f) => f.ruleId === 'trace.below-model')).toBe(false);
  });

  it('one error per (op, size, group) below half the model, with a count', () => {
    const slow: TraceModel = { ...model, predict: () => 15 };
    const facts = generateFacts({
      ranks: 4,
      steps: 3,
      collectivesPerStep: 4,
      collectiveUs: 50,
      ops: [
        { op: 'all_reduce', sizeBytes: 1e6 },
        { op: 'all_reduce', sizeBytes: 4e6 },
      ],
    });
    const r = analyseTrace(facts, { model: slow });
    const below = (r.findings ?? []).filter((f) => f.ruleId === 'trace.below-model');
    expect(below.map((f) => [f.severity, f.sizeBytes, f.count])).toEqual([
      ['error', 1e6, 6],
      ['error', 4e6, 6],
    ]);
    expect(below[0]?.message).toContain('30%');
  });
});
