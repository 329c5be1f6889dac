/**
 * The dashboard's own pages: the runs list (with a kind filter and a form to pick two runs to
 * diff), the diff of two runs, and not-found. A single run is the report itself, embedded under
 * the dashboard's navigation. Plain HTML forms, no scripts: it works with JavaScript off.
 */
import { escapeHtml, formatBytes, formatNumber, page } from '../report/index.js';
import type { ResultDiff, RunSummary } from '../store/index.js';

export const NAV = '<nav class="top"><a href="/">Runs</a><a href="/api/runs">JSON</a></nav>';

export function runsListPage(
  runs: readonly RunSummary[],
  kinds: readonly string[],
  kind: string | undefined,
  dbPath: string,
  total: number,
): string {
  const filters = [
    '<a href="/">all</a>',
    ...kinds.map((name) => `<a href="/?kind=${encodeURIComponent(name)}">${escapeHtml(name)}</a>`),
  ].join(' · ');
  const rows = runs
    .map(
      (run) =>
        `<tr><td><a href="/runs/${run.id}">#${run.id}</a></td><td>${escapeHtml(run.kind)}</td><td>${escapeHtml(run.createdAt)}</td><td>${escapeHtml(run.label)}</td><td>${escapeHtml(run.toolVersion ?? '')}</td><td><input type="radio" name="a" value="${run.id}" aria-label="diff from #${run.id}"></td><td><input type="radio" name="b" value="${run.id}" aria-label="diff to #${run.id}"></td></tr>`,
    )
    .join('\n');
  const table =
    runs.length === 0
      ? '<p class="muted">No runs yet: add --save to a command (aifabric collective ... --save).</p>'
      : `<form method="get" action="/diff">
<div class="scroll"><table class="runs">
<thead><tr><th>run</th><th>kind</th><th>created</th><th>inputs</th><th>aifabric</th><th>A</th><th>B</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>
<button type="submit">Diff A → B</button> <span class="muted">(two runs of the same kind)</span>
</form>`;
  const body = `<p>Kinds: ${filters}</p>\n${table}`;
  return page(
    {
      title: kind ? `aifabric runs: ${kind}` : 'aifabric runs',
      subtitle: `${total} run${total === 1 ? '' : 's'} in ${dbPath}${total > runs.length ? ` (newest ${runs.length} shown)` : ''} · read-only`,
      nav: NAV,
    },
    body,
  );
}

function signedPercent(value: number | null): string {
  if (value === null) return 'n/a';
  return `${value > 0 ? '+' : ''}${formatNumber(value)}%`;
}

export function diffSection(diff: ResultDiff, a: RunSummary, b: RunSummary): string {
  const parts: string[] = [];
  const direction = `#${a.id} → #${b.id}`;
  if (diff.busbw.length > 0) {
    parts.push(
      diff.regressions.length === 0
        ? `<p class="improvement">No busbw regression beyond ${diff.thresholdPercent}% (${direction}, ${diff.busbw.length} sizes compared).</p>`
        : `<p class="regression">busbw fell by more than ${diff.thresholdPercent}% at ${diff.regressions.length} message size${diff.regressions.length === 1 ? '' : 's'}: ${diff.regressions.map((entry) => escapeHtml(formatBytes(entry.sizeBytes))).join(', ')}.</p>`,
    );
    const rows = diff.busbw
      .map(
        (entry) =>
          `<tr${entry.regression ? ' class="regression"' : ''}><td>${escapeHtml(entry.op)}</td><td class="num">${escapeHtml(formatBytes(entry.sizeBytes))}</td><td class="num">${formatNumber(entry.aBusbwGBps)}</td><td class="num">${formatNumber(entry.bBusbwGBps)}</td><td class="num">${signedPercent(entry.changePercent)}</td></tr>`,
      )
      .join('\n');
    parts.push(
      `<div class="scroll"><table class="busbw-diff"><thead><tr><th>op</th><th>size</th><th>busbw A (GB/s)</th><th>busbw B (GB/s)</th><th>change</th></tr></thead><tbody>\n${rows}\n</tbody></table></div>`,
    );
  }
  if (diff.changes.length > 0) {
    const rows = diff.changes
      .slice(0, 300)
      .map(
        (change) =>
          `<tr><td><code>${escapeHtml(change.path)}</code></td><td class="num">${formatNumber(change.a)}</td><td class="num">${formatNumber(change.b)}</td><td class="num">${signedPercent(change.changePercent)}</td></tr>`,
      )
      .join('\n');
    parts.push(
      `<h3>Changed metrics</h3><p class="muted">${diff.changes.length} changed, ${diff.unchangedMetrics} unchanged.</p><div class="scroll"><table class="changes"><thead><tr><th>metric</th><th>A</th><th>B</th><th>change</th></tr></thead><tbody>\n${rows}\n</tbody></table></div>`,
    );
  } else {
    parts.push(`<p class="muted">No numeric metric changed (${diff.unchangedMetrics} compared).</p>`);
  }
  return parts.join('\n');
}

export function messagePage(status: number, title: string, message: string): string {
  return page(
    { title: `${status}: ${title}`, nav: NAV },
    `<p>${escapeHtml(message)}</p><p><a href="/">Back to the runs</a></p>`,
  );
}
