/** Every command's register function, in the order `aifabric --help` lists them. */
import type { Command } from '@commander-js/extra-typings';
import { registerPresets } from './presets.js';
import { registerCollective } from './collective.js';
import { registerPlan, registerCompare, registerScale, registerExplain } from './job-commands.js';
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
