/** Write files atomically: a temporary file beside the target, then rename, so nothing is half-written. */
import { writeOutputFile } from './output-path.js';

/** Kept for existing callers: the checked, atomic writer of output-path.ts (one-line errors, exit 2 or 3). */
export function writeFileAtomic(path: string, contents: string | Uint8Array): void {
  writeOutputFile(path, contents);
}
