/**
 * The one place a command hands its result to the user: `--json` prints the envelope exactly,
 * otherwise the command's human renderer; `--out FILE` writes the JSON atomically. Storage
 * (`--save`) hooks in here so every result-producing command gets it the same way.
 */
import { writeOutputFile } from '../core/output-path.js';
import type { ResultEnvelope } from '../core/envelope.js';

export interface EmitOptions {
  json?: boolean;
  out?: string;
  save?: boolean;
  db?: string;
}

/** The default `--save`: the store is imported only now, so commands run without it never load SQLite. */
async function saveToStore(result: ResultEnvelope<unknown>, options: EmitOptions): Promise<void> {
  const { resolveDbPath, saveResult } = await import('../store/index.js');
  const path = resolveDbPath(options.db);
  const id = saveResult(path, result);
  process.stderr.write(`saved as run ${id} in ${path}\n`);
}

export function toJson(result: unknown): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

export async function emitResult<M>(
  result: ResultEnvelope<M>,
  options: EmitOptions,
  renderText: (result: ResultEnvelope<M>) => string,
): Promise<void> {
  if (options.out) writeOutputFile(options.out, toJson(result));
  if (options.save) await saveToStore(result, options);
  process.stdout.write(options.json ? toJson(result) : renderText(result));
}
