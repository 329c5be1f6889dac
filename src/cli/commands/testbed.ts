/**
 * `aifabric testbed up|run|mpirun|fault|status|incast|down`: an emulated multi-host fabric in network namespaces on this
 * machine (root and iproute2 needed; exit 3 without them). Registering stays cheap; the work is
 * imported when a subcommand runs.
 */
import type { Command } from '@commander-js/extra-typings';
import {
  choiceArg,
  durationArg,
  intListArg,
  positiveIntArg,
  rateArg,
  sizeArg,
  type OptionsOf,
} from '../options.js';
import { addJsonOption, addStoreOptions } from '../store-options.js';

const DEFAULT_NAME = 'aifab';

const FAULT_HELP =
  "a fault (repeatable): hK:loss=0.01 drops that fraction of hK's packets, hK:rate=250Mbps slows its port (both directions), hK:mtu=1400 sets its MTU (576 to 9000), hK:cpu=0.25 caps its processes at that many cores, leafK:uplink-rate=50Mbps slows leaf K's uplink (at most --uplink-rate)";

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** `testbed up` and its options; registerTestbed adds the action. */
export function buildTestbedUp(testbed: Command) {
  const up = testbed
    .command('up')
    .description(
      'Create NAME-h0..NAME-h{N-1} and NAME-sw; shape each switch port to RATE with BYTES of buffer.',
    )
    .requiredOption('--hosts <n>', 'number of hosts', positiveIntArg('--hosts'))
    .requiredOption(
      '--rate <rate>',
      'port rate: 1Gbps, 10G, or tc form 1gbit (at most 800Gbps)',
      rateArg('--rate'),
    )
    .requiredOption(
      '--buffer <bytes>',
      'egress buffer per switch port (bfifo limit), e.g. 64K (at most 4G - 1)',
      sizeArg('--buffer'),
    )
    .option('--name <name>', 'testbed name (namespace prefix)', DEFAULT_NAME)
    .option(
      '--leaves <n>',
      'two-tier: hosts under N leaf bridges joined by a spine (contiguous: 12 hosts, 3 leaves puts h0-h3 under leaf0); default 1, one switch',
      positiveIntArg('--leaves'),
    )
    .option(
      '--uplink-rate <rate>',
      "rate of each leaf's uplink to the spine, both directions, htb + bfifo of --buffer (needed with --leaves 2 or more)",
      rateArg('--uplink-rate'),
    )
    .option('--fault <target:kind=value>', FAULT_HELP, collect, [] as string[]);
  return addStoreOptions(addJsonOption(up));
}

/** `testbed run` and its options; registerTestbed adds the action. */
export function buildTestbedRun(testbed: Command) {
  return testbed
    .command('run')
    .description(
      'Run COMMAND in every host namespace with RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT set; fail if any fails.',
    )
    .option('--name <name>', 'testbed name', DEFAULT_NAME)
    .option(
      '--timeout <duration>',
      "kill every host's command and exit 3 after this long (60s, 5m; default: none)",
      durationArg('--timeout'),
    )
    .argument('<command...>', 'the command and its arguments, after --');
}

/** `testbed fault` and its options; registerTestbed adds the action. */
export function buildTestbedFault(testbed: Command) {
  const fault = testbed
    .command('fault')
    .description(
      'Add faults to a running testbed (same forms and checks as `up --fault`); `down` removes them with it.',
    )
    .option('--name <name>', 'testbed name', DEFAULT_NAME)
    .requiredOption('--fault <target:kind=value>', FAULT_HELP, collect, [] as string[]);
  return addStoreOptions(addJsonOption(fault));
}

/** `testbed status` and its options; registerTestbed adds the action. */
export function buildTestbedStatus(testbed: Command) {
  const status = testbed
    .command('status')
    .description(
      'Show a testbed: hosts, leaves and the hosts under each, rates, faults, and whether its namespaces are all there.',
    )
    .option('--name <name>', 'testbed name', DEFAULT_NAME);
  return addJsonOption(status);
}

