/**
 * The one table renderer for terminals: fixed-width columns, right-aligned numbers, left-aligned
 * text, no colour codes in pipes. Three layouts:
 * - `rule` (the default): header, a dashed rule, rows; two spaces between columns;
 * - `plain`: header and rows only, every column left-aligned (`runs list`, meant for grep and cut);
 * - `boxed`: box-drawing borders with a line between rows (the simulator's summary tables).
 */

export interface Column {
  header: string;
  align?: 'left' | 'right';
}

export interface TableOptions {
  /** Put before every line. */
  indent?: string;
  layout?: 'rule' | 'plain' | 'boxed';
}

/** Columns a cell takes in a terminal, as UTF-16 units: right for the ASCII and box-drawing text we print (not for wide CJK or emoji). */
function cellWidth(text: string): number {
  return text.length;
}

function padCell(text: string, width: number, align: Column['align']): string {
  const fill = ' '.repeat(Math.max(0, width - cellWidth(text)));
  return align === 'left' ? text + fill : fill + text;
}

function renderBoxed(
  widths: readonly number[],
  lines: readonly (readonly string[])[],
  indent: string,
): string {
  const rule = (left: string, mid: string, right: string): string =>
    `${indent}${left}${widths.map((width) => '─'.repeat(width + 2)).join(mid)}${right}`;
  const row = (cells: readonly string[]): string =>
    `${indent}│${widths.map((width, index) => ` ${padCell(cells[index] ?? '', width, 'left')} `).join('│')}│`;
  const out = [rule('┌', '┬', '┐')];
  lines.forEach((cells, index) => {
    if (index > 0) out.push(rule('├', '┼', '┤'));
    out.push(row(cells));
  });
  out.push(rule('└', '┴', '┘'));
  return out.join('\n');
}

/**
 * `rule` and `plain` tables end with a newline and trim trailing spaces from each line; a `boxed`
 * table has no trailing newline (its callers join it with other lines).
 */
export function renderTable(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  options: TableOptions | string = {},
): string {
  const { indent = '', layout = 'rule' } = typeof options === 'string' ? { indent: options } : options;
  const widths = columns.map((column, index) =>
    Math.max(cellWidth(column.header), ...rows.map((row) => cellWidth(row[index] ?? ''))),
  );
  const headers = columns.map((column) => column.header);
  if (layout === 'boxed') return renderBoxed(widths, [headers, ...rows], indent);
  const align = (index: number): Column['align'] =>
    layout === 'plain' ? 'left' : (columns[index]?.align ?? 'right');
  const line = (cells: readonly string[]): string =>
    `${indent}${cells.map((text, index) => padCell(text, widths[index] ?? 0, align(index))).join('  ')}`.trimEnd();
  const separator =
    layout === 'plain' ? [] : [`${indent}${widths.map((width) => '-'.repeat(width)).join('  ')}`];
  return [line(headers), ...separator, ...rows.map((row) => line(row))].join('\n') + '\n';
}

export function fixed(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : 'n/a';
  return value.toFixed(digits);
}

export function percent(value: number, digits = 1): string {
  return `${fixed(value * 100, digits)}%`;
}

/** Milliseconds as ms below 10 s, seconds above. */
export function milliseconds(ms: number): string {
  return ms >= 10_000 ? `${fixed(ms / 1000, 2)} s` : `${fixed(ms, 1)} ms`;
}
