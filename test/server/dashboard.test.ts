import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUnsafePath, startDashboard, type RunningDashboard } from '../../src/server/index.js';
import { saveResult } from '../../src/store/index.js';
import { CHROMIUM_LAUNCH, TEST_OUTPUT } from '../report/browser.js';
import { loadAllFixtures, loadFixture } from '../report/fixtures.js';
import { tempDbPath } from '../store/store-helpers.js';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with the target sent byte for byte: fetch() would normalise `/../` away before sending. */
function rawRequest(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path: target, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function nonLoopbackIPv4(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? [])
      if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  return undefined;
}

function connectionRefused(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(true);
    });
  });
}

describe('the dashboard server', () => {
  let dashboard: RunningDashboard;
  let port: number;
  let browser: Browser;
  const fixtures = loadAllFixtures();

  beforeAll(async () => {
    const db = tempDbPath();
    for (const envelope of fixtures) saveResult(db, envelope);
    // Two collectives of one fabric, the second slower at 1M: the diff page has something to say.
    const baseline = loadFixture('collective-roce')[0]!;
    const slower = structuredClone(baseline);
    for (const row of (slower.metrics as { rows: { sizeBytes: number; busbwGBps: number }[] }).rows)
      if (row.sizeBytes === 1048576) row.busbwGBps *= 0.8;
    saveResult(db, baseline);
    saveResult(db, slower);
    dashboard = await startDashboard({ dbPath: db, port: 0 });
    port = dashboard.address.port;
    browser = await chromium.launch(CHROMIUM_LAUNCH);
  });

  afterAll(async () => {
    await browser?.close();
    await dashboard?.close();
  });

  it('listens on 127.0.0.1 only', async () => {
    expect(dashboard.address.address).toBe('127.0.0.1');
    expect(dashboard.url).toBe(`http://127.0.0.1:${port}/`);
    const other = nonLoopbackIPv4();
    if (other !== undefined) expect(await connectionRefused(other, port)).toBe(true);
    expect(await connectionRefused('127.0.0.1', port)).toBe(false);
  });

  it('refuses paths that climb out of the app, plain or encoded', async () => {
    for (const target of [
      '/../../etc/passwd',
      '/runs/../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/runs/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
      '/%252e%252e/%252e%252e/etc/passwd',
      '/..%5c..%5cetc%5cpasswd',
      '/runs/..',
      '/%2e%2e',
      '/%E0%A4%A',
    ]) {
      const response = await rawRequest(port, 'GET', target);
      expect(response.status, target).toBe(400);
      expect(response.body).not.toContain('root:');
    }
  });

  it('refuses every method but GET and HEAD', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const response = await rawRequest(port, method, '/');
      expect(response.status, method).toBe(405);
      expect(response.headers.allow).toBe('GET, HEAD');
    }
    const head = await rawRequest(port, 'HEAD', '/');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it('refuses a foreign Host header (DNS rebinding) while bound to loopback', async () => {
    expect((await rawRequest(port, 'GET', '/', { Host: 'attacker.example' })).status).toBe(403);
    expect((await rawRequest(port, 'GET', '/', { Host: `localhost:${port}` })).status).toBe(200);
  });

  it('serves runs, one run and diffs as JSON and HTML, with precise errors', async () => {
    const list = JSON.parse((await rawRequest(port, 'GET', '/api/runs')).body) as { runs: { id: number }[] };
    expect(list.runs).toHaveLength(fixtures.length + 2);
    expect(JSON.parse((await rawRequest(port, 'GET', '/api/runs/3')).body)).toEqual(fixtures[2]);
    expect((await rawRequest(port, 'GET', '/runs/999')).status).toBe(404);
    expect((await rawRequest(port, 'GET', '/runs/abc')).status).toBe(400);
    expect((await rawRequest(port, 'GET', '/diff?a=3&b=7')).status).toBe(400);
    expect((await rawRequest(port, 'GET', '/nothing-here')).status).toBe(404);
    const page = await rawRequest(port, 'GET', '/');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.body).not.toMatch(/<script/i);
  });

  it('pages load in headless Chromium: runs list, one run with its charts, a diff', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning')
        problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(error.message));

    await page.goto(dashboard.url);
    expect(await page.locator('table.runs tbody tr').count()).toBe(fixtures.length + 2);

    const scaleId = fixtures.findIndex((envelope) => envelope.kind === 'scale') + 1;
    await Promise.all([
      page.waitForURL(new RegExp(`/runs/${scaleId}$`), { waitUntil: 'load' }),
      page.click(`a[href="/runs/${scaleId}"]`),
    ]);
    expect(await page.title()).toBe(`#${scaleId} · scale`);
    const chart = await page.locator('figure.chart svg').first().boundingBox();
    expect(chart?.width).toBeGreaterThan(100);
    expect(chart?.height).toBeGreaterThan(100);

    const last = fixtures.length + 2;
    await page.goto(dashboard.url);
    await page.check(`input[name="a"][value="${last - 1}"]`);
    await page.check(`input[name="b"][value="${last}"]`);
    await Promise.all([
      page.waitForURL(/\/diff\?/, { waitUntil: 'load' }),
      page.click('button[type="submit"]'),
    ]);
    await expect.poll(() => page.locator('p.regression').textContent()).toContain('1M');
    expect(await page.locator('figure.chart svg').count()).toBeGreaterThan(0);
    mkdirSync(TEST_OUTPUT, { recursive: true });
    await page.screenshot({ path: join(TEST_OUTPUT, 'dashboard-diff.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('isUnsafePath', () => {
  it('lets ordinary app paths through, dots in queries and names included', () => {
    for (const path of [
      '/',
      '/runs/12',
      '/diff?a=1&b=2',
      '/?kind=a..b',
      '/api/runs',
      '/runs/12?x=%2e%2e',
      '/file.v2..json',
    ])
      expect(isUnsafePath(path), path).toBe(false);
  });

  it('catches climbing segments however they are written', () => {
    for (const path of [
      '/..',
      '/../x',
      '/a/../../x',
      '/%2e%2e/x',
      '/%2E%2e%2Fx',
      '/.%2e/x',
      '/%252e%252e/x',
      '/%25252e%25252e/x',
      '/a%5c..%5cb',
      '/a\\b',
      '/a%00b',
      '/%zz',
      'http://host/../x',
    ]) {
      expect(isUnsafePath(path), path).toBe(true);
    }
  });
});
