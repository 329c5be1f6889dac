/**
 * What every chart builder returns, and the look they share. Fonts are named explicitly and no
 * canvas is installed, so vega measures text by its built-in estimate: the same SVG on every
 * machine, which is what lets golden files be compared byte for byte.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { ReportItem } from '../data/report-item.js';

export interface ChartSpec {
  /** Stable, unique in one report: used as the figure's id and the golden file's name. */
  id: string;
  title: string;
  /** One sentence under the chart: what to read from it, or what is missing. */
  caption?: string;
  spec: TopLevelSpec;
}

export type ChartBuilder = (items: readonly ReportItem[]) => ChartSpec[];

export const CHART_WIDTH = 560;
export const CHART_HEIGHT = 300;
const FONT = 'Helvetica, Arial, sans-serif';

/** Colour per transport, the same in every chart: TCP red, RoCE blue, InfiniBand green (matched in preset names such as `roce-400g`). */
const TRANSPORT_COLOURS: readonly [RegExp, string][] = [
  [/tcp/i, '#e45756'],
  [/roce/i, '#4c78a8'],
  [/infiniband|(^|[^a-z])ib([^a-z]|$)/i, '#54a24b'],
];
const FALLBACK_COLOURS = [
  '#f58518',
  '#72b7b2',
  '#b279a2',
  '#ff9da6',
  '#9d755d',
  '#bab0ac',
  '#eeca3b',
  '#9ecae9',
];

/** A colour scale that keeps each transport's colour across charts; a second fabric of one transport gets a fallback colour. */
export function fabricColourScale(names: readonly string[]): { domain: string[]; range: string[] } {
  const domain = [...new Set(names)];
  const used = new Set<string>();
  let fallback = 0;
  const range = domain.map((name) => {
    const preferred = TRANSPORT_COLOURS.find(([pattern]) => pattern.test(name))?.[1];
    let colour = preferred !== undefined && !used.has(preferred) ? preferred : undefined;
    // Past the palette's length colours repeat rather than loop forever.
    for (let tries = 0; colour === undefined && tries < FALLBACK_COLOURS.length; tries += 1) {
      const candidate = FALLBACK_COLOURS[fallback++ % FALLBACK_COLOURS.length] ?? '#888888';
      if (!used.has(candidate)) colour = candidate;
    }
    colour ??= FALLBACK_COLOURS[fallback++ % FALLBACK_COLOURS.length] ?? '#888888';
    used.add(colour);
    return colour;
  });
  return { domain, range };
}

export const CHART_CONFIG = {
  font: FONT,
  background: 'white',
  view: { stroke: '#d0d7de' },
  axis: { labelFont: FONT, titleFont: FONT, labelFontSize: 11, titleFontSize: 12, gridColor: '#eaeef2' },
  legend: { labelFont: FONT, titleFont: FONT, labelFontSize: 11, titleFontSize: 12, labelLimit: 420 },
  title: { font: FONT, fontSize: 14, anchor: 'start' as const },
  range: { category: { scheme: 'tableau10' } },
};

/** nccl-tests writes sizes as 8, 1K, 1M, 1G (powers of 1024); axes say it the same way. */
export const SIZE_LABEL_EXPR =
  "datum.value >= 1073741824 ? format(datum.value / 1073741824, '~g') + 'G' : datum.value >= 1048576 ? format(datum.value / 1048576, '~g') + 'M' : datum.value >= 1024 ? format(datum.value / 1024, '~g') + 'K' : format(datum.value, '~g')";

export interface Log2Axis {
  /** The powers of two enclosing the data, so no point falls outside the plot. */
  domain: [number, number];
  /** Powers of two across the domain, thinned to at most `maxTicks`: readable over 2^3..2^33. */
  ticks: number[];
}

export function log2Axis(min: number, max: number, maxTicks = 10): Log2Axis {
  if (!(min > 0) || !(max >= min)) return { domain: [1, 2], ticks: [1, 2] };
  const low = Math.floor(Math.log2(min));
  const high = Math.max(low + 1, Math.ceil(Math.log2(max)));
  const step = Math.max(1, Math.ceil((high - low + 1) / maxTicks));
  const ticks: number[] = [];
  // Count down from the top so the largest size, the one people read busbw at, always has a label.
  for (let exponent = high; exponent >= low; exponent -= step) ticks.unshift(2 ** exponent);
  return { domain: [2 ** low, 2 ** high], ticks };
}

/** A label unique among `taken`: the second `roce-v2` line of a report becomes `roce-v2 (#12)`. */
export function uniqueLabel(label: string, ref: string, taken: Set<string>): string {
  const unique = taken.has(label) ? `${label} (${ref})` : label;
  taken.add(unique);
  return unique;
}

export function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'chart'
  );
}
