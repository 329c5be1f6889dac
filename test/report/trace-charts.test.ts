/**
 * The report's charts for `trace` results: the per-rank timeline and the wait heat map, from a
 * small hand-made envelope whose every value is checked in the chart data, as golden SVGs, and
 * in a whole report.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readTraceFiles } from '../../src/parse/index.js';
import { analyseTrace } from '../../src/trace/index.js';
import type { ResultEnvelope } from '../../src/core/envelope.js';
import type { TraceCollectiveRow, TraceMetrics } from '../../src/trace/types.js';
import { renderChartSvg, traceTimelineCharts, traceWaitCharts } from '../../src/report/charts/index.js';
import { renderReport, toReportItems } from '../../src/report/index.js';
import { describeRun } from '../../src/result/index.js';
import { MAX_HEATMAP_COLLECTIVES } from '../../src/report/charts/trace-waits.js';
import { expectGolden } from '../helpers/golden.js';

const GOLDEN_DIR = join(import.meta.dirname, 'golden');

function row(seq: number, op: string, startsUs: number[], dursUs: number[]): TraceCollectiveRow {
  const latest = Math.max(...startsUs);
  const lastIndex = startsUs.indexOf(latest);
  return {
    group: 'default',
    seq,
    op,
    name: op,
    step: 1,
    sizeBytes: 1 << 20,
    groupSize: 3,
    ranksSeen: [0, 1, 2],
    ranksMissing: [],
    startSkewUs: latest - Math.min(...startsUs),
    trueTimeUs: Math.min(...dursUs),
    lastRank: lastIndex,
    waitUs: startsUs.map((start) => latest - start),
    startsUs,
    dursUs,
    unfinishedRanks: [],
    notStartedRanks: [],
    busbwGBps: 10,
    busbwIsBound: false,
  };
}

/** Three ranks, three collectives; rank 2 arrives last at every one (by 30, 50 and 10 us). */
function traceEnvelope(
  collectives: TraceCollectiveRow[] = [
    row(0, 'all_reduce', [100, 110, 140], [70, 60, 30]),
    row(1, 'sendrecv', [300, 300, 350], [80, 80, 30]),
    row(2, 'all_reduce', [500, 505, 510], [40, 35, 30]),
  ],
): ResultEnvelope<TraceMetrics> {
  return {
    kind: 'trace',
    schemaVersion: 1,
    tool: { name: 'aifabric', version: '0.0.0-test' },
    createdAt: '2026-01-01T00:00:00.000Z',
    inputs: {
      paths: ['/traces/job-a.tar.gz'],
      steps: { from: 1, to: 1 },
      fabric: 'roce-400g',
      gpu: 'h100-sxm',
    },
    metrics: {
      ranks: [0, 1, 2].map((rank) => ({
        rank,
        file: `rank-${rank}.json`,
        format: 'kineto' as const,
        host: 'node0',
        device: null,
        hasGpu: true,
        collectives: collectives.length,
      })),
      worldSize: 3,
      nodes: 1,
      gpusPerNode: 3,
      clockOffsetsUs: { node0: 0 },
      clockAligned: false,
      collectives,
      iterations: [],
      stragglers: [{ rank: 2, lastCount: 3, lostUs: 30 + 40 + 50 + 50 + 10 + 5, cause: 'compute' }],
    },
    findings: [
      { severity: 'warn', ruleId: 'trace.straggler', message: 'rank 2 arrived last at 3 of 3 collectives' },
    ],
  };
}

type Values = { data: { values: Record<string, number | string>[] } };

describe('the trace timeline', () => {
  it('draws one bar per collective per rank from the first start, coloured by op', () => {
    const charts = traceTimelineCharts(toReportItems([traceEnvelope()]));
    expect(charts.map((chart) => chart.id)).toEqual(['trace-timeline-result-1']);
    const values = (charts[0]!.spec as unknown as Values).data.values;
    expect(values).toHaveLength(9);
    expect(values[0]).toEqual({
      rank: 0,
      op: 'all_reduce',
      collective: 'default#0',
      startUs: 0,
      endUs: 70,
      waitUs: 40,
    });
    expect(values.find((value) => value.rank === 2 && value.collective === 'default#1')).toMatchObject({
      startUs: 250,
      endUs: 280,
      waitUs: 0,
    });
    expect(JSON.stringify((charts[0]!.spec as { encoding?: unknown }).encoding)).toContain('"field":"op"');
  });

  it('is left out when the result carries no per-rank starts', () => {
    // A result saved before the engine wrote per-rank starts.
    const withoutStarts = traceEnvelope().metrics.collectives.map(
      ({ startsUs: _s, dursUs: _d, ...rest }) => rest,
    ) as unknown as TraceCollectiveRow[];
    expect(traceTimelineCharts(toReportItems([traceEnvelope(withoutStarts)]))).toEqual([]);
    // The heat map needs only the waits.
    expect(traceWaitCharts(toReportItems([traceEnvelope(withoutStarts)]))).toHaveLength(1);
  });

  it('matches its golden', async () => {
    const [chart] = traceTimelineCharts(toReportItems([traceEnvelope()]));
    expectGolden(join(GOLDEN_DIR, 'trace-timeline.svg'), await renderChartSvg(chart!.spec));
  });
});

