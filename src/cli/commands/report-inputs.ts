/** Reading result JSON files given on the command line (`report --input`, `runs import`). */
import { readFileSync } from 'node:fs';
import type { ResultEnvelope } from '../../core/envelope.js';
import { InputError } from '../../core/errors.js';

/** A result JSON file: one envelope or an array of them (what `--json` and `--out` write). */
export function readEnvelopes(file: string): ResultEnvelope[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason = (error as { code?: string }).code === 'ENOENT' ? 'no such file' : error instanceof Error ? error.message : String(error);
    throw new InputError(`${file}: cannot read result JSON (${reason})`);
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  list.forEach((entry, index) => {
    const record = entry as Partial<ResultEnvelope> | null;
    if (typeof record !== 'object' || record === null || typeof record.kind !== 'string' || typeof record.metrics !== 'object') {
      throw new InputError(`${file}${Array.isArray(parsed) ? ` [${index}]` : ''}: not an aifabric result envelope (expected kind and metrics)`);
    }
  });
  return list as ResultEnvelope[];
}
