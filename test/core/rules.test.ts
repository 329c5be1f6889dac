/**
 * The rule table against the docs and the code: every id is documented in the section its anchor
 * names, every rule a doc table lists is in the table, and findings are built only through
 * makeFinding (a `ruleId:` literal anywhere else in src/ would bypass the table).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeFinding, ruleById, RULES } from '../../src/core/rules.js';
import { REPO_ROOT } from '../helpers/run-cli.js';

interface Section {
  slug: string;
  level: number;
  text: string;
}

/** GitHub's heading anchor: lower case, punctuation other than `-` and `_` dropped, each space a `-`. */
function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Each heading of a Markdown file with the text up to the next heading of its level or above; fenced code is not a heading. */
function sections(markdown: string): Section[] {
  const lines = markdown.split('\n');
  const heads: { slug: string; level: number; line: number }[] = [];
  let fenced = false;
  lines.forEach((line, index) => {
    if (line.startsWith('```')) fenced = !fenced;
    const match = fenced ? null : /^(#{1,6}) (.*)$/.exec(line);
    if (match) heads.push({ slug: slugOf(match[2]!), level: match[1]!.length, line: index });
  });
  return heads.map((head, index) => {
    const next = heads.slice(index + 1).find((other) => other.level <= head.level);
    return {
      slug: head.slug,
      level: head.level,
      text: lines.slice(head.line, next?.line ?? lines.length).join('\n'),
    };
  });
}

/** The body rows of every `| rule | severity | what |` table. */
function ruleTables(markdown: string): string[] {
  const rows: string[] = [];
  let inTable = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('| rule | severity | what |')) inTable = true;
    else if (!line.startsWith('|')) inTable = false;
    else if (inTable && !line.startsWith('|---')) rows.push(line);
  }
  return rows;
}

const docText = new Map<string, string>();
function doc(path: string): string {
  if (!docText.has(path)) docText.set(path, readFileSync(join(REPO_ROOT, path), 'utf8'));
  return docText.get(path)!;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('the rule table', () => {
  it('holds each id once, each in its family', () => {
    expect(new Set(RULES.map((rule) => rule.id)).size).toBe(RULES.length);
    for (const rule of RULES) {
      // Dotted ids start with their family; the runs diff's id predates the convention.
      if (rule.id.includes('.')) expect(rule.id.split('.')[0], rule.id).toBe(rule.family);
      expect(rule.title.length, rule.id).toBeGreaterThan(5);
    }
    expect(ruleById('busbw.plateau')?.family).toBe('busbw');
    expect(ruleById('no.such-rule')).toBeUndefined();
  });

  it('documents every id in the section its anchor names (sim.* in docs/simulator.md, the rest in docs/checks.md)', () => {
    for (const rule of RULES) {
      const [path, anchor] = rule.doc.split('#') as [string, string];
      expect(path, rule.id).toBe(rule.family === 'sim' ? 'docs/simulator.md' : 'docs/checks.md');
      const section = sections(doc(path)).find((candidate) => candidate.slug === anchor);
      expect(section, `${rule.id}: no heading #${anchor} in ${path}`).toBeDefined();
      // A row of the section's rule table: | `id` | severity | what |
      expect(section!.text, `${rule.id} is not in a rule table of ${rule.doc}`).toMatch(
        new RegExp(`^\\| \`${rule.id.replace(/[.-]/g, '\\$&')}\` \\|`, 'm'),
      );
    }
  });

  it('lists every rule the docs list', () => {
    for (const path of ['docs/checks.md', 'docs/simulator.md']) {
      const listed = ruleTables(doc(path)).flatMap((row) => [/^\| `([^`]+)` \|/.exec(row)?.[1] ?? row]);
      expect(listed.length, path).toBeGreaterThan(0);
      for (const id of listed) expect(ruleById(id), `${path} lists ${id}`).toBeDefined();
    }
  });

  it('is the only way to a finding: no ruleId literal outside makeFinding in src/', () => {
    const offenders = sourceFiles(join(REPO_ROOT, 'src')).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          /ruleId: ['`]/.test(line) ? [`${file.slice(REPO_ROOT.length)}:${index + 1}`] : [],
        ),
    );
    expect(offenders).toEqual([]);
  });
});

describe('makeFinding', () => {
  it('puts severity and rule id first and keeps the rest in the order given', () => {
    const finding = makeFinding('rdma.mtu', {
      family: 'rdma',
      severity: 'warn',
      host: 'h1',
      message: 'small MTU',
      evidence: 'x:1 active_mtu 1024',
      portCount: 2,
    });
    expect(Object.keys(finding)).toEqual([
      'severity',
      'ruleId',
      'family',
      'host',
      'message',
      'evidence',
      'portCount',
    ]);
    expect(finding).toEqual({
      severity: 'warn',
      ruleId: 'rdma.mtu',
      family: 'rdma',
      host: 'h1',
      message: 'small MTU',
      evidence: 'x:1 active_mtu 1024',
      portCount: 2,
    });
  });
});
