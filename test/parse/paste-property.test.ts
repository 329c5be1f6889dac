/**
 * Parsers read what people paste. Every real output (test/fixtures/<kind>/ and the shared samples),
 * transformed as pastes transform it (prompt and echoed command, sudo prompt, uniform indentation,
 * elision lines, CRLF, ANSI colour, launcher and log-collector prefixes), is detected as its own
 * kind and yields the same facts as the capture itself; a cut or wrapped last line may lose that
 * line's facts, and must then leave a warning naming it. A paste with several host prefixes yields
 * one result per host, named by the prefix, each with the capture's facts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  detectKind,
  parsePasteAs,
  rawParsers,
  type ParserKind,
  type PasteParseResult,
} from '../../src/parse/index.js';
import { realOutputs, type Fixture } from './tool-output-fixtures.js';

interface Sample extends Fixture {
  kind: ParserKind;
}

const samples: Sample[] = rawParsers.flatMap((parser) =>
  realOutputs(parser.kind).map((fixture) => ({ ...fixture, kind: parser.kind })),
);

/** Facts without line numbers: a line added on top shifts them, and that is not a different fact. */
function withoutLineNumbers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutLineNumbers);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([key]) => key !== 'line' && !key.endsWith('Line'))
      .map(([key, item]) => [key, withoutLineNumbers(item)]),
  );
}

function readAs(kind: ParserKind, text: string): PasteParseResult[] {
  return parsePasteAs(kind, text);
}

/** The samples each kind's own parser reads (a few real outputs are refused on purpose: cut before any fact). */
const readable = samples.filter((sample) => {
  try {
    readAs(sample.kind, sample.text);
    return detectKind(sample.text)?.kind === sample.kind;
  } catch {
    return false;
  }
});

type Edit =
  | { op: 'prompt'; style: number }
  | { op: 'trailing-prompt' }
  | { op: 'sudo' }
  | { op: 'indent'; spaces: number }
  | { op: 'elision'; at: number; style: number }
  | { op: 'crlf' }
  | { op: 'ansi'; at: number }
  | { op: 'prefix'; style: number };

const PROMPTS = [
  'user@host:~$ cat capture.txt',
  '$ cat capture.txt',
  '# cat capture.txt',
  '[root@node75 ~]# cat capture.txt',
  '(venv) alice@gpu-01:/data$ cat capture.txt',
];
const ELISIONS = ['...', '.......', '…', '[...]', '<snip>', '... (truncated)'];
const PREFIXES: ((index: number) => string)[] = [
  () => '[1,0]<stdout>:',
  () => '0: ',
  (index) => `2026-12-01T08:00:${String(index % 60).padStart(2, '0')}.123456789Z `,
  (index) => `Dec 01 08:00:${String(index % 60).padStart(2, '0')} node01 bash[4242]: `,
  () => 'node01: ',
];

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant('prompt' as const), style: fc.nat({ max: PROMPTS.length - 1 }) }),
  fc.constant({ op: 'trailing-prompt' as const }),
  fc.constant({ op: 'sudo' as const }),
  fc.record({ op: fc.constant('indent' as const), spaces: fc.integer({ min: 2, max: 24 }) }),
  fc.record({
    op: fc.constant('elision' as const),
    at: fc.nat(),
    style: fc.nat({ max: ELISIONS.length - 1 }),
  }),
  fc.constant({ op: 'crlf' as const }),
  fc.record({ op: fc.constant('ansi' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('prefix' as const), style: fc.nat({ max: PREFIXES.length - 1 }) }),
);

function splitLines(text: string): { lines: string[]; newline: boolean } {
  const newline = text.endsWith('\n');
  const lines = text.split('\n');
  if (newline) lines.pop();
  return { lines, newline };
}

/**
 * Apply the edits in the order a paste gets them: the launcher prefixes lines and colours them,
 * the terminal adds the prompt and sudo lines, the user elides, markdown or mail indents, and
 * the clipboard turns line ends into CRLF.
 */
