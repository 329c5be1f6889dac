/**
 * Every command's register function, in the order `aifabric --help` lists them.
 *
 * One file pattern per command (test/cli/cli-shape.test.ts holds it):
 * - `<command>.ts` declares the command, its options and subcommands, and registers the action as
 *   `register<Command>(program)`. It imports nothing heavy: registering must stay cheap for `--help`.
 * - A short action lives in `<command>.ts` itself and imports the engine with `await import()`.
 * - A long action lives in `<command>-action.ts` (`<command>-<subcommand>-action.ts` for one
 *   subcommand's, as testbed-incast-action.ts), loaded by `await import()` when the command runs.
 *   `<command>.ts` then exports `build<Command>(program)`, which returns the command with its options
 *   and no action, and `type <Command>Options = OptionsOf<typeof build<Command>>` (options.ts): the
 *   action file takes that type with `import type`, so the flags' types are commander's inference,
 *   never declared twice.
 * - `--json` and `--out FILE` come from addOutputOptions (or addJsonOption), `--save` and `--db`
 *   from addStoreOptions (store-options.ts); shared flags and helpers live in src/cli/, not here.
 */
import type { Command } from '@commander-js/extra-typings';
import { registerPresets } from './presets.js';
import { registerCollective } from './collective.js';
import { registerPlan } from './plan.js';
import { registerCompare } from './compare.js';
import { registerScale } from './scale.js';
import { registerExplain } from './explain.js';
import { registerDemo } from './demo.js';
import { registerBench } from './bench.js';
import { registerTestbed } from './testbed.js';
import { registerParse } from './parse.js';
import { registerRuns } from './runs.js';
import { registerReport } from './report.js';
import { registerServe } from './serve.js';
import { registerSim } from './sim.js';
import { registerCheck } from './check.js';
import { registerTrace } from './trace.js';
import { registerAccept } from './accept.js';

export type RegisterCommand = (program: Command) => void;

export const commandRegistrations: RegisterCommand[] = [
  registerDemo,
  registerCollective,
  registerPlan,
  registerCompare,
  registerScale,
  registerExplain,
  registerPresets,
  registerParse,
  registerCheck,
  registerTrace,
  registerBench,
  registerTestbed,
  registerAccept,
  registerRuns,
  registerReport,
  registerServe,
  registerSim,
];