describe('the wait heat map', () => {
  it('has one cell per rank and collective, coloured by its wait', () => {
    const [chart] = traceWaitCharts(toReportItems([traceEnvelope()]));
    const values = (chart!.spec as unknown as Values).data.values;
    expect(values.map((value) => [value.index, value.rank, value.waitUs])).toEqual([
      [0, 0, 40],
      [0, 1, 30],
      [0, 2, 0],
      [1, 0, 50],
      [1, 1, 50],
      [1, 2, 0],
      [2, 0, 10],
      [2, 1, 5],
      [2, 2, 0],
    ]);
    expect(JSON.stringify((chart!.spec as { encoding?: unknown }).encoding)).toContain('"field":"waitUs"');
  });

  it(`draws at most ${MAX_HEATMAP_COLLECTIVES} collectives and says how many there were`, () => {
    const many = Array.from({ length: MAX_HEATMAP_COLLECTIVES + 50 }, (_, seq) =>
      row(seq, 'all_reduce', [seq * 100, seq * 100 + 1, seq * 100 + 2], [10, 9, 8]),
    );
    const [chart] = traceWaitCharts(toReportItems([traceEnvelope(many)]));
    const values = (chart!.spec as unknown as Values).data.values;
    expect(new Set(values.map((value) => value.index)).size).toBe(MAX_HEATMAP_COLLECTIVES);
    expect(chart!.caption).toContain(
      `The first ${MAX_HEATMAP_COLLECTIVES} collectives of ${MAX_HEATMAP_COLLECTIVES + 50} drawn.`,
    );
  });

  it('matches its golden', async () => {
    const [chart] = traceWaitCharts(toReportItems([traceEnvelope()]));
    expectGolden(join(GOLDEN_DIR, 'trace-waits.svg'), await renderChartSvg(chart!.spec));
  });

  it('draws nothing for other kinds or a trace without collectives', () => {
    const empty = traceEnvelope([]);
    const plan = { ...traceEnvelope(), kind: 'plan' };
    for (const build of [traceTimelineCharts, traceWaitCharts])
      expect(build(toReportItems([empty, plan]))).toEqual([]);
  });

  it('survives a hand-edited envelope with wrong types in place of numbers', () => {
    const broken = traceEnvelope([
      {
        ...row(0, 'all_reduce', [1, 2, 3], [5, 5, 5]),
        waitUs: ['x', null, 2] as unknown as number[],
        ranksSeen: 'all' as unknown as number[],
      },
    ]);
    expect(() => traceWaitCharts(toReportItems([broken]))).not.toThrow();
  });
});

describe('a report of a trace result', () => {
  it('holds both charts, the straggler finding and a run label naming ranks, steps, fabric and paths', async () => {
    const envelope = traceEnvelope();
    expect(describeRun(envelope as unknown as Record<string, unknown>)).toBe(
      '3 ranks steps=1 fabric=roce-400g paths=job-a.tar.gz',
    );
    const { html } = await renderReport([envelope], { generatedAt: null });
    expect(html).toContain('id="trace-timeline-result-1"');
    expect(html).toContain('id="trace-waits-result-1"');
    expect(html).toContain('trace.straggler');
    expect(html).toContain('3 ranks steps=1 fabric=roce-400g');
    expect(html).not.toMatch(/could not be drawn/);
  });
});

describe('a report of the real 8-rank DLRM trace (facebookresearch/param @ 1e115ff et_replay/tests/inputs/dlrm_kineto.tar.gz)', () => {
  const DLRM = join(
    import.meta.dirname,
    '..',
    '..',
    '..',
    'shared',
    'data',
    'traces',
    'param',
    'dlrm_kineto.tar.gz',
  );

  it("draws the engine's waits cell for cell: 8 ranks x 8 collectives", async () => {
    const envelope = analyseTrace(await readTraceFiles([DLRM]), { inputs: { paths: [DLRM], steps: null } });
    const [chart] = traceWaitCharts(toReportItems([envelope]));
    const values = (chart!.spec as unknown as Values).data.values;
    expect(values).toHaveLength(64);
    envelope.metrics.collectives.forEach((collective, index) => {
      collective.ranksSeen.forEach((rank, position) => {
        expect(values.find((value) => value.index === index && value.rank === rank)?.waitUs).toBe(
          collective.waitUs[position],
        );
      });
    });
    const { html } = await renderReport([envelope], { generatedAt: null });
    expect(html).toContain('id="trace-waits-result-1"');
    expect(html).toContain('8 ranks paths=dlrm_kineto.tar.gz');
    expect(html).not.toMatch(/could not be drawn/);
  });
});
