/**
 * YAML files to typed values, with every problem reported as `file:line:col path: message`.
 * Syntax errors come from the yaml parser; schema problems from zod, located through the YAML node
 * at the issue's path (or its nearest existing parent when the field is missing).
 */
import { readFileSync } from 'node:fs';
import { LineCounter, isCollection, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { InputError } from '../core/errors.js';

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

export function readTextFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new InputError(`${path}: cannot read file (${reason})`);
  }
}

/** Parse YAML text and validate it against a zod schema; throw one InputError listing every problem. */
export function parseYaml<S extends z.ZodType>(text: string, file: string, schema: S): LoadedYaml<z.output<S>> {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const problems: string[] = [];
  for (const error of document.errors) {
    const position = error.linePos?.[0] ?? { line: 1, col: 1 };
    problems.push(`${file}:${position.line}:${position.col} ${error.message.split('\n')[0] ?? error.message}`);
  }
  if (problems.length > 0) throw new InputError(problems.join('\n'));
  const locate = makeLocator(file, document, lines);
  if (document.contents !== null && !isCollection(document.contents)) {
    throw new InputError(`${file}:1:1 (root): expected a mapping of fields, found a plain value`);
  }
  const result = schema.safeParse(document.toJS() ?? {});
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
export function semanticError(where: SourceLocation, path: readonly (string | number)[], message: string): InputError {
  return new InputError(`${where.file}:${where.line}:${where.col} ${formatPath(path)}: ${message}`);
}
