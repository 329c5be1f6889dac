/** Every chart builder, in the order charts appear in a report. */
import { acceptPairCharts } from './accept-pairs.js';
import { busbwCurveCharts } from './busbw-curve.js';
import type { ChartBuilder } from './chart.js';
import { incastGoodputCharts } from './incast-goodput.js';
import { pfcPauseCharts } from './pfc-pause.js';
import { queueOccupancyCharts } from './queue-occupancy.js';
import { scalingEfficiencyCharts } from './scaling-efficiency.js';
import { stepBreakdownCharts } from './step-breakdown.js';
import { traceTimelineCharts } from './trace-timeline.js';
import { traceWaitCharts } from './trace-waits.js';

export const CHART_BUILDERS: readonly ChartBuilder[] = [
  busbwCurveCharts,
  scalingEfficiencyCharts,
  stepBreakdownCharts,
  incastGoodputCharts,
  queueOccupancyCharts,
  pfcPauseCharts,
  traceTimelineCharts,
  traceWaitCharts,
  acceptPairCharts,
];

export {
  acceptPairCharts,
  busbwCurveCharts,
  scalingEfficiencyCharts,
  stepBreakdownCharts,
  incastGoodputCharts,
  queueOccupancyCharts,
  pfcPauseCharts,
  traceTimelineCharts,
  traceWaitCharts,
};
export { renderChartSvg } from './render-svg.js';
export type { ChartSpec, ChartBuilder } from './chart.js';
