/**
 * vega-lite spec -> vega spec -> SVG string, in Node, without a browser. vega and vega-lite are
 * imported here on first use: they cost ~0.2 s to load, which `aifabric --help` must not pay.
 */
import type { TopLevelSpec } from 'vega-lite';
import { CHART_CONFIG } from './chart.js';

interface VegaModules {
  vega: typeof import('vega');
  vegaLite: typeof import('vega-lite');
}

let modules: Promise<VegaModules> | undefined;

function loadVega(): Promise<VegaModules> {
  modules ??= Promise.all([import('vega'), import('vega-lite')]).then(([vega, vegaLite]) => ({
    vega,
    vegaLite,
  }));
  return modules;
}

export async function renderChartSvg(spec: TopLevelSpec): Promise<string> {
  const { vega, vegaLite } = await loadVega();
  const withConfig = { ...spec, config: { ...CHART_CONFIG, ...(spec.config ?? {}) } } as TopLevelSpec;
  const compiled = vegaLite.compile(withConfig).spec;
  // renderer 'none': no DOM; the SVG string renderer runs headless inside toSVG().
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', logLevel: vega.Error });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
