import { describe, expect, it } from 'vitest';
import { renderTable } from './table.js';

const columns = [{ header: 'port', align: 'left' as const }, { header: 'drops' }];
const rows = [
  ['h1->s1', '0'],
  ['s1->s2', '475'],
];

describe('renderTable', () => {
  it('rule: header, dashed rule, right-aligned numbers, left-aligned text', () => {
    expect(renderTable(columns, rows, '  ')).toBe(
      '  port    drops\n  ------  -----\n  h1->s1      0\n  s1->s2    475\n',
    );
  });

  it('plain: every column left-aligned, no rule, no trailing spaces', () => {
    expect(renderTable(columns, rows, { layout: 'plain' })).toBe('port    drops\nh1->s1  0\ns1->s2  475\n');
  });

  // What cli-table3 0.6.5 printed for `new Table({ head, style: { head: [], border: [] } })`, which this layout replaced.
  it('boxed: the layout cli-table3 drew, a line between every row', () => {
    expect(renderTable(columns, rows, { layout: 'boxed' })).toBe(
      [
        '┌────────┬───────┐',
        '│ port   │ drops │',
        '├────────┼───────┤',
        '│ h1->s1 │ 0     │',
        '├────────┼───────┤',
        '│ s1->s2 │ 475   │',
        '└────────┴───────┘',
      ].join('\n'),
    );
  });
});
