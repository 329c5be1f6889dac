import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEnvelope } from '../../src/core/envelope.js';
import { renderReport } from '../../src/report/index.js';
import { CHROMIUM_LAUNCH, TEST_OUTPUT } from './browser.js';
import { loadAllFixtures, loadFixture } from './fixtures.js';

/** What would make the file depend on anything beside itself. */
const EXTERNAL_REFERENCES = [
  /<script/i,
  /<link/i,
  /<img/i,
  /<iframe/i,
  /\ssrc\s*=/i,
  /@import/i,
  /url\(/i,
  /@font-face/i,
  /xlink:href\s*=\s*"(?!#)/i,
];

describe('renderReport', () => {
  let html = '';
  let charts = 0;
  beforeAll(async () => {
    ({ html, charts } = await renderReport(loadAllFixtures(), {
      title: 'Fixture report',
      generatedAt: null,
    }));
  });

  it('is one self-contained document: no scripts, stylesheets, images or fonts from anywhere', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    for (const pattern of EXTERNAL_REFERENCES) expect(html, String(pattern)).not.toMatch(pattern);
  });

  it('draws every chart type from the fixtures, as inline SVG', () => {
    const ids = [...html.matchAll(/<figure class="chart" id="([^"]+)"/g)].map((match) => match[1]);
    // The count renderReport returns is the charts drawn, so no caller has to count them in the HTML.
    expect(charts).toBe(ids.length);
    expect(ids).toEqual([
      'busbw-all-reduce',
      'scaling-result-10',
      'step-breakdown-result-6',
      'step-breakdown-plans',
      'incast-goodput',
      'queue-result-11',
      'queue-result-22',
      'pfc-result-11',
      'pfc-result-22',
    ]);
    expect(
      (html.match(/<figure class="chart"[^>]*>\s*<figcaption>[\s\S]*?<\/figcaption>\s*<svg/g) ?? []).length,
    ).toBe(ids.length);
  });

  it('shows findings worst first and escapes what results contain', () => {
    expect(html).toContain('pfc-priority-mismatch');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert(1)</script>');
  });

  it('renders a kind it has never heard of as tables, without a chart', async () => {
    const { html: unknown, charts: unknownCharts } = await renderReport(loadFixture('unknown-kind'), {
      generatedAt: null,
    });
    expect(unknownCharts).toBe(0);
    expect(unknown).not.toContain('<figure');
    expect(unknown).toContain('weird.nested.value');
    expect(unknown).toContain('1.235');
    expect(unknown).toMatch(/<th>a<\/th><th>b<\/th><th>c<\/th>/);
  });

  it('is reproducible when no generation time is asked for', async () => {
    const { html: again } = await renderReport(loadAllFixtures(), {
      title: 'Fixture report',
      generatedAt: null,
    });
    expect(again).toBe(html);
  });

  it('never throws, whatever shape the results have', async () => {
    const kinds = fc.constantFrom(
      'collective',
      'bench-tcp',
      'parse',
      'scale',
      'compare',
      'plan',
      'sim',
      'check',
      'mystery',
    );
    const garbage = fc.oneof(
      fc.jsonValue(),
      fc.array(
        fc.dictionary(
          fc.constantFrom(
            'sizeBytes',
            'busbwGBps',
            'name',
            'points',
            'timeUs',
            'queueBytes',
            'senders',
            'goodputGbps',
            'fabric',
            'rows',
            'severity',
          ),
          fc.jsonValue(),
        ),
      ),
    );
    const envelope = fc.record({
      kind: kinds,
      schemaVersion: fc.constant(1),
      tool: fc.constant({ name: 'aifabric', version: '0.1.0' }),
      createdAt: fc.constant('2026-11-30T09:00:00.000Z'),
      inputs: fc.oneof(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.record({
          op: fc.string(),
          fabric: fc.jsonValue(),
          workload: fc.record({ kind: fc.constant('incast'), senders: fc.jsonValue() }),
        }),
      ),
      metrics: fc.oneof(
        fc.dictionary(
          fc.constantFrom('rows', 'files', 'fabrics', 'goodputGbps', 'rdmaPaysOffFromNodes', 'stepTimeMs'),
          garbage,
        ),
        garbage,
      ),
      series: fc.option(garbage, { nil: undefined }),
      findings: fc.option(garbage, { nil: undefined }),
      warnings: fc.option(garbage, { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(envelope, { maxLength: 3 }), async (envelopes) => {
        const { html: page } = await renderReport(envelopes as unknown as ResultEnvelope[], {
          generatedAt: null,
        });
        expect(page).toContain('</html>');
      }),
      { numRuns: 100 },
    );
  });
});

describe('the report in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch(CHROMIUM_LAUNCH);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('opens with no console errors, no network requests, and every chart visible', async () => {
    mkdirSync(TEST_OUTPUT, { recursive: true });
    const file = join(TEST_OUTPUT, 'report.html');
    writeFileSync(file, (await renderReport(loadAllFixtures(), { title: 'Fixture report' })).html);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning')
        problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(`file://${file}`, { waitUntil: 'load' });

    const boxes = await page.$$eval('figure.chart svg', (svgs) =>
      svgs.map((svg) => {
        const box = svg.getBoundingClientRect();
        return {
          width: box.width,
          height: box.height,
          marks: svg.querySelectorAll('path, rect, line, text').length,
        };
      }),
    );
    expect(boxes).toHaveLength(9);
    for (const box of boxes) {
      expect(box.width).toBeGreaterThan(100);
      expect(box.height).toBeGreaterThan(100);
      expect(box.marks).toBeGreaterThan(10);
    }
    // Each chart's plotted lines or bars, not only its frame, have a size on screen.
    const plotted = await page.$$eval('figure.chart svg', (svgs) =>
      svgs.map((svg) =>
        [...svg.querySelectorAll('.mark-line path, .mark-rect path, .mark-area path')].some((mark) => {
          const box = (mark as unknown as { getBBox(): { width: number; height: number } }).getBBox();
          return box.width > 0 && box.height > 0;
        }),
      ),
    );
    expect(plotted).toEqual(boxes.map(() => true));
    expect(await page.locator('table.findings tbody tr').count()).toBe(4);
    await page.screenshot({ path: join(TEST_OUTPUT, 'report.png'), fullPage: true });
    expect(problems).toEqual([]);
    expect(requests).toEqual([`file://${file}`]);
    await page.close();
  });
});
