/**
 * The CLI only parses options, calls a library and renders (issue 14): no file under src/cli builds
 * a result envelope (`makeResult(`) or writes a finding literal (`ruleId:` as an object key), and
 * the terminal tables have one renderer (cli/render/table.ts), not it and cli-table3 both. Every
 * command has one shape (src/cli/commands/index.ts): `<command>.ts` registers it, a long action
 * lives in `<command>[-<subcommand>]-action.ts` loaded lazily and typed by the command's inferred
 * options, and `--json` / `--out FILE` come from store-options.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `makeResult(` anywhere, or `ruleId:` as a key (not `finding.ruleId` read back, nor `.ruleId:` inside a message). */
const ENGINE_WORK = [
  { what: 'builds an envelope (makeResult)', pattern: /\bmakeResult\s*\(/ },
  { what: 'writes a finding literal (ruleId:)', pattern: /(^|[^\w$.])['"]?ruleId['"]?\s*:/ },
];

function engineWorkIn(files: readonly { path: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    text.split('\n').forEach((line, index) => {
      for (const { what, pattern } of ENGINE_WORK)
        if (pattern.test(line)) found.push(`${path}:${index + 1}: ${what}: ${line.trim()}`);
    });
  }
  return found;
}

const read = (path: string) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') });

describe('the CLI is a shell over the engines', () => {
  it('no file under src/cli calls makeResult( or writes a finding literal', () => {
    expect(engineWorkIn(sourceFiles(join(ROOT, 'src', 'cli')).map(read))).toEqual([]);
  });

  it('the check can fail: it names a makeResult( call and a ruleId key, and leaves reads of ruleId alone', () => {
    const found = engineWorkIn([
      {
        path: 'src/cli/commands/x.ts',
        text: "const r = makeResult('x', {}, {});\nconst f = { ruleId: 'busbw-regression', severity: 'error' };",
      },
      { path: 'src/cli/commands/y.ts', text: "findings.push({\n  'ruleId': id,\n});" },
      {
        path: 'src/cli/commands/z.ts',
        text: "const id = finding.ruleId;\nreturn `${where}.ruleId: expected a rule id`;\n// makeResult is the engines' job",
      },
    ]);
    expect(found).toEqual([
      "src/cli/commands/x.ts:1: builds an envelope (makeResult): const r = makeResult('x', {}, {});",
      "src/cli/commands/x.ts:2: writes a finding literal (ruleId:): const f = { ruleId: 'busbw-regression', severity: 'error' };",
      "src/cli/commands/y.ts:2: writes a finding literal (ruleId:): 'ruleId': id,",
    ]);
  });

  it('one table renderer: nothing imports cli-table3, and it is no dependency', () => {
    const importers = sourceFiles(join(ROOT, 'src'))
      .map(read)
      .filter(({ text }) => /from ['"]cli-table3['"]|require\(['"]cli-table3['"]\)/.test(text));
    expect(importers.map(({ path }) => path)).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    expect({ ...pkg.dependencies, ...pkg.devDependencies }).not.toHaveProperty('cli-table3');
  });
});

const COMMANDS = join(ROOT, 'src', 'cli', 'commands');
const commandFiles = () =>
  readdirSync(COMMANDS)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => ({ name, text: readFileSync(join(COMMANDS, name), 'utf8') }));

const camel = (base: string) =>
  base.replace(/(^|-)([a-z])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());

describe('one file pattern per command', () => {
  it('each file is index.ts, <command>.ts exporting register<Command>, or an action file of such a command', () => {
    const stray: string[] = [];
    for (const { name, text } of commandFiles()) {
      if (name === 'index.ts') continue;
      const action = /^([a-z]+)(-[a-z]+)*-action\.ts$/.exec(name);
      if (action) {
        if (!existsSync(join(COMMANDS, `${action[1]}.ts`))) stray.push(`${name}: no ${action[1]}.ts`);
        continue;
      }
      const base = name.replace(/\.ts$/, '');
      if (!new RegExp(`export function register${camel(base)}\\(`).test(text))
        stray.push(`${name}: no register${camel(base)}(`);
    }
    expect(stray).toEqual([]);
  });

  it('action files are loaded lazily, and take their options as the command infers them', () => {
    const problems: string[] = [];
    for (const { name, text } of commandFiles()) {
      // `import type` is erased; any other static import of an action file loads it at start-up.
      for (const match of text.matchAll(/^import (?!type )[^;]*from '\.\/([\w-]+-action)\.js'/gm))
        problems.push(`${name}: imports ${match[1]} statically`);
      if (name.endsWith('-action.ts'))
        for (const match of text.matchAll(/\binterface (\w*Options)\b/g))
          problems.push(`${name}: declares ${match[1]} (use the type its command file infers)`);
    }
    expect(problems).toEqual([]);
  });

  it('--json and --out FILE are declared by store-options.ts, except the --out of demo (a folder) and report (the HTML)', () => {
    const byHand: string[] = [];
    for (const { name, text } of commandFiles()) {
      text.split('\n').forEach((line, index) => {
        const json = /['"]--json['"]/.test(line);
        const out = /['"]--out <[a-z]+>['"]/.test(line) && name !== 'demo.ts' && name !== 'report.ts';
        if (json || out) byHand.push(`${name}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(byHand).toEqual([]);
  });
});