/** `testbed incast` and its options; registerTestbed adds the action. */
export function buildTestbedIncast(testbed: Command) {
  const incast = testbed
    .command('incast')
    .description(
      "Chen et al.'s synchronised-read incast on real kernel TCP: builds a testbed of max(senders)+1 hosts, runs each sender count, removes it (also on Ctrl-C); with --compare-sim, the simulator beside it with the ratio.",
    )
    .requiredOption(
      '--senders <list>',
      'sender counts, e.g. 1,2,3,4,6,8',
      intListArg('--senders', { max: 249, unit: 'senders' }),
    )
    .requiredOption('--rate <rate>', 'port rate: 1Gbps, 200Mbps, or tc form 1gbit', rateArg('--rate'))
    .requiredOption(
      '--buffer <bytes>',
      'egress buffer per switch port (bfifo limit), e.g. 128K',
      sizeArg('--buffer'),
    )
    .requiredOption('--block <bytes>', 'bytes each sender returns per round, e.g. 256K', sizeArg('--block'))
    .requiredOption('--rounds <n>', 'synchronised rounds per run', positiveIntArg('--rounds'))
    .option('--runs <n>', 'runs per sender count (the row is their median)', positiveIntArg('--runs'), 3)
    .option(
      '--cc <name>',
      "TCP congestion control in every host namespace and in the simulator: reno, cubic or bbr (default: the namespaces' own)",
      choiceArg('--cc', ['reno', 'cubic', 'bbr'] as const),
    )
    .option(
      '--compare-sim',
      "also simulate each row (median of 3 seeds) with the testbed's settings and print the ratio",
    )
    .option('--name <name>', 'testbed name (must not exist)', 'incast');
  return addStoreOptions(addJsonOption(incast));
}

/** `testbed down` and its options; registerTestbed adds the action. */
export function buildTestbedDown(testbed: Command) {
  const down = testbed
    .command('down')
    .description('Remove the testbed: its processes and the namespaces `up` made (idempotent).')
    .option('--name <name>', 'testbed name', DEFAULT_NAME);
  return addStoreOptions(addJsonOption(down));
}

export type TestbedUpOptions = OptionsOf<typeof buildTestbedUp>;
export type TestbedRunOptions = OptionsOf<typeof buildTestbedRun>;
export type TestbedFaultOptions = OptionsOf<typeof buildTestbedFault>;
export type TestbedStatusOptions = OptionsOf<typeof buildTestbedStatus>;
export type TestbedIncastOptions = OptionsOf<typeof buildTestbedIncast>;
export type TestbedDownOptions = OptionsOf<typeof buildTestbedDown>;

export function registerTestbed(program: Command): void {
  const testbed = program
    .command('testbed')
    .description(
      'Emulate a multi-host fabric on this machine: network namespaces, veth, a bridge, htb + bfifo ports.',
    );
  buildTestbedUp(testbed).action(async (options) => {
    const { testbedUpCommand } = await import('./testbed-action.js');
    await testbedUpCommand(options);
  });
  buildTestbedRun(testbed).action(async (command, options) => {
    const { testbedRunCommand } = await import('./testbed-action.js');
    process.exitCode = await testbedRunCommand(command, options);
  });
  testbed
    .command('mpirun')
    .description(
      "Run PROGRAM under real Open MPI across the hosts: mpirun in NAME-h0, each remote daemon started in its host's namespace (rsh agent), ranks one per host in turn, MASTER_ADDR/MASTER_PORT exported.",
    )
    .option('--name <name>', 'testbed name', DEFAULT_NAME)
    .option('--np <n>', 'number of ranks (default: one per host)', positiveIntArg('--np'))
    .argument('<program...>', 'the program and its arguments, after --')
    .action(async (program, options) => {
      const { testbedMpirun } = await import('../../testbed/index.js');
      process.exitCode = await testbedMpirun(
        options.name,
        program,
        options.np !== undefined ? { np: options.np } : {},
      );
    });
  buildTestbedFault(testbed).action(async (options) => {
    const { testbedFaultCommand } = await import('./testbed-action.js');
    await testbedFaultCommand(options);
  });
  buildTestbedStatus(testbed).action(async (options) => {
    const { testbedStatusCommand } = await import('./testbed-action.js');
    await testbedStatusCommand(options);
  });
  buildTestbedIncast(testbed).action(async (options) => {
    const { testbedIncastCommand } = await import('./testbed-incast-action.js');
    await testbedIncastCommand(options);
  });
  buildTestbedDown(testbed).action(async (options) => {
    const { testbedDownCommand } = await import('./testbed-action.js');
    await testbedDownCommand(options);
  });
}
