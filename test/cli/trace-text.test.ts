/**
 * The `aifabric trace` text renderer on hand-made results: header lines, the collectives table with
 * and without a model, the row cap and its "... K more" line, iterations, stragglers, findings.
 */
import { describe, expect, it } from 'vitest';
import type { ResultEnvelope } from '../../src/core/envelope.js';
import type { TraceCollectiveRow, TraceMetrics } from '../../src/trace/types.js';
import { DEFAULT_COLLECTIVE_ROWS, renderTraceText, sizeText } from '../../src/cli/render/trace-text.js';
import { parseSteps } from '../../src/cli/commands/trace.js';

function row(seq: number, extra: Partial<TraceCollectiveRow> = {}): TraceCollectiveRow {
  return {
    group: '0',
    seq,
    op: 'all_reduce',
    name: 'ncclKernel_AllReduce_RING_LL_Sum_float',
    step: 4,
    sizeBytes: 4 * 1024 * 1024,
    groupSize: 2,
    ranksSeen: [0, 1],
    ranksMissing: [],
    startSkewUs: 12.25,
    trueTimeUs: 100,
    lastRank: 1,
    waitUs: [12.25, 0],
    startsUs: [0, 12.25],
    dursUs: [112.25, 100],
    unfinishedRanks: [],
    notStartedRanks: [],
    busbwGBps: 41.94304,
    busbwIsBound: false,
    ...extra,
  };
}

function envelope(
  collectives: TraceCollectiveRow[],
  extra: Partial<TraceMetrics> = {},
  inputs: Record<string, unknown> = {},
): ResultEnvelope<TraceMetrics> {
  return {
    kind: 'trace',
    schemaVersion: 1,
    tool: { name: 'aifabric', version: 'test' },
    createdAt: '2026-01-01T00:00:00.000Z',
    inputs: { paths: ['a'], steps: null, ...inputs },
    metrics: {
      ranks: [
        {
          rank: 0,
          file: 'a/rank0.json',
          format: 'kineto',
          host: 'node-a',
          device: 'NVIDIA A100',
          hasGpu: true,
          collectives: collectives.length,
        },
        {
          rank: 1,
          file: 'a/rank1.json',
          format: 'kineto',
          host: 'node-b',
          device: 'NVIDIA A100',
          hasGpu: true,
          collectives: collectives.length,
        },
      ],
      worldSize: 2,
      nodes: 2,
      gpusPerNode: 1,
      clockOffsetsUs: { 'node-a': 0, 'node-b': -1503.5 },
      clockAligned: true,
      collectives,
      iterations: [
        {
          step: 4,
          ranks: [0, 1],
          stepUs: [1000, 1010],
          computeUs: [700, 690],
          exposedCommUs: [100, 120],
          commUs: [300, 310],
          maxComputeUs: 700,
          maxCommUs: 310,
          maxStepUs: 1010,
        },
      ],
      stragglers: [
        { rank: 1, lastCount: collectives.length, lostUs: 12.25 * collectives.length, cause: 'collective' },
      ],
      ...extra,
    },
    findings: [
      { severity: 'info', ruleId: 'trace.clock-aligned', message: 'node-b shifted by -1503.5 us' },
      { severity: 'warn', ruleId: 'trace.straggler', message: 'rank 1 last at 3 of 3' },
    ],
  };
}

