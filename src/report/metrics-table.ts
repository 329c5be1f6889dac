/**
 * The generic view of any result: its scalar values as a key/value table (nested objects by dotted
 * path) and each array of rows as a table of its own. Every kind renders through this, so a result
 * from an engine the report has never heard of still shows everything it measured.
 */
import { escapeHtml, formatCell } from './html.js';
import { isRecord, type UnknownRecord } from '../result/index.js';

export const MAX_TABLE_ROWS = 200;
const FOLD_ROWS_ABOVE = 12;
const MAX_DEPTH = 6;
const MAX_OPENED_RECORDS = 20;

function hasNestedRows(record: UnknownRecord): boolean {
  return Object.values(record).some(
    (value) => (Array.isArray(value) && value.some(isRecord)) || (isRecord(value) && hasNestedRows(value)),
  );
}

interface Collected {
  scalars: [string, unknown][];
  tables: [string, UnknownRecord[]][];
}

function collect(value: unknown, path: string, out: Collected, depth: number): void {
  if (Array.isArray(value)) {
    const rows = value.filter(isRecord);
    // A few rich records (parse's files, each with tests of rows) read better opened one by one.
    if (
      rows.length > 0 &&
      rows.length <= MAX_OPENED_RECORDS &&
      rows.length === value.length &&
      depth < MAX_DEPTH &&
      rows.some(hasNestedRows)
    ) {
      rows.forEach((row, index) => collect(row, `${path}[${index}]`, out, depth + 1));
      return;
    }
    if (rows.length > 0 && rows.length === value.length && depth < MAX_DEPTH) out.tables.push([path, rows]);
    else out.scalars.push([path, value]);
    return;
  }
  if (isRecord(value) && depth < MAX_DEPTH) {
    for (const [key, child] of Object.entries(value))
      collect(child, path === '' ? key : `${path}.${key}`, out, depth + 1);
    return;
  }
  out.scalars.push([path, value]);
}

function isNumeric(value: unknown): boolean {
  return typeof value === 'number';
}

function keyValueTable(entries: [string, unknown][]): string {
  if (entries.length === 0) return '';
  const rows = entries
    .map(
      ([key, value]) =>
        `<tr><th scope="row">${escapeHtml(key)}</th><td${isNumeric(value) ? ' class="num"' : ''}>${escapeHtml(formatCell(key, value))}</td></tr>`,
    )
    .join('\n');
  return `<div class="scroll"><table class="kv">\n<tbody>\n${rows}\n</tbody>\n</table></div>`;
}

function rowsTable(name: string, rows: UnknownRecord[]): string {
  const columns: string[] = [];
  for (const row of rows.slice(0, MAX_TABLE_ROWS)) {
    for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  }
  const head = columns.map((column) => `<th>${escapeHtml(column)}</th>`).join('');
  const body = rows
    .slice(0, MAX_TABLE_ROWS)
    .map(
      (row) =>
        `<tr>${columns.map((column) => `<td${isNumeric(row[column]) ? ' class="num"' : ''}>${escapeHtml(formatCell(column, row[column]))}</td>`).join('')}</tr>`,
    )
    .join('\n');
  const note =
    rows.length > MAX_TABLE_ROWS
      ? `<p class="muted">Showing ${MAX_TABLE_ROWS} of ${rows.length} rows.</p>`
      : '';
  const table = `<div class="scroll"><table class="rows">\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table></div>${note}`;
  // Long tables fold away (no script needed): the charts above already show their shape.
  if (rows.length > FOLD_ROWS_ABOVE)
    return `<details><summary><strong>${escapeHtml(name)}</strong> (${rows.length} rows)</summary>\n${table}\n</details>`;
  return `<h4>${escapeHtml(name)}</h4>\n${table}`;
}

/** Key/value table of the scalars, then one table per array of rows. */
export function renderValueTables(value: unknown): string {
  const out: Collected = { scalars: [], tables: [] };
  collect(value, '', out, 0);
  return [keyValueTable(out.scalars), ...out.tables.map(([name, rows]) => rowsTable(name, rows))]
    .filter((part) => part !== '')
    .join('\n');
}
