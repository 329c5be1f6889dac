/**
 * The store's flags, declared once so every command spells them the same way: `--save` and
 * `--db PATH` on each result-producing command, `--db PATH` alone on the commands that read the
 * store (runs, report, serve). The database path resolves as --db, then AIFABRIC_DB, then ./aifabric.db.
 */
import type { Command, OptionValues } from '@commander-js/extra-typings';

export const DB_OPTION_HELP = 'results database (default: $AIFABRIC_DB, else ./aifabric.db)';

/** Adds `--save` and `--db PATH`; emitResult() saves the envelope when --save is given. */
export function addStoreOptions<
  Args extends unknown[],
  Opts extends OptionValues,
  GlobalOpts extends OptionValues,
>(command: Command<Args, Opts, GlobalOpts>) {
  return command
    .option('--save', 'record the result in the results database (list with `aifabric runs list`)')
    .option('--db <path>', DB_OPTION_HELP);
}

/** Adds `--db PATH` only: for commands that read the store. */
export function addDbOption<
  Args extends unknown[],
  Opts extends OptionValues,
  GlobalOpts extends OptionValues,
>(command: Command<Args, Opts, GlobalOpts>) {
  return command.option('--db <path>', DB_OPTION_HELP);
}
