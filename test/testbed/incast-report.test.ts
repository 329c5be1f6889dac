/**
 * The report draws `testbed incast` results with the incast chart: one measured and one simulated
 * line, a point per sender count. The fixture is a real run (docs/bench.md, 2026-12-02, BBR):
 * `aifabric testbed incast --senders 1,2,3,4,6,8 --rate 100Mbps --buffer 128K --block 256K --rounds 20 --runs 3 --cc bbr --compare-sim --json`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResultEnvelope } from '../../src/core/envelope.js';
import { incastGoodputCharts } from '../../src/report/charts/index.js';
import { toReportItems } from '../../src/report/data/report-item.js';

const envelope = JSON.parse(
  readFileSync(join(import.meta.dirname, '../fixtures/testbed/incast-bbr-100mbps.json'), 'utf8'),
) as ResultEnvelope;

describe('testbed incast in the report', () => {
  it('draws the measured and the simulated goodput against senders', () => {
    const charts = incastGoodputCharts(toReportItems([envelope]));
    expect(charts).toHaveLength(1);
    const values = (
      charts[0]!.spec as {
        data: { values: { senders: number; goodputGbps: number; source: string; line: string }[] };
      }
    ).data.values;
    const rows = (
      envelope.metrics as { rows: { senders: number; testbedGoodputGbps: number; simGoodputGbps: number }[] }
    ).rows;
    for (const source of ['measured', 'simulated']) {
      const points = values.filter((value) => value.source === source);
      expect(points.map((point) => point.senders)).toEqual(rows.map((row) => row.senders));
      expect(points.map((point) => point.goodputGbps)).toEqual(
        rows.map((row) => (source === 'measured' ? row.testbedGoodputGbps : row.simGoodputGbps)),
      );
      expect(new Set(points.map((point) => point.line)).size).toBe(1);
      expect(points[0]!.line).toContain('bbr');
    }
  });
});
