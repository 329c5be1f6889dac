/** `aifabric sim`: run a scenario through the packet-level (or fluid) simulator. */
import { getHeapStatistics } from 'node:v8';
import { Command, Option } from '@commander-js/extra-typings';
import { UsageError } from '../../core/errors.js';
import { choiceArg, durationArg, nonNegativeIntArg } from '../options.js';
import { addOutputOptions, addStoreOptions } from '../store-options.js';

const MODES = ['packet', 'fluid'] as const;

export function registerSim(program: Command): void {
  const command = program
    .command('sim')
    .description(
      'simulate a scenario (TCP, RoCE v2 with PFC/ECN/DCQCN; incast, collectives) packet by packet, or flow-level with --mode fluid',
    )
    .argument('<scenario>', 'scenario YAML file (see examples/scenarios/)')
    .addOption(
      new Option('--mode <mode>', 'packet (discrete-event) or fluid (max-min fair flows)')
        .argParser(choiceArg('--mode', MODES))
        .default('packet' as const),
    )
    .option('--seed <n>', 'random seed (default: the scenario seed, else 1)', nonNegativeIntArg('--seed'))
    .option(
      '--time-quantum <duration>',
      'fluid mode: postpone every event to the next multiple of this (e.g. 1us), trading up to two quanta per dependent step, added up along a chain, for speed when flows end at scattered times (default: exact)',
      durationArg('--time-quantum'),
    )
    .addHelpText('after', limitsHelp);
  addStoreOptions(addOutputOptions(command)).action(async (file, options) => {
    const { loadScenario, runScenario } = await import('../../sim/index.js');
    const { renderSimText } = await import('../render/sim-text.js');
    const { emitResult } = await import('../emit.js');
    if (options.timeQuantum !== undefined && options.mode !== 'fluid')
      throw new UsageError(
        '--time-quantum applies to --mode fluid only (packet mode keeps every event at its time)',
      );
    if (options.timeQuantum !== undefined && !(options.timeQuantum > 0))
      throw new UsageError(
        `invalid duration for --time-quantum: ${options.timeQuantum}s (expected more than 0)`,
      );
    const scenario = loadScenario(file, { mode: options.mode });
    const progress = await startProgress();
    try {
      const result = runScenario(scenario, {
        mode: options.mode,
        ...(options.seed !== undefined ? { seed: options.seed } : {}),
        ...(options.timeQuantum !== undefined ? { timeQuantumNs: options.timeQuantum * 1e9 } : {}),
        ...(progress ? { onProgress: progress.update } : {}),
      });
      progress?.stop();
      await emitResult(result, options, renderSimText);
    } finally {
      progress?.stop();
    }
  });
}

/**
 * The work limits of src/sim/work-estimate.ts (WORK_LIMITS; a test holds the two equal), written out
 * here so that `--help` does not load the simulator.
 */
function limitsHelp(): string {
  const heapGiB = Number((getHeapStatistics().heap_size_limit / 2 ** 30).toPrecision(2));
  return [
    '',
    'Limits, checked from the scenario before anything runs (exit 2 naming the field that asks for more):',
    '  packet mode   about 1e9 events (several minutes of simulation)',
    '  fluid mode    about 1e9 chunk transfers',
    `  memory        16 GiB in all, and the JavaScript heap limit (${heapGiB} GiB in this process; NODE_OPTIONS=--max-old-space-size=MiB raises it)`,
  ].join('\n');
}

/** A progress line on stderr, only on a terminal and only once a run has lasted a second. */
async function startProgress(): Promise<{ update: (simUs: number) => void; stop: () => void } | undefined> {
  if (!process.stderr.isTTY) return undefined;
  const { default: cliProgress } = await import('cli-progress');
  const started = Date.now();
  let bar: InstanceType<typeof cliProgress.SingleBar> | undefined;
  let stopped = false;
  return {
    update(simUs: number) {
      if (stopped || Date.now() - started < 1000) return;
      if (!bar) {
        bar = new cliProgress.SingleBar(
          {
            stream: process.stderr,
            format: 'simulating {value} us of simulated time',
            clearOnComplete: true,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(0, 0);
      }
      bar.update(Math.round(simUs));
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bar?.stop();
    },
  };
}
