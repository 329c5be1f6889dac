/**
 * The public API, name by name: every export of src/index.ts (values and types, and the members of
 * the bench, testbed and fluid namespaces) as the TypeScript compiler sees it, against the snapshot
 * test/api-surface.txt. A change to the surface fails here until it is accepted: the new list is
 * written to test/api-surface-changed.txt for a diff, and UPDATE_GOLDEN=1 accepts it.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectGolden } from './helpers/golden.js';

const ROOT = join(import.meta.dirname, '..');
const ENTRY = join(ROOT, 'src', 'index.ts');
const SNAPSHOT = join(ROOT, 'test', 'api-surface.txt');

interface Exported {
  name: string;
  kind: 'value' | 'type' | 'value type';
}

function kindOf(symbol: ts.Symbol, typeOnly: boolean): Exported['kind'] {
  const value = !typeOnly && (symbol.flags & ts.SymbolFlags.Value) !== 0;
  const type = (symbol.flags & ts.SymbolFlags.Type) !== 0;
  return value && type ? 'value type' : value ? 'value' : 'type';
}

/** What an export names at the end of its re-export chain, and whether a link of it was `export type` (no value then). */
function resolve(checker: ts.TypeChecker, symbol: ts.Symbol): { target: ts.Symbol; typeOnly: boolean } {
  let target = symbol;
  let typeOnly = false;
  while (target.flags & ts.SymbolFlags.Alias) {
    if (target.declarations?.some((declaration) => ts.isTypeOnlyImportOrExportDeclaration(declaration)))
      typeOnly = true;
    const next = checker.getImmediateAliasedSymbol(target);
    if (!next || next === target) break;
    target = next;
  }
  return { target, typeOnly };
}

/** Every export of src/index.ts; a namespace (`bench`) is followed by its members (`bench.runBenchRank`). */
function publicSurface(): Exported[] {
  const program = ts.createProgram([ENTRY], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(ENTRY);
  const entry = source && checker.getSymbolAtLocation(source);
  if (!entry) throw new Error(`TypeScript found no module in ${ENTRY}`);
  const exported: Exported[] = [];
  for (const symbol of checker.getExportsOfModule(entry)) {
    const { target, typeOnly } = resolve(checker, symbol);
    exported.push({ name: symbol.name, kind: kindOf(target, typeOnly) });
    if (target.flags & ts.SymbolFlags.ValueModule) {
      for (const member of checker.getExportsOfModule(target)) {
        const resolved = resolve(checker, member);
        exported.push({
          name: `${symbol.name}.${member.name}`,
          kind: kindOf(resolved.target, resolved.typeOnly),
        });
      }
    }
  }
  return exported.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

describe('the public API of src/index.ts', () => {
  let surface: Exported[] = [];
  beforeAll(() => {
    surface = publicSurface();
  });

  it('equals the snapshot test/api-surface.txt (UPDATE_GOLDEN=1 accepts a change)', () => {
    expectGolden(SNAPSHOT, surface.map(({ name, kind }) => `${name} ${kind}\n`).join(''));
  });

  it('lists exactly the values the module exports at run time, namespaces included', async () => {
    const api = (await import('../src/index.js')) as Record<string, unknown>;
    const runtime = Object.keys(api).flatMap((name) => {
      const value = api[name];
      const namespace =
        typeof value === 'object' &&
        value !== null &&
        Object.prototype.toString.call(value) === '[object Module]';
      return [name, ...(namespace ? Object.keys(value).map((member) => `${name}.${member}`) : [])];
    });
    const values = surface.filter(({ kind }) => kind !== 'type').map(({ name }) => name);
    expect(runtime.sort()).toEqual(values.sort());
  });
});
