import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  busbwCurveCharts,
  incastGoodputCharts,
  pfcPauseCharts,
  queueOccupancyCharts,
  renderChartSvg,
  scalingEfficiencyCharts,
  stepBreakdownCharts,
} from '../../src/report/charts/index.js';
import { toReportItems } from '../../src/report/data/report-item.js';
import { renderFindingsTable } from '../../src/report/index.js';
import { bandwidthCurves } from '../../src/result/index.js';
import { expectGolden } from '../helpers/golden.js';
import { loadFixture } from './fixtures.js';

const GOLDEN_DIR = join(import.meta.dirname, 'golden');

const items = (...names: string[]) => toReportItems(names.flatMap(loadFixture));

/** One golden per chart type, each from fixtures in the shapes the engines emit. */
const CASES = [
  {
    golden: 'busbw-curve.svg',
    charts: () => busbwCurveCharts(items('collective-roce', 'collective-tcp', 'bench-tcp', 'parse-nccl')),
  },
  { golden: 'scaling-efficiency.svg', charts: () => scalingEfficiencyCharts(items('scale')) },
  { golden: 'step-breakdown-compare.svg', charts: () => stepBreakdownCharts(items('compare')) },
  { golden: 'step-breakdown-plan.svg', charts: () => stepBreakdownCharts(items('plan')) },
  {
    golden: 'incast-goodput.svg',
    charts: () => incastGoodputCharts(items('sim-incast-sweep', 'sim-timeline')),
  },
  { golden: 'queue-occupancy.svg', charts: () => queueOccupancyCharts(items('sim-timeline')) },
  { golden: 'pfc-pause.svg', charts: () => pfcPauseCharts(items('sim-timeline')) },
];

describe('chart SVGs match their goldens', () => {
  for (const testCase of CASES) {
    it(testCase.golden, async () => {
      const charts = testCase.charts();
      expect(charts).toHaveLength(1);
      const svg = await renderChartSvg(charts[0]!.spec);
      expect(svg.startsWith('<svg')).toBe(true);
      expectGolden(join(GOLDEN_DIR, testCase.golden), svg);
    });
  }

  it('renders the same SVG twice in one process (no global counters, no timestamps)', async () => {
    const [chart] = busbwCurveCharts(items('collective-roce'));
    const first = await renderChartSvg(chart!.spec);
    const second = await renderChartSvg(chart!.spec);
    expect(second).toBe(first);
    expect(first).not.toMatch(/20\d\d-\d\d-\d\dT/);
  });
});

describe('the findings table', () => {
  it('matches its golden: worst first, escaped, with evidence and remediation', () => {
    const html = renderFindingsTable(loadFixture('check')[0]!.findings ?? []);
    expect(html.indexOf('sev-error')).toBeLessThan(html.indexOf('sev-warn'));
    expect(html.indexOf('sev-warn')).toBeLessThan(html.indexOf('sev-pass'));
    expect(html).not.toContain('<script>');
    expectGolden(join(GOLDEN_DIR, 'findings-table.html'), html);
  });
});

