/**
 * The flags that say where a command's result goes, declared once so every command spells them the
 * same way: `--json` and `--out FILE` (addOutputOptions, or addJsonOption for `--json` alone) on the
 * commands that produce a result envelope; `--save` and `--db PATH` on each result-producing
 * command, `--db PATH` alone on the commands that read the store (runs, report, serve). The
 * database path resolves as --db, then AIFABRIC_DB, then ./aifabric.db. emitResult() (emit.ts)
 * reads all four.
 */
import type { Command, OptionValues } from '@commander-js/extra-typings';

export const DB_OPTION_HELP = 'results database (default: $AIFABRIC_DB, else ./aifabric.db)';

export const JSON_OPTION_HELP = 'print the result envelope as JSON';
export const OUT_OPTION_HELP = 'also write the JSON result to FILE';

/** Help wording for a command whose `--json` or `--out` says more than the usual line (bench tcp's "(rank 0)"). */
export interface OutputOptionsHelp {
  json?: string;
  out?: string;
}

/**
 * Adds `--json` (the envelope on stdout instead of the human text) and `--out FILE` (the same JSON
 * also written to FILE, atomically). Not for `demo --out DIR` (a folder of results) nor
 * `report --out FILE` (the HTML report): those name other things and declare their own `--out`.
 */
export function addOutputOptions<
  Args extends unknown[],
  Opts extends OptionValues,
  GlobalOpts extends OptionValues,
>(command: Command<Args, Opts, GlobalOpts>, help: OutputOptionsHelp = {}) {
  return addJsonOption(command, help.json).option('--out <file>', help.out ?? OUT_OPTION_HELP);
}

/** Adds `--json` alone: for commands with no `--out FILE` (runs, testbed, presets, explain, report, demo). */
export function addJsonOption<
  Args extends unknown[],
  Opts extends OptionValues,
  GlobalOpts extends OptionValues,
>(command: Command<Args, Opts, GlobalOpts>, help = JSON_OPTION_HELP) {
  return command.option('--json', help);
}

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
