/**
 * `aifabric testbed up|run|down`: an emulated multi-host fabric in network namespaces on this
 * machine (root and iproute2 needed; exit 3 without them). Registering stays cheap; the work is
 * imported when a subcommand runs.
 */
import { Command } from '@commander-js/extra-typings';
import { positiveIntArg, rateArg, sizeArg } from '../options.js';

const DEFAULT_NAME = 'aifab';

export function registerTestbed(program: Command): void {
  const testbed = program.command('testbed').description('Emulate a multi-host fabric on this machine: network namespaces, veth, a bridge, htb + bfifo ports.');
  testbed
    .command('up')
    .description('Create NAME-h0..NAME-h{N-1} and NAME-sw; shape each switch port to RATE with BYTES of buffer.')
    .requiredOption('--hosts <n>', 'number of hosts', positiveIntArg('--hosts'))
    .requiredOption('--rate <rate>', 'port rate: 1Gbps, 10G, or tc form 1gbit', rateArg('--rate'))
    .requiredOption('--buffer <bytes>', 'egress buffer per switch port (bfifo limit), e.g. 64K', sizeArg('--buffer'))
    .option('--name <name>', 'testbed name (namespace prefix)', DEFAULT_NAME)
    .option('--json', 'print the result envelope as JSON')
    .action(async (options) => {
      const { testbedUpCommand } = await import('./testbed-action.js');
      await testbedUpCommand(options);
    });
  testbed
    .command('run')
    .description('Run COMMAND in every host namespace with RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT set; fail if any fails.')
    .option('--name <name>', 'testbed name', DEFAULT_NAME)
    .argument('<command...>', 'the command and its arguments, after --')
    .action(async (command, options) => {
      const { testbedRunCommand } = await import('./testbed-action.js');
      process.exitCode = await testbedRunCommand(options.name, command);
    });
  testbed
    .command('down')
    .description('Remove the testbed: its processes and namespaces (idempotent).')
    .option('--name <name>', 'testbed name', DEFAULT_NAME)
    .option('--json', 'print the result envelope as JSON')
    .action(async (options) => {
      const { testbedDownCommand } = await import('./testbed-action.js');
      await testbedDownCommand(options);
    });
}