describe('chart selection by kind and shape', () => {
  it('draws one busbw chart per collective op, one line per fabric or run', () => {
    const charts = busbwCurveCharts(items('collective-roce', 'collective-tcp', 'collective-roce'));
    expect(charts.map((chart) => chart.id)).toEqual(['busbw-all-reduce']);
    const values = (charts[0]!.spec as { data: { values: { line: string }[] } }).data.values;
    // The same fabric from a second run gets its own, told-apart line.
    expect([...new Set(values.map((row) => row.line))]).toEqual([
      'roce-v2 (predicted)',
      'tcp (predicted)',
      'roce-v2 (predicted) (result 3)',
    ]);
  });

  it('marks the RDMA pay-off point only when the scale result names one', () => {
    const [withMarker] = scalingEfficiencyCharts(items('scale'));
    expect(JSON.stringify(withMarker!.spec)).toContain('RDMA pays off from 8 nodes');
    const scale = loadFixture('scale')[0]!;
    const none = {
      ...scale,
      metrics: { ...scale.metrics, rdmaPaysOffFromNodes: null, rdmaPaysOffStatement: undefined },
    };
    const [withoutMarker] = scalingEfficiencyCharts(toReportItems([none]));
    expect(JSON.stringify(withoutMarker!.spec)).not.toContain('RDMA pays off from');
    expect(withoutMarker!.caption).toMatch(/No node count/);
  });

  it('keeps the part of a step the components do not explain visible as "other"', () => {
    const plan = loadFixture('plan')[0]!;
    const padded = { ...plan, metrics: { ...plan.metrics, stepTimeMs: 1200 } };
    const [chart] = stepBreakdownCharts(toReportItems([padded]));
    const values = (chart!.spec as { data: { values: { component: string; ms: number }[] } }).data.values;
    expect(values.find((row) => row.component === 'other')?.ms).toBeCloseTo(120);
  });

  it('draws nothing for results without the data a chart needs', () => {
    const unknown = items('unknown-kind', 'check');
    for (const build of [
      busbwCurveCharts,
      scalingEfficiencyCharts,
      stepBreakdownCharts,
      incastGoodputCharts,
      queueOccupancyCharts,
      pfcPauseCharts,
    ]) {
      expect(build(unknown)).toEqual([]);
    }
  });
});

describe("the simulator's own output (aifabric sim examples/scenarios/incast-roce-pfc.yaml --json)", () => {
  const simulated = () => items('sim-engine-incast-roce-pfc');

  it('draws the busiest queues only, the summed pause fraction, and the incast point', () => {
    const [queue] = queueOccupancyCharts(simulated());
    const queues = new Set(
      (queue!.spec as { data: { values: { queue: string }[] } }).data.values.map((row) => row.queue),
    );
    expect(queues.size).toBeGreaterThan(0);
    expect(queues.size).toBeLessThanOrEqual(8);
    expect(queues.has('queue sw0->h0')).toBe(true);
    expect(queue!.caption).toMatch(/queues not drawn/);

    const [pause] = pfcPauseCharts(simulated());
    const series = new Set(
      (pause!.spec as { data: { values: { series: string }[] } }).data.values.map((row) => row.series),
    );
    expect([...series]).toEqual([expect.stringMatching(/^ports paused \(sum over \d+ ports\)$/)]);

    const [incast] = incastGoodputCharts(simulated());
    const points = (incast!.spec as { data: { values: { senders: number; line: string }[] } }).data.values;
    expect(points).toEqual([expect.objectContaining({ senders: 64, line: 'incast-roce-pfc (simulated)' })]);
  });
});

describe('busbw curves from what the engines really emit', () => {
  it('reads `aifabric bench tcp --json` (kind bench.tcp) and `aifabric parse --json` of a captured log', () => {
    const bench = bandwidthCurves(loadFixture('bench-tcp-engine')[0]!);
    expect(bench).toEqual([
      expect.objectContaining({ op: 'all_reduce', name: 'kernel TCP, 2 ranks', source: 'measured' }),
    ]);
    expect(bench[0]!.points.map((point) => point.sizeBytes)).toEqual([
      1024, 4096, 16384, 65536, 262144, 1048576,
    ]);
    // The capture does not name its collective; the file name does.
    const parsed = bandwidthCurves(loadFixture('parse-engine-aws')[0]!);
    expect(parsed).toEqual([
      expect.objectContaining({
        op: 'all_reduce',
        name: 'aws-p5-h100-efa-all_reduce-mpi-prefixed.log',
        source: 'measured',
      }),
    ]);
    // Out-of-place busbw, as nccl-tests' summary uses: its peak is 483.05 (in-place peaks at 483.35).
    expect(Math.max(...parsed[0]!.points.map((point) => point.busbwGBps))).toBeCloseTo(483.05, 2);
  });
});
