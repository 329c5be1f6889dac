import { describe, expect, it } from 'vitest';
import { parseHostfile } from '../../src/accept/hostfile.js';
import { InputError } from '../../src/core/errors.js';

const message = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as Error).message;
  }
  throw new Error('expected an InputError');
};

describe('parseHostfile', () => {
  it('reads hosts, slots and max_slots, skipping comments and blank lines', () => {
    const text = [
      '# This is a comment line, and will be ignored',
      'node01 slots=10',
      'node13  slots=5   max_slots=8',
      '',
      'node15',
      '10.0.0.7 slots = 2 # trailing comment',
      'alice@node17 max-slots=3',
    ].join('\n');
    expect(parseHostfile(text, 'hosts')).toEqual([
      { host: 'node01', slots: 10, line: 2 },
      { host: 'node13', slots: 5, maxSlots: 8, line: 3 },
      { host: 'node15', line: 5 },
      { host: '10.0.0.7', slots: 2, line: 6 },
      { host: 'alice@node17', maxSlots: 3, line: 7 },
    ]);
  });

  it('accepts CRLF line ends and the count/cpu spellings of slots', () => {
    expect(parseHostfile('a count=2\r\nb cpu=4\r\n', 'h')).toEqual([
      { host: 'a', slots: 2, line: 1 },
      { host: 'b', slots: 4, line: 2 },
    ]);
  });

  it('names file:line and the field on a bad value', () => {
    expect(message(() => parseHostfile('a slots=4\nb slots=x', 'hosts.txt'))).toBe(
      'hosts.txt:2: slots=x: expected a positive integer',
    );
    expect(message(() => parseHostfile('a slots=0', 'hosts.txt'))).toContain('hosts.txt:1: slots=0');
    expect(message(() => parseHostfile('a slot=4', 'hosts.txt'))).toBe(
      'hosts.txt:1: unknown field "slot": expected slots=N or max_slots=M',
    );
    expect(message(() => parseHostfile('a 4', 'hosts.txt'))).toContain(
      'hosts.txt:1: field "4": expected key=value',
    );
    expect(message(() => parseHostfile('a slots=4 max_slots=2', 'hosts.txt'))).toContain(
      'hosts.txt:1: max_slots=2',
    );
    expect(message(() => parseHostfile('a slots=1 slots=2', 'hosts.txt'))).toContain('slots given twice');
    expect(message(() => parseHostfile('slots=4', 'hosts.txt'))).toContain(
      'hosts.txt:1: "slots=4": expected a host name',
    );
    expect(message(() => parseHostfile('no!de slots=2', 'hosts.txt'))).toContain('hosts.txt:1: host "no!de"');
  });

  it('rejects a duplicated host naming both lines', () => {
    expect(message(() => parseHostfile('a\nb\n# c\na slots=2', 'hosts.txt'))).toBe(
      'hosts.txt:4: host "a" is already listed at hosts.txt:1',
    );
  });

  it('rejects a file with no hosts', () => {
    expect(message(() => parseHostfile('# only a comment\n\n', 'empty.txt'))).toContain(
      'empty.txt: no hosts',
    );
  });
});
