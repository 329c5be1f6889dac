/**
 * The command tree. Each command lives in its own file under commands/ and exports a register
 * function; registering must stay cheap (no engines, no heavy dependencies) so `--help` is fast:
 * actions import what they need when they run.
 */
import { Command } from '@commander-js/extra-typings';
import { VERSION } from '../core/version.js';
import { commandRegistrations } from './commands/index.js';

export function buildProgram(): Command {
  const program = new Command('aifabric')
    .description(
      'What your GPU cluster network costs you: model, simulate, benchmark and validate TCP, RoCE v2 and InfiniBand fabrics.',
    )
    .version(VERSION)
    .exitOverride();
  program.configureHelp({ sortSubcommands: false });
  for (const register of commandRegistrations) register(program);
  // Every subcommand, nested ones too, reports usage errors the same way (exit 2, via main.ts).
  const overrideAll = (command: Command): void => {
    for (const child of command.commands as Command[]) {
      child.exitOverride();
      overrideAll(child);
    }
  };
  overrideAll(program);
  return program;
}