function applyEdits(text: string, edits: readonly Edit[]): string {
  const { lines: original, newline } = splitLines(text);
  let lines = [...original];
  const has = (op: Edit['op']): Edit | undefined => edits.find((each) => each.op === op);
  const ansi = edits.filter((each): each is Extract<Edit, { op: 'ansi' }> => each.op === 'ansi');
  for (const each of ansi) {
    const i = each.at % Math.max(lines.length, 1);
    if (lines[i] !== undefined && lines[i].trim() !== '') lines[i] = `\u001b[1;32m${lines[i]}\u001b[0m`;
  }
  const prefix = has('prefix') as Extract<Edit, { op: 'prefix' }> | undefined;
  if (prefix) lines = lines.map((line, index) => PREFIXES[prefix.style]!(index) + line);
  for (const each of edits.filter((e): e is Extract<Edit, { op: 'elision' }> => e.op === 'elision')) {
    lines.splice(each.at % (lines.length + 1), 0, ELISIONS[each.style]!);
  }
  const prompt = has('prompt') as Extract<Edit, { op: 'prompt' }> | undefined;
  if (prompt) lines.unshift(PROMPTS[prompt.style]!);
  if (has('sudo')) lines.unshift('[sudo] password for alice: ');
  if (has('trailing-prompt')) lines.push('user@host:~$ ');
  const indent = has('indent') as Extract<Edit, { op: 'indent' }> | undefined;
  if (indent) lines = lines.map((line) => (line === '' ? line : ' '.repeat(indent.spaces) + line));
  const eol = has('crlf') ? '\r\n' : '\n';
  return lines.join(eol) + (newline || has('trailing-prompt') ? eol : '');
}

function factsOf(results: readonly PasteParseResult[]): unknown[] {
  return results.map((result) => withoutLineNumbers(result.facts));
}

describe('pasted real outputs read as the captures themselves', () => {
  it('has real outputs of every kind to paste', () => {
    expect(readable.length).toBeGreaterThanOrEqual(80);
    for (const parser of rawParsers)
      expect(
        readable.some((sample) => sample.kind === parser.kind),
        parser.kind,
      ).toBe(true);
  });

  it('every transformation of every real output: detected as its kind, the same facts', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: readable.length - 1 }),
        fc.array(edit, { minLength: 1, maxLength: 5 }),
        (index, edits) => {
          const sample = readable[index]!;
          const pasted = applyEdits(sample.text, edits);
          expect(detectKind(pasted)?.kind, `${sample.name} detected`).toBe(sample.kind);
          const [expected] = readAs(sample.kind, sample.text);
          const got = readAs(sample.kind, pasted);
          expect(got).toHaveLength(1);
          expect(withoutLineNumbers(got[0]!.facts), sample.name).toEqual(withoutLineNumbers(expected!.facts));
        },
      ),
      { numRuns: 600, seed: 20261201 },
    );
  });

  it('each transformation alone, on every real output', () => {
    const singles: Edit[] = [
      { op: 'prompt', style: 0 },
      { op: 'trailing-prompt' },
      { op: 'sudo' },
      { op: 'indent', spaces: 22 },
      { op: 'elision', at: 3, style: 1 },
      { op: 'crlf' },
      { op: 'ansi', at: 1 },
      ...PREFIXES.map((_, style) => ({ op: 'prefix' as const, style })),
    ];
    for (const sample of readable) {
      const expected = factsOf(readAs(sample.kind, sample.text));
      for (const single of singles) {
        const pasted = applyEdits(sample.text, [single]);
        expect(detectKind(pasted)?.kind, `${sample.name} ${single.op} detected`).toBe(sample.kind);
        expect(factsOf(readAs(sample.kind, pasted)), `${sample.name} ${JSON.stringify(single)}`).toEqual(
          expected,
        );
      }
    }
  });
});

/** Index of the last non-blank line. */
function lastContent(lines: readonly string[]): number {
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i]!.trim() !== '') return i;
  return -1;
}

