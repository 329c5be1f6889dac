/**
 * The report's accept pair matrix (issue 11, "Outputs"): an accept result with one slow host, made
 * by the engine through a scripted launcher, gives one heat map whose cells are each pair's share of
 * the expectation (the slow host's row and column low), drawn as an SVG, and the report shows the
 * matrix beside the culprit finding.
 */
import { describe, expect, it } from 'vitest';
import { runAcceptance, type AcceptLauncher } from '../../src/accept/index.js';
import { hostNames, linkJson, ok, scriptedLauncher } from '../accept/scripted.js';
import { acceptPairCharts, renderChartSvg } from '../../src/report/charts/index.js';
import { toReportItems } from '../../src/report/data/report-item.js';
import { renderReport } from '../../src/report/index.js';

function iperfLauncher(n: number, slow: string): AcceptLauncher {
  const names = hostNames('p', n);
  const byAddress = new Map(names.map((name, k) => [`10.9.0.${k + 1}`, name]));
  return scriptedLauncher(names, (host, command) => {
    if (command[0] === 'ip') return ok(linkJson(1500));
    if (command[0] !== 'iperf3' || command[1] !== '-c') return ok('');
    const pair = [names[host]!, byAddress.get(command[2]!)!];
    const bps = pair.includes(slow) ? 24e6 : 95e6 + 1e5 * host;
    return ok(
      JSON.stringify({
        end: { sum_sent: { bytes: bps / 4, retransmits: 0 }, sum_received: { bits_per_second: bps } },
      }),
    );
  });
}

describe('accept pair matrix', () => {
  it('one heat map per run and tool, the slow host low in its row, drawn and shown with the culprit', async () => {
    const envelope = await runAcceptance(
      iperfLauncher(6, 'p-h3'),
      { portRateBps: 100e6 },
      {
        tools: ['iperf3'],
        stages: ['preflight', 'pairs'],
        pairing: 'circle',
        seed: 1,
        budgetS: 60,
        iperfSeconds: 1,
        benchCommand: ['aifabric'],
      },
    );
    const charts = acceptPairCharts(toReportItems([envelope]));
    expect(charts).toHaveLength(1);
    const cells = (charts[0]!.spec as { data: { values: { from: string; to: string; share: number }[] } })
      .data.values;
    // 15 pairs, both orders.
    expect(cells).toHaveLength(30);
    for (const cell of cells) expect(cell.share < 0.3).toBe(cell.from === 'p-h3' || cell.to === 'p-h3');
    const svg = await renderChartSvg(charts[0]!.spec);
    expect(svg.startsWith('<svg')).toBe(true);
    const { html } = await renderReport([envelope], { generatedAt: null });
    expect(html).toContain(`id="${charts[0]!.id}"`);
    expect(html).toContain('accept.node');
    expect(html).toContain('p-h3');
  }, 60_000);
});
