/**
 * HTML building blocks shared by the report and the dashboard: escaping, number formatting and the
 * page shell. Everything a page needs is inline (one <style>, no scripts, fonts or images), so a
 * report can be mailed, attached to a ticket or opened offline and look the same.
 */
const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
}

/** Human display only (JSON stays unrounded): integers whole, others to 4 significant digits. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return Math.abs(value) >= 1e15 ? value.toExponential(3) : String(value);
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < 1e-3 || abs >= 1e9)) return value.toExponential(3);
  return String(Number(value.toPrecision(4)));
}

/** Byte counts the way nccl-tests and our flags write them: 8, 1K, 64M, 2G (powers of 1024). */
export function formatBytes(value: number): string {
  const units: [string, number][] = [
    ['T', 1024 ** 4],
    ['G', 1024 ** 3],
    ['M', 1024 ** 2],
    ['K', 1024],
  ];
  for (const [suffix, factor] of units) {
    if (Math.abs(value) >= factor) return `${formatNumber(value / factor)}${suffix}`;
  }
  return formatNumber(value);
}

/** A cell for any JSON value: numbers formatted (sizes by their `Bytes` suffix), objects compact. */
export function formatCell(key: string, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return key.endsWith('Bytes') ? formatBytes(value) : formatNumber(value);
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  const json = JSON.stringify(value);
  return json.length > 160 ? `${json.slice(0, 159)}…` : json;
}

const STYLE = `
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --accent: #0969da; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; color: var(--fg); background: #fff; }
header.top { padding: 16px 32px; border-bottom: 1px solid var(--line); background: var(--soft); }
header.top h1 { margin: 0; font-size: 20px; }
header.top p { margin: 4px 0 0; color: var(--muted); }
nav.top a { margin-right: 16px; }
main { padding: 8px 32px 48px; max-width: 1280px; }
h2 { margin-top: 32px; padding-bottom: 4px; border-bottom: 1px solid var(--line); font-size: 18px; }
h3 { margin: 24px 0 8px; font-size: 16px; }
a { color: var(--accent); }
.muted { color: var(--muted); }
.charts { display: flex; flex-wrap: wrap; gap: 24px; }
figure.chart { margin: 0; padding: 12px; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
figure.chart figcaption { max-width: 620px; margin-bottom: 8px; }
figure.chart figcaption strong { display: block; }
figure.chart svg { display: block; max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: 8px 0 16px; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 10px; border: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
td.num { text-align: right; }
.scroll { max-width: 100%; overflow-x: auto; }
section.run { margin-top: 16px; padding-top: 4px; }
.sev { display: inline-block; min-width: 44px; padding: 0 6px; border-radius: 10px; font-size: 12px; font-weight: 600; text-align: center; }
.sev-error { background: #ffebe9; color: #a40e26; }
.sev-warn { background: #fff8c5; color: #7d4e00; }
.sev-info { background: #ddf4ff; color: #0a3069; }
.sev-pass { background: #dafbe1; color: #116329; }
.regression { color: #a40e26; font-weight: 600; }
.improvement { color: #116329; }
ul.warnings li { color: #7d4e00; }
form.inline { display: inline; }
@media print { figure.chart { break-inside: avoid; } }
`;

export interface PageOptions {
  title: string;
  subtitle?: string;
  /** Extra header content (the dashboard's navigation), already HTML. */
  nav?: string;
}

export function page(options: PageOptions, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header class="top">
${options.nav ?? ''}
<h1>${escapeHtml(options.title)}</h1>
${options.subtitle ? `<p>${escapeHtml(options.subtitle)}</p>` : ''}
</header>
<main>
${body}
</main>
</body>
</html>
`;
}
