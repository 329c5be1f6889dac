// Shared by the bench scripts: the repository root, the built CLI, and `--name value` flags.
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '..');
export const cli = path.join(root, 'dist/cli/main.js');

/** The value after `--name` on the command line, or `fallback`. */
export function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
