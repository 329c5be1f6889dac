/**
 * Output paths are checked before a command does any work (a long bench or sim must not lose its
 * result to a bad `--out`, `--junit`, `--drain-list`, `--prometheus` or `--db` found only at the end). main.ts runs this as a
 * preAction hook, so every command that writes gets the same check without repeating it.
 */
import type { Command } from '@commander-js/extra-typings';
import { checkOutputFile, checkOutputFolder } from '../core/output-path.js';

/** Options that name a file this command writes. */
const FILE_OPTIONS = ['out', 'junit', 'drainList', 'prometheus'] as const;

/** Commands whose `--out` is a folder, not a file. */
const FOLDER_OUT_COMMANDS = new Set(['demo']);

/** The database path --save writes to, resolved as the store does (--db, then AIFABRIC_DB, then ./aifabric.db). */
async function savePath(db: unknown): Promise<string> {
  const { resolveDbPath } = await import('../store/index.js');
  return resolveDbPath(typeof db === 'string' ? db : undefined);
}

export async function checkOutputOptions(
  command: Command<unknown[], Record<string, unknown>>,
): Promise<void> {
  const options = command.opts();
  for (const name of FILE_OPTIONS) {
    const value = options[name];
    if (typeof value !== 'string') continue;
    if (name === 'out' && FOLDER_OUT_COMMANDS.has(command.name())) checkOutputFolder(value);
    else checkOutputFile(value);
  }
  // The store creates the file but not its folder: a missing folder is a path wrong as given.
  if (options.save === true) checkOutputFile(await savePath(options.db), { createParents: false });
}
