/** Plain fixed-width tables for terminals: right-aligned numbers, left-aligned text, no colour codes in pipes. */

export interface Column {
  header: string;
  align?: 'left' | 'right';
}

export function renderTable(columns: readonly Column[], rows: readonly (readonly string[])[], indent = ''): string {
  const widths = columns.map((column, index) => Math.max(column.header.length, ...rows.map((row) => (row[index] ?? '').length)));
  const cell = (text: string, index: number): string => {
    const width = widths[index] ?? 0;
    return columns[index]?.align === 'left' ? text.padEnd(width) : text.padStart(width);
  };
  const line = (cells: readonly string[]): string => `${indent}${cells.map((text, index) => cell(text, index)).join('  ')}`.trimEnd();
  const separator = `${indent}${widths.map((width) => '-'.repeat(width)).join('  ')}`;
  return [line(columns.map((column) => column.header)), separator, ...rows.map((row) => line(row))].join('\n') + '\n';
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
