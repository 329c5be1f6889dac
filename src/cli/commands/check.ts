/**
 * `aifabric check --from DIR | --live [--fabric PRESET | --cluster FILE] [--json] [--junit FILE]`:
 * the cluster acceptance checklist over captured tool outputs or this host. Exit 1 when any finding
 * is an error, 2 for bad input (a missing folder, an unreadable cluster file, an unknown preset).
 */
import { Command } from '@commander-js/extra-typings';
import { addStoreOptions } from '../store-options.js';

export function registerCheck(program: Command): void {
  const command = program
    .command('check')
    .description(
      'validate a cluster: nccl-tests busbw vs the model, GPUDirect paths, RDMA ports and GIDs, PFC/ECN, stragglers, virtualisation',
    )
    .option(
      '--from <dir>',
      'folder of captured outputs: one subfolder per host, or one host; files recognised by content',
    )
    .option(
      '--live',
      'collect on this host: nvidia-smi topo -m, ibv_devinfo -v, rdma link, show_gids, ethtool -S, sysctl, DMI, NCCL_* env',
    )
    .option(
      '--fabric <preset>',
      'fabric to judge against (see `aifabric presets fabrics`); inferred from the captures when omitted',
    )
    .option('--cluster <file>', 'cluster YAML: fabric, GPU model and NICs per node')
    .option('--junit <file>', 'also write the findings as JUnit XML (for CI)')
    .option('--json', 'print the result envelope as JSON')
    .option('--out <file>', 'also write the JSON envelope to a file');
  addStoreOptions(command).action(async (options) => {
    const { runCheckCommand } = await import('./check-action.js');
    await runCheckCommand(options);
  });
}
