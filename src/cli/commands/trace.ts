/**
 * `aifabric trace PATH... [--job JOB.yaml | --fabric F [--gpu G]] [--steps A-B]`: per-rank PyTorch
 * profiler (Kineto) traces or NCCL flight-recorder dumps to collectives matched across ranks, skew,
 * waits, stragglers and, with a model, each collective beside its prediction. Exit 0 when analysed,
 * 1 when a finding is an error (a collective far below the model), 2 for unreadable or non-trace input.
 */
import type { Command } from '@commander-js/extra-typings';
import { UsageError } from '../../core/errors.js';
import type { OptionsOf } from '../options.js';
import { addOutputOptions, addStoreOptions } from '../store-options.js';
import { DEFAULT_COLLECTIVE_ROWS } from '../render/trace-text.js';

export interface StepRange {
  from: number;
  to: number;
}

/** `--steps 3-5` (inclusive) or `--steps 4`: ProfilerStep numbers, whole and not negative. */
export function parseSteps(value: string): StepRange {
  const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(value);
  const from = match ? Number(match[1]) : Number.NaN;
  const to = match ? Number(match[2] ?? match[1]) : Number.NaN;
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from > to) {
    throw new UsageError(
      `invalid value for --steps: "${value}" (expected a ProfilerStep number or an inclusive range A-B with A <= B, e.g. 3-5)`,
    );
  }
  return { from, to };
}

/** `trace` and its options; registerTrace adds the action. */
export function buildTrace(program: Command) {
  const command = program
    .command('trace')
    .description(
      'match collectives across per-rank PyTorch profiler traces or NCCL flight-recorder dumps: skew, true time, waits, stragglers, and the model beside them',
    )
    .argument(
      '<paths...>',
      'trace files (.json, .json.gz, flight-recorder dumps), folders of them, or a .tar.gz of ranks',
    )
    .option(
      '--job <file>',
      "job YAML (as `plan` takes): predicted collective times and `plan`'s step time, on its fabric and GPU",
    )
    .option(
      '--fabric <preset>',
      'fabric preset for predicted collective times (see `aifabric presets fabrics`); with --job, replaces its fabric',
    )
    .option(
      '--gpu <preset>',
      "GPU preset for the model (see `aifabric presets gpus`; default: the one the trace's device names, else h100-sxm)",
    )
    .option('--steps <range>', 'keep ProfilerStep A to B inclusive (3-5), or one step (4)', parseSteps);
  return addStoreOptions(
    addOutputOptions(command, {
      json: `print the result envelope as JSON (every collective; the text table shows the first ${DEFAULT_COLLECTIVE_ROWS})`,
    }),
  );
}

export type TraceOptions = OptionsOf<typeof buildTrace>;

export function registerTrace(program: Command): void {
  buildTrace(program).action(async (paths, options) => {
    if (options.gpu !== undefined && options.fabric === undefined && options.job === undefined) {
      throw new UsageError('--gpu needs --fabric or --job (it chooses the GPU the model predicts for)');
    }
    const { runTrace } = await import('./trace-action.js');
    const result = await runTrace(paths, options);
    const { renderTraceText } = await import('../render/trace-text.js');
    const { emitResult } = await import('../emit.js');
    await emitResult(result, options, renderTraceText);
    if (result.findings?.some((finding) => finding.severity === 'error')) process.exitCode = 1;
  });
}
