/**
 * Spec objects that refuse keys they do not know, as scenario files do: a misspelt key (`fabrik:`)
 * must fail at its line, never fall back to a default. Each unknown key is its own issue at its own
 * path, so the YAML loader reports `file:line:col cluster.fabrik: unknown key 'fabrik' (did you mean 'fabric'?)`.
 */
import { z } from 'zod';

/** Optimal string alignment distance: Levenshtein plus adjacent transpositions (Damerau 1964). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  const at = (i: number, j: number): number => d[i * cols + j] ?? 0;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * cols + j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The known key a typo most likely meant: same letters ignoring case, or within an edit distance
 * of 1 for short keys and 2 from 6 characters on (near misses, not guesses).
 */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = candidate.toLowerCase() === lower ? 0 : editDistance(lower, candidate.toLowerCase());
    if (!best || distance < best.distance) best = { key: candidate, distance };
  }
  if (!best) return undefined;
  const allowed = Math.min(key.length, best.key.length) >= 6 ? 2 : 1;
  return best.distance <= allowed ? best.key : undefined;
}

export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const near = nearestKey(key, known);
  if (near !== undefined) return `unknown key '${key}' (did you mean '${near}'?)`;
  return `unknown key '${key}' (expected one of ${known.join(', ')})`;
}

/**
 * `z.strictObject` with one issue per unknown key, at that key's path, naming the near miss. The
 * catchall never accepts, so the object parses exactly as a strict one does, and is typed as one.
 */
export function specObject<S extends z.ZodRawShape>(shape: S): z.ZodObject<S, z.core.$strict> {
  const known = Object.keys(shape);
  const unknownKey = z.custom<never>(() => false, {
    error: (issue) => unknownKeyMessage(String(issue.path?.at(-1) ?? ''), known),
  });
  return z.object(shape).catchall(unknownKey);
}

/**
 * A field that names a preset or spells the object out inline. A plain `z.union` reports a partial
 * inline spec as one "Invalid input"; this reports each missing or wrong field of the inline form.
 */
export function presetOrInline<T extends z.ZodType>(
  what: string,
  inline: T,
): z.ZodType<string | z.output<T>, unknown> {
  return z.unknown().transform((value, ctx): string | z.output<T> => {
    if (typeof value === 'string') {
      if (value.trim() !== '') return value;
      ctx.addIssue({ code: 'custom', message: `expected a ${what} preset name, found an empty string` });
      return z.NEVER;
    }
    if (value === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `missing (expected a ${what} preset name or an inline ${what} mapping)`,
      });
      return z.NEVER;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      ctx.addIssue({
        code: 'custom',
        message: `expected a ${what} preset name or an inline ${what} mapping`,
      });
      return z.NEVER;
    }
    const parsed = inline.safeParse(value, { reportInput: true });
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) {
      const path = issue.path.filter((key): key is string | number => typeof key !== 'symbol');
      const missing = issue.code === 'invalid_type' && issue.input === undefined;
      const message = missing
        ? `missing field of the inline ${what} (expected ${issue.expected})`
        : issue.message;
      ctx.addIssue({ code: 'custom', path, message });
    }
    return z.NEVER;
  });
}
