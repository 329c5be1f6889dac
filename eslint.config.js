import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const SRC = path.join(import.meta.dirname, 'src');

/** The room (first folder under src/) a path lies in: src/sim/transport/tcp.ts is in sim; '' for src/index.ts; undefined outside src/. */
function roomOf(file) {
  const relative = path.relative(SRC, file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  const parts = relative.split(path.sep);
  return parts.length > 1 ? parts[0] : '';
}

/**
 * A room is entered only through its index.ts (core excepted): an import, re-export or dynamic
 * import() from one room into another must name `<room>/index.js`. Imports inside a room, its
 * sub-folders included, are free. Paths are resolved, so the depth of `../` does not matter.
 */
const roomBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'enter another room under src/ only through its index.ts (core excepted)' },
    schema: [],
    messages: {
      inside: "'{{source}}' reaches inside the {{room}} room: import {{room}}/index.js and add what is needed to its export list",
    },
  },
  create(context) {
    const from = roomOf(context.filename);
    if (from === undefined) return {};
    const check = (source) => {
      if (source?.type !== 'Literal' || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const target = path.resolve(path.dirname(context.filename), source.value);
      const room = roomOf(target);
      if (!room || room === from || room === 'core' || target === path.join(SRC, room, 'index.js')) return;
      context.report({ node: source, messageId: 'inside', data: { source: source.value, room } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test-output/**', '**/*.mjs', 'eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // One cast style for indexed reads under noUncheckedIndexedAccess: `a[i]!`, never `a[i] as number`.
      '@typescript-eslint/non-nullable-type-assertion-style': 'error',
    },
  },
  {
    // Rooms: a folder under src/ lists its public surface by name in its index.ts (no `export *`),
    // and other rooms import only that index (core excepted).
    files: ['src/**/*.ts'],
    plugins: { aifabric: { rules: { 'room-boundaries': roomBoundaries } } },
    rules: {
      'aifabric/room-boundaries': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ExportAllDeclaration',
          message: 'list the exports by name (export { a, type B } from ...), so that a room shows its surface',
        },
      ],
    },
  },
  {
    // Layers point down: core, the result readers, the store and every engine never reach up into
    // the rooms that render (report), serve (server) or parse argv (cli).
    files: ['src/{core,result,store,spec,model,sim,bench,testbed,parse,check,accept,trace,demo}/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)(report|server|cli)(/|$)',
              message: 'core, result, store and the engines never import report, server or cli: move what both need below them (src/result, src/core).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
