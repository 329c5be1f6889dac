/**
 * Issue 14 part 2, one collective vocabulary: the op list and the busbw factor are written only in
 * src/core/collectives.ts (a scan of src/ finds no other copy), the vocabulary agrees with
 * nccl-tests, and a scenario may spell a collective as nccl-tests does (`all_reduce`) or compactly
 * (`allreduce`) with the same result.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BENCH_OP_ORDER,
  COLLECTIVE_OPS,
  COMPACT_OP_NAMES,
  TRACE_OPS,
  algBytes,
  busbwFactor,
  collCounts,
  collectiveOpOf,
  dataTypeBytes,
  elementCount,
  opOfCompactName,
  type CollectiveOp,
} from '../../src/core/index.js';
import { normaliseKind, sameKind } from '../../src/core/envelope.js';
import { bandwidthCurves } from '../../src/result/index.js';
import { KNOWN_RESULT_KINDS } from '../../src/store/index.js';
import { parseScenario } from '../../src/sim/scenario.js';
import { runScenario } from '../../src/sim/run.js';

const SRC = join(import.meta.dirname, '..', '..', 'src');
const VOCABULARY = join('core', 'collectives.ts');

/** Every op name in either spelling, as a string literal would hold it. */
const OP_NAMES = new Set<string>([...COLLECTIVE_OPS, ...Object.values(COMPACT_OP_NAMES)]);
const QUOTED = /(['"`])([a-z_]+)\1/g;
/** An op list: three or more distinct op names in one array literal, or in one union of string literal types. */
const MIN_LIST = 3;
const ARRAY_LITERAL = /\[([^[\]]*)\]/g;
const UNION_OF_LITERALS = /(?:(['"])[a-z_]+\1\s*\|\s*){2,}(['"])[a-z_]+\2/g;
/** The all_reduce factor 2(n-1)/n in any bracketing, and (n-1)/n where the line speaks of bus bandwidth. */
const ALL_REDUCE_FACTOR = [
  /\(\s*2\s*\*\s*\(\s*([\w.]+)\s*-\s*1\s*\)\s*\)\s*\/\s*\1\b/,
  /\b2\s*\*\s*\(\s*([\w.]+)\s*-\s*1\s*\)\s*\/\s*\1\b/,
  /\b2\s*\*\s*\(\s*\(\s*([\w.]+)\s*-\s*1\s*\)\s*\/\s*\1\s*\)/,
];
const GATHER_FACTOR = /\(\s*([\w.]+)\s*-\s*1\s*\)\s*\/\s*\1\b/;

function opNamesIn(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(QUOTED)) if (OP_NAMES.has(match[2]!)) names.add(match[2]!);
  return names;
}

/** What in one file's text duplicates the vocabulary: `line: reason` for each find. */
function vocabularyDuplicates(text: string): string[] {
  const found: string[] = [];
  const lineOf = (index: number): number => text.slice(0, index).split('\n').length;
  for (const pattern of [ARRAY_LITERAL, UNION_OF_LITERALS]) {
    for (const match of text.matchAll(pattern)) {
      const names = opNamesIn(match[0]);
      if (names.size >= MIN_LIST) found.push(`${lineOf(match.index)}: op list ${[...names].join(', ')}`);
    }
  }
  text.split('\n').forEach((line, index) => {
    // Comments may state the factor (`2(n-1)/n`); code must take it from the vocabulary.
    if (/^\s*(\*|\/\/|\/\*)/.test(line)) return;
    if (ALL_REDUCE_FACTOR.some((pattern) => pattern.test(line)))
      found.push(`${index + 1}: busbw factor 2(n-1)/n`);
    else if (GATHER_FACTOR.test(line) && /bus/i.test(line)) found.push(`${index + 1}: busbw factor (n-1)/n`);
  });
  return found;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('the vocabulary is written once', () => {
  it('no file under src/ but core/collectives.ts holds an op list or a busbw factor', () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(100);
    const duplicates = files
      .filter((path) => relative(SRC, path) !== VOCABULARY)
      .flatMap((path) =>
        vocabularyDuplicates(readFileSync(path, 'utf8')).map((find) => `src/${relative(SRC, path)}:${find}`),
      );
    expect(duplicates).toEqual([]);
  });

  it('the scan sees the vocabulary module itself (it would see a copy of it)', () => {
    const finds = vocabularyDuplicates(readFileSync(join(SRC, VOCABULARY), 'utf8'));
    expect(finds.some((find) => find.includes('op list all_reduce, all_gather, reduce_scatter'))).toBe(true);
    expect(finds.some((find) => find.includes('busbw factor 2(n-1)/n'))).toBe(true);
  });

  it('flags copies in every form they have had, and nothing else', () => {
    const flagged = (text: string) => vocabularyDuplicates(text).length > 0;
    expect(flagged("const OPS = ['all_reduce', 'all_gather', 'reduce_scatter', 'broadcast'] as const;")).toBe(
      true,
    );
    expect(flagged("const OPS = [\n  'all_reduce',\n  'alltoall',\n  'sendrecv',\n];")).toBe(true);
    expect(flagged("kind: z.enum(['allreduce', 'allgather', 'alltoall']),")).toBe(true);
    expect(flagged("  kind: 'allreduce' | 'allgather' | 'alltoall';")).toBe(true);
    expect(flagged('const busFactor = kind === x ? (2 * (n - 1)) / n : (n - 1) / n;')).toBe(true);
    expect(flagged('if (near((2 * (ranks - 1)) / ranks)) return;')).toBe(true);
    expect(flagged('const t = (2 * ((n - 1) / n) * BYTES) / rate;')).toBe(true);
    expect(flagged('const busbw = algbw * (ranks - 1) / ranks;')).toBe(true);
    expect(flagged('  return { volumeFactor: (2 * (ranks - 1)) / ranks }; // ring')).toBe(true);
    // Not copies: one op compared, a two-op test, ring volume without busbw, comments stating the factor.
    expect(flagged("if (op === 'all_reduce' || op === 'reduce') return 1;")).toBe(false);
    expect(flagged("const pair = ['send', 'recv'];")).toBe(false);
    expect(flagged('const time = passes * ((g - 1) / g) * sizeBytes;')).toBe(false);
    expect(flagged(' * all_reduce 2(n-1)/n; all_gather (n-1)/n')).toBe(false);
    expect(flagged(' * busbw = algbw x (2 * (n - 1)) / n')).toBe(false);
    expect(flagged('  // busbw: (n - 1) / n of the buffer')).toBe(false);
  });
});

describe('the vocabulary agrees with nccl-tests', () => {
  it('busbw factors (doc/PERFORMANCE.md)', () => {
    const factors = Object.fromEntries(COLLECTIVE_OPS.map((op) => [op, busbwFactor(op, 8)]));
    expect(factors).toEqual({
      all_reduce: 1.75,
      all_gather: 0.875,
      reduce_scatter: 0.875,
      alltoall: 0.875,
      broadcast: 1,
      reduce: 1,
      sendrecv: 1,
    });
    expect(busbwFactor('all_reduce', 1)).toBe(0);
    expect(busbwFactor('broadcast', 1)).toBe(1);
  });

  it('counts and algbw bytes per op (GetCollByteCount): the per-rank family counts per rank', () => {
    const perRank: CollectiveOp[] = COLLECTIVE_OPS.filter((op) => collCounts(op, 1024, 4).paramCount === 256);
    expect(perRank.sort()).toEqual(['all_gather', 'alltoall', 'reduce_scatter']);
    for (const op of COLLECTIVE_OPS) {
      const { paramCount } = collCounts(op, 1024, 4);
      expect(algBytes(op, paramCount, 4, 4)).toBe(4096);
      expect(elementCount(op, 4096, 4, 4)).toBe(paramCount);
    }
  });

  it('bench order and trace ops are the same ops', () => {
    expect([...BENCH_OP_ORDER].sort()).toEqual([...COLLECTIVE_OPS].sort());
    expect(TRACE_OPS.filter((op) => !(COLLECTIVE_OPS as readonly string[]).includes(op))).toEqual([
      'send',
      'recv',
    ]);
  });

  it('aliases: the compact spelling and all_to_all name the op; anything else is not one', () => {
    for (const op of COLLECTIVE_OPS) {
      expect(collectiveOpOf(op)).toBe(op);
      expect(collectiveOpOf(COMPACT_OP_NAMES[op])).toBe(op);
      expect(opOfCompactName(COMPACT_OP_NAMES[op])).toBe(op);
    }
    expect(collectiveOpOf('all_to_all')).toBe('alltoall');
    expect(collectiveOpOf('gather')).toBeUndefined();
    expect(collectiveOpOf('constructor')).toBeUndefined();
  });

  it('type sizes by nccl-tests name, in any case; unknown names have none', () => {
    expect([
      dataTypeBytes('float'),
      dataTypeBytes('bfloat16'),
      dataTypeBytes('Half'),
      dataTypeBytes('f8e5m2'),
      dataTypeBytes('double'),
    ]).toEqual([4, 2, 2, 1, 8]);
    expect(dataTypeBytes('constructor')).toBeUndefined();
    expect(dataTypeBytes('complex')).toBeUndefined();
  });
});

describe('result kinds: lookups take either separator', () => {
  it('bench-tcp and bench.tcp are one kind; stored names are not rewritten', () => {
    expect(normaliseKind('bench-tcp')).toBe('bench.tcp');
    expect(sameKind('runs-diff', 'runs.diff')).toBe(true);
    expect(sameKind('testbed.up', 'testbed.down')).toBe(false);
  });

  it('kinds with a dash are only the stored ones that had it; new kinds use the dot form', () => {
    expect(KNOWN_RESULT_KINDS.filter((kind) => kind.includes('-'))).toEqual([
      'runs-diff',
      'runs-import',
      'runs-list',
    ]);
  });

  it('a bench result saved as bench-tcp or bench.tcp gives the same curves', () => {
    const envelope = (kind: string) => ({
      kind,
      schemaVersion: 1,
      tool: { name: 'aifabric', version: '0' },
      createdAt: '2026-01-01T00:00:00.000Z',
      inputs: { op: 'all_reduce', nranks: 4 },
      metrics: { rows: [{ sizeBytes: 1024, outOfPlace: { busbwGBps: 2 } }] },
    });
    const dotted = bandwidthCurves(envelope('bench.tcp'));
    expect(dotted).toHaveLength(1);
    expect(bandwidthCurves(envelope('bench-tcp'))).toEqual(dotted);
  });
});

describe('scenarios: all_reduce and allreduce are one workload', () => {
  const scenario = (kind: string) =>
    `name: spelling\nseed: 3\ntopology:\n  kind: star\n  hosts: 4\n  linkRate: 100Gbps\n  linkDelay: 1us\nswitch:\n  buffer: 256KiB\ntransport:\n  kind: roce\nworkloads:\n  - kind: ${kind}\n    size: 256KiB\n    iterations: 2\n`;
  const result = (kind: string, mode: 'packet' | 'fluid') => {
    const {
      createdAt: _createdAt,
      timing: _timing,
      ...rest
    } = runScenario(parseScenario(scenario(kind), 's.yaml'), { mode });
    return rest;
  };

  it('packet mode reports the busbw of the ring all_reduce with the vocabulary factor', () => {
    const workload = result('all_reduce', 'packet').metrics.workloads[0] as Record<string, number>;
    expect(workload.busbwGBps).toBe(workload.algbwGBps! * busbwFactor('all_reduce', 4));
  });

  for (const [nccl, compact] of [
    ['all_reduce', 'allreduce'],
    ['all_gather', 'allgather'],
  ] as const) {
    it(`${nccl} gives the result ${compact} gives, in packet and fluid mode`, () => {
      for (const mode of ['packet', 'fluid'] as const) {
        const spelled = result(nccl, mode);
        expect(spelled.metrics.workloads[0]).toMatchObject({
          kind: compact,
          goodputGbps: expect.any(Number),
        });
        expect(spelled).toEqual(result(compact, mode));
      }
    });
  }

  it('an unknown collective lists both spellings', () => {
    expect(() => parseScenario(scenario('reduce_scatter'), 's.yaml')).toThrow(
      /workloads\[0\]\.kind: .*'all_reduce' \| 'allreduce' \| 'all_gather' \| 'allgather' \| 'alltoall'/,
    );
  });
});