describe('renderTraceText', () => {
  it('heads with ranks, hosts, world size and the clock shift, then the tables in order', () => {
    const text = renderTraceText(envelope([row(0), row(1), row(2)]));
    const lines = text.split('\n');
    expect(lines[0]).toBe('aifabric trace: 2 ranks (kineto), 2 hosts, world size 2, 2 node(s) x 1 GPU(s)');
    expect(lines[1]).toBe('clocks aligned: node-b -1503.5 us (skews and waits are after alignment)');
    const order = [
      'collectives: 3 matched',
      'iterations: 1',
      'stragglers: 1, most harmful first',
      'findings:',
    ].map((heading) => text.indexOf(heading));
    expect(
      order.every((position, index) => position > 0 && (index === 0 || position > order[index - 1]!)),
    ).toBe(true);
    expect(text).toMatch(/\n {2}0\s+0\s+all_reduce\s+4M\s+0-1\s+12\.3\s+100\.0\s+1\s+41\.94\n/);
    expect(text).toMatch(/\n\s+4\s+0-1\s+700\.0\s+120\.0\s+310\.0\s+1010\.0\n/);
    expect(text).toMatch(/\n\s+1\s+3\s+36\.8\s+collective\n/);
    // Worst first: the warning before the info.
    expect(text.indexOf('WARN  trace.straggler')).toBeLessThan(text.indexOf('INFO  trace.clock-aligned'));
    expect(text).not.toMatch(/predicted/);
  });

  it(`shows ${DEFAULT_COLLECTIVE_ROWS} collectives and counts the rest`, () => {
    const text = renderTraceText(envelope(Array.from({ length: 2020 }, (_, seq) => row(seq))));
    expect(text).toContain(`collectives: 2020 matched across ranks (first ${DEFAULT_COLLECTIVE_ROWS} shown)`);
    expect(text).toContain(`  ... ${2020 - DEFAULT_COLLECTIVE_ROWS} more (use --json)\n`);
    expect(text.split('\n').filter((line) => /^ {2}0\s+\d+\s+all_reduce/.test(line))).toHaveLength(
      DEFAULT_COLLECTIVE_ROWS,
    );
  });

  it('with a model: predicted us and % of model columns, the predicted step, and the model line', () => {
    const withModel = envelope(
      [
        row(0, { predictedUs: 31, modelFraction: 0.31 }),
        row(1, { sizeBytes: null, busbwGBps: null, predictedUs: null, modelFraction: null }),
      ],
      {},
      { fabric: 'roce-400g', gpu: 'a100-80gb' },
    );
    withModel.metrics.iterations[0]!.predictedStepUs = 800;
    const text = renderTraceText(withModel);
    expect(text).toContain('model: fabric roce-400g, gpu a100-80gb');
    expect(text).toMatch(/predicted us\s+% of model/);
    expect(text).toMatch(/\s31\.0\s+31%\n/);
    expect(text).toMatch(/\n {2}0\s+1\s+all_reduce\s+-\s+0-1\s+12\.3\s+100\.0\s+1\s+-\s+-\s+-\n/);
    expect(text).toMatch(/predicted step us/);
    expect(text).toMatch(/1010\.0\s+800\.0\n/);
  });

  it('marks a busbw seen on one rank as a bound, names missing ranks and says when clocks were not shifted', () => {
    const one = envelope(
      [
        row(0, {
          ranksSeen: [0],
          ranksMissing: [1],
          waitUs: [0],
          startSkewUs: 0,
          lastRank: 0,
          busbwIsBound: true,
        }),
      ],
      { clockAligned: false, clockOffsetsUs: {}, stragglers: [] },
    );
    one.metrics.ranks = one.metrics.ranks.map((rank) => ({ ...rank, host: 'node-a' }));
    const text = renderTraceText(one);
    expect(text).toContain('41.94 (bound)');
    expect(text).toContain('0 (missing 1)');
    expect(text).toContain('clocks: one host, one clock (nothing shifted)');
    expect(text).toContain('stragglers: none');
  });

  it('says when there are no steps and no findings', () => {
    const bare = envelope([row(0)], { iterations: [] });
    delete bare.findings;
    const text = renderTraceText(bare);
    expect(text).toContain('iterations: 0 (the traces hold no ProfilerStep windows)');
    expect(text).toContain('findings: none');
  });
});

describe('sizes and --steps', () => {
  it('writes sizes as nccl-tests does (powers of 1024)', () => {
    expect([
      sizeText(null),
      sizeText(8),
      sizeText(1024),
      sizeText(1536),
      sizeText(4 * 1024 ** 2),
      sizeText(3 * 1024 ** 3),
    ]).toEqual(['-', '8', '1K', '1.5K', '4M', '3G']);
  });

  it('reads 3-5 and 4 as inclusive ranges and refuses anything else naming the flag', () => {
    expect(parseSteps('3-5')).toEqual({ from: 3, to: 5 });
    expect(parseSteps('4')).toEqual({ from: 4, to: 4 });
    for (const bad of ['5-3', 'x', '', '1-', '-2', '1.5', '1-2-3'])
      expect(() => parseSteps(bad)).toThrow(/^invalid value for --steps: /);
  });
});
