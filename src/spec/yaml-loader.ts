/**
 * YAML files to typed values, with every problem reported as `file:line:col path: message`.
 * Syntax errors come from the yaml parser; schema problems from zod, located through the YAML node
 * at the issue's path (or its nearest existing parent when the field is missing).
 */
import {
  LineCounter,
  isAlias,
  isCollection,
  parseDocument,
  visit,
  type Document,
  type YAMLError,
} from 'yaml';
import type { z } from 'zod';
import { InputError } from '../core/errors.js';
import { readInputFile } from '../core/read-input.js';

export interface SourceLocation {
  file: string;
  line: number;
  col: number;
}

export interface LoadedYaml<T> {
  value: T;
  /** Where a path (as dotted or array) sits in the file, for later semantic errors. */
  locate: (path: readonly (string | number)[]) => SourceLocation;
}

function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text === '' ? '(root)' : text;
}

function makeLocator(file: string, document: Document, lines: LineCounter) {
  return (path: readonly (string | number)[]): SourceLocation => {
    // Walk up until a node exists: a missing field is reported at its parent mapping.
    for (let depth = path.length; depth >= 0; depth--) {
      const node: unknown = depth === 0 ? document.contents : document.getIn(path.slice(0, depth), true);
      const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
      if (range) {
        const position = lines.linePos(range[0]);
        return { file, line: position.line, col: position.col };
      }
    }
    return { file, line: 1, col: 1 };
  };
}

/** Spec files are refused above this size: the largest example is a few KiB; 4 MiB leaves room for generated ones. */
const MAX_SPEC_FILE_BYTES = 4 * 1024 * 1024;

/** A spec file's text; FIFOs, devices and oversized files are refused with one line naming the file (exit 2). */
export function readTextFile(path: string): string {
  return readInputFile(path, { maxBytes: MAX_SPEC_FILE_BYTES });
}

/**
 * The innermost `[` or `{` still open at `end`, skipping quoted scalars and comments. The yaml parser
 * reports an unclosed flow collection where it gave up (often the next line's start); users need the
 * bracket they left open.
 */
function unclosedOpener(text: string, end: number, opener: '[' | '{'): number | undefined {
  const open: { char: string; at: number }[] = [];
  let quote: string | undefined;
  for (let i = 0; i < end; i++) {
    const char = text[i]!;
    const previous = i === 0 ? '\n' : text[i - 1]!;
    if (quote !== undefined) {
      if (char === '\\' && quote === '"') i++;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === '#' && /\s/.test(previous)) {
      const newline = text.indexOf('\n', i);
      i = newline === -1 ? end : newline;
    } else if ((char === '"' || char === "'") && /[\s[{,:]/.test(previous)) quote = char;
    else if (char === '[' || char === '{') open.push({ char, at: i });
    else if (char === ']' || char === '}') open.pop();
  }
  for (let index = open.length - 1; index >= 0; index--)
    if (open[index]!.char === opener) return open[index]!.at;
  return undefined;
}

function syntaxProblem(file: string, text: string, error: YAMLError, lines: LineCounter): string {
  const message = error.message.split('\n')[0] ?? error.message;
  // With prettyErrors off the yaml package leaves linePos unset: locate the error's offset ourselves.
  let position = error.linePos?.[0] ?? lines.linePos(error.pos[0]);
  const closing = /end with a ([\]}])/.exec(message)?.[1];
  if (closing !== undefined) {
    const at = unclosedOpener(text, error.pos[0], closing === ']' ? '[' : '{');
    if (at !== undefined) {
      position = lines.linePos(at);
      return `${file}:${position.line}:${position.col} unclosed ${closing === ']' ? '[' : '{'}: ${message}`;
    }
  }
  return `${file}:${position.line}:${position.col} ${message}`;
}

/**
 * Aliases a file may expand. The yaml package's own default (100, its `maxAliasCount`) already stops
 * a "billion laughs" file; we name it so the refusal is ours, located and immediate.
 */
const MAX_ALIAS_COUNT = 100;

function firstAliasLocation(file: string, document: Document, lines: LineCounter): SourceLocation {
  let found: SourceLocation | undefined;
  visit(document, {
    Alias(_key, node) {
      if (!isAlias(node) || !node.range) return undefined;
      const position = lines.linePos(node.range[0]);
      found = { file, line: position.line, col: position.col };
      return visit.BREAK;
    },
  });
  return found ?? { file, line: 1, col: 1 };
}

/** The document's value as plain JS; an alias bomb is refused at its first alias instead of filling memory. */
function toPlainValue(file: string, document: Document, lines: LineCounter): unknown {
  try {
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    if (error instanceof ReferenceError || (error instanceof Error && /alias/i.test(error.message))) {
      const where = firstAliasLocation(file, document, lines);
      throw new InputError(
        `${where.file}:${where.line}:${where.col} too many alias expansions (more than ${MAX_ALIAS_COUNT}; an alias bomb?)`,
      );
    }
    throw error;
  }
}

/** Parse YAML text and validate it against a zod schema; throw one InputError listing every problem. */
export function parseYaml<S extends z.ZodType>(
  text: string,
  file: string,
  schema: S,
): LoadedYaml<z.output<S>> {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const problems: string[] = [];
  for (const error of document.errors) problems.push(syntaxProblem(file, text, error, lines));
  if (problems.length > 0) throw new InputError(problems.join('\n'));
  const locate = makeLocator(file, document, lines);
  if (document.contents !== null && !isCollection(document.contents)) {
    throw new InputError(`${file}:1:1 (root): expected a mapping of fields, found a plain value`);
  }
  const result = schema.safeParse(toPlainValue(file, document, lines) ?? {});
  if (!result.success) {
    for (const issue of result.error.issues) {
      const path = issue.path.filter((key): key is string | number => typeof key !== 'symbol');
      const where = locate(path);
      problems.push(`${where.file}:${where.line}:${where.col} ${formatPath(issue.path)}: ${issue.message}`);
    }
    throw new InputError(problems.join('\n'));
  }
  return { value: result.data, locate };
}

export function loadYamlFile<S extends z.ZodType>(path: string, schema: S): LoadedYaml<z.output<S>> {
  return parseYaml(readTextFile(path), path, schema);
}

/** An error for a value that passed the schema but is inconsistent, located in its file. */
export function semanticError(
  where: SourceLocation,
  path: readonly (string | number)[],
  message: string,
): InputError {
  return new InputError(`${where.file}:${where.line}:${where.col} ${formatPath(path)}: ${message}`);
}
