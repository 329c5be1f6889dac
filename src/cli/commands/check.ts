/**
 * `aifabric check --from DIR | --live [--fabric PRESET | --cluster FILE] [--json] [--junit FILE]`:
 * the cluster acceptance checklist over captured tool outputs or this host. Exit 1 when any finding
 * is an error, 2 for bad input (a missing folder, an unreadable cluster file, an unknown preset).
 */
import type { Command } from '@commander-js/extra-typings';
import type { OptionsOf } from '../options.js';
import { addOutputOptions, addStoreOptions } from '../store-options.js';

/** `check` and its options; registerCheck adds the action. */
export function buildCheck(program: Command) {
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
    .option('--junit <file>', 'also write the findings as JUnit XML (for CI)');
  return addStoreOptions(addOutputOptions(command));
}

export type CheckOptions = OptionsOf<typeof buildCheck>;

export function registerCheck(program: Command): void {
  buildCheck(program).action(async (options) => {
    const { runCheckCommand } = await import('./check-action.js');
    await runCheckCommand(options);
  });
}
