/**
 * The read-only dashboard as a hono app over an open store: the runs list, one run rendered as
 * in the report, the diff of two runs, and the same data as JSON under /api. Being a plain
 * `fetch` handler it is tested with app.request() and served by @hono/node-server.
 */
import { Hono } from 'hono';
import { AifabricError } from '../core/errors.js';
import { renderReportBody, renderReportItems, page, type ReportItem } from '../report/index.js';
import { diffResults, parseRunId, type RunStore } from '../store/index.js';
import { NAV, diffSection, messagePage, runsListPage } from './pages.js';
import { requestGuard } from './request-guard.js';

export interface DashboardAppOptions {
  /** Refuse Host headers that are not loopback names (set when bound to a loopback address). */
  loopbackOnly?: boolean;
}

/** The list page shows the newest runs; /api/runs?kind= and `aifabric runs list` reach the rest. */
const MAX_LISTED_RUNS = 500;

const runHref = (item: ReportItem): string => `/runs/${item.ref.replace(/^#/, '')}`;

export function createDashboardApp(store: RunStore, options: DashboardAppOptions = {}): Hono {
  const app = new Hono();
  app.use('*', requestGuard({ loopbackOnly: options.loopbackOnly ?? true }));

  app.get('/', (c) => {
    const kind = c.req.query('kind') || undefined;
    const runs = store.list({ ...(kind !== undefined ? { kind } : {}), limit: MAX_LISTED_RUNS });
    return c.html(runsListPage(runs, store.kinds(), kind, store.path, store.count(kind)));
  });

  app.get('/runs/:id', async (c) => {
    const run = store.require(parseRunId(c.req.param('id')));
    const { html } = await renderReportItems([{ envelope: run.envelope, ref: `#${run.id}` }], {
      title: `#${run.id} · ${run.kind}`,
      nav: NAV,
      generatedAt: null,
      runHref,
    });
    return c.html(html);
  });

  app.get('/diff', async (c) => {
    const aText = c.req.query('a');
    const bText = c.req.query('b');
    if (!aText || !bText)
      return c.html(
        messagePage(400, 'pick two runs', 'Choose a run in column A and one in column B, then press Diff.'),
        400,
      );
    const a = store.require(parseRunId(aText));
    const b = store.require(parseRunId(bText));
    const diff = diffResults(a.envelope, b.envelope);
    const items: ReportItem[] = [
      { envelope: a.envelope, ref: `#${a.id}` },
      { envelope: b.envelope, ref: `#${b.id}` },
    ];
    const body = `<h2>Diff</h2>\n${diffSection(diff, a, b)}\n${await renderReportBody(items, { runHref })}`;
    return c.html(page({ title: `Diff #${a.id} → #${b.id} · ${a.kind}`, nav: NAV }, body));
  });

  app.get('/api/runs', (c) => {
    const kind = c.req.query('kind') || undefined;
    return c.json({ runs: store.list(kind !== undefined ? { kind } : {}) });
  });

  app.get('/api/runs/:id', (c) => c.json(store.require(parseRunId(c.req.param('id'))).envelope));

  // Browsers ask for it on every page; an empty answer keeps their consoles clean.
  app.get('/favicon.ico', (c) => c.body(null, 204));

  app.notFound((c) =>
    c.html(messagePage(404, 'not found', `Nothing at ${new URL(c.req.url).pathname}.`), 404),
  );

  app.onError((error, c) => {
    // Bad ids and impossible diffs are the visitor's mistake (400/404); anything else is ours.
    if (error instanceof AifabricError && error.exitCode === 2) {
      const status = /^no run /.test(error.message) ? 404 : 400;
      return c.html(messagePage(status, status === 404 ? 'not found' : 'bad request', error.message), status);
    }
    return c.html(
      messagePage(500, 'internal error', error instanceof Error ? error.message : String(error)),
      500,
    );
  });
  return app;
}