describe('a cut or wrapped last line: the same facts, or a warning naming it', () => {
  it('cut anywhere in the last line (no line end after it)', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: readable.length - 1 }),
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        (index, at) => {
          const sample = readable[index]!;
          const { lines } = splitLines(sample.text);
          const last = lastContent(lines);
          if (last < 1) return;
          // Keep at least one character that is not indentation or a launcher's prefix (`0: `, `[1,0]<stdout>:`):
          // a cut to blanks leaves the line before last.
          const lead = /^\s*(?:\[\d+,\d+\]<std(?:out|err)>:|\d+: )?\s*/.exec(lines[last]!)![0].length;
          const cutAt = Math.max(lead + 1, Math.floor(lines[last]!.length * at));
          const pasted = [...lines.slice(0, last), lines[last]!.slice(0, cutAt)].join('\n');
          const [expected] = readAs(sample.kind, sample.text);
          let got: PasteParseResult[];
          try {
            got = readAs(sample.kind, pasted);
          } catch {
            return; // cut to nothing this kind recognises: refused, which is a correct answer
          }
          if (
            JSON.stringify(withoutLineNumbers(got[0]!.facts)) ===
            JSON.stringify(withoutLineNumbers(expected!.facts))
          )
            return;
          expect(
            got[0]!.warnings.some((warning) => warning.line === last + 1),
            `${sample.name} cut at ${cutAt}: ${JSON.stringify(got[0]!.warnings)}`,
          ).toBe(true);
        },
      ),
      { numRuns: 400, seed: 20261202 },
    );
  });

  it('wrapped: the last line split in two', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: readable.length - 1 }),
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        (index, at) => {
          const sample = readable[index]!;
          const { lines, newline } = splitLines(sample.text);
          const last = lastContent(lines);
          if (last < 1 || lines[last]!.trim().length < 4) return;
          const lead = /^\s*/.exec(lines[last]!)![0].length;
          const wrapAt = Math.max(lead + 1, Math.floor(lines[last]!.length * at));
          const wrapped = [
            ...lines.slice(0, last),
            lines[last]!.slice(0, wrapAt),
            lines[last]!.slice(wrapAt),
            ...lines.slice(last + 1),
          ];
          const pasted = wrapped.join('\n') + (newline ? '\n' : '');
          const [expected] = readAs(sample.kind, sample.text);
          let got: PasteParseResult | undefined;
          try {
            [got] = readAs(sample.kind, pasted);
          } catch {
            return; // the only line of its kind wrapped: refused, which is a correct answer
          }
          if (
            JSON.stringify(withoutLineNumbers(got!.facts)) ===
            JSON.stringify(withoutLineNumbers(expected!.facts))
          )
            return;
          expect(
            got!.warnings.some((warning) => warning.line === last + 1 || warning.line === last + 2),
            `${sample.name} wrapped at ${wrapAt}: ${JSON.stringify(got!.warnings)}`,
          ).toBe(true);
        },
      ),
      { numRuns: 400, seed: 20261203 },
    );
  });
});

describe('several host prefixes: one result per host', () => {
  it('pdsh-style interleaved lines of two hosts give two results named by the prefix, each with the capture’s facts', () => {
    for (const sample of readable) {
      const { lines, newline } = splitLines(sample.text);
      const pasted =
        lines.flatMap((line) => [`node01: ${line}`, `node02: ${line}`]).join('\n') + (newline ? '\n' : '');
      const expected = withoutLineNumbers(readAs(sample.kind, sample.text)[0]!.facts);
      const got = readAs(sample.kind, pasted);
      expect(
        got.map((result) => result.host),
        sample.name,
      ).toEqual(['node01', 'node02']);
      for (const result of got)
        expect(withoutLineNumbers(result.facts), `${sample.name} ${result.host}`).toEqual(expected);
    }
  });

  it('clush-style blocks (all of one host, then the other) and line numbers of the paste', () => {
    const sample = readable.find((each) => each.kind === 'show-gids')!;
    const { lines } = splitLines(sample.text);
    const pasted = `$ clush -w node0[1-2] show_gids\n${lines.map((line) => `gpu-a1: ${line}`).join('\n')}\n${lines.map((line) => `gpu-b2: ${line}`).join('\n')}\n`;
    const got = readAs('show-gids', pasted);
    expect(got.map((result) => result.host)).toEqual(['gpu-a1', 'gpu-b2']);
    const firstRow = (got[1]!.facts as { entries: { line: number }[] }).entries[0]!;
    // The row's line is the paste's line: the command, the first host's lines, then this host's header lines.
    expect(pasted.split('\n')[firstRow.line - 1]).toMatch(/^gpu-b2: mlx5_0\s+1\s+0\s/);
  });
});
