/**
 * `aifabric parse FILE... [--kind KIND] [--json]`: captured tool output to typed facts. Exit 0 when
 * every file was recognised and read, even if the output reports failures (judging is `check`'s job);
 * exit 2 when a file is unreadable, not of the kind asked for, or of no kind known: the files that
 * were read are still printed, and each bad one is named on stderr.
 */
import type { Command } from '@commander-js/extra-typings';
import { addOutputOptions, addStoreOptions } from '../store-options.js';

/** Listed here rather than read from the registry so registering imports no parser. */
const KIND_NAMES =
  'nccl-tests, perftest, iperf3, ibv-devinfo, rdma-link, show-gids, nvidia-smi-topo, sysctl, nccl-env, ethtool, mlnx-qos, sonic-config-db, virt, dmi, cpuinfo, pytorch-trace';

export function registerParse(program: Command): void {
  const command = program
    .command('parse')
    .description(
      'read captured tool output (nccl-tests, perftest, ...) into typed facts; the kind is detected from the content',
    )
    .argument('<files...>', 'captured output files')
    .option('--kind <kind>', `parse as this kind instead of detecting it (${KIND_NAMES})`);
  addStoreOptions(addOutputOptions(command)).action(async (files, options) => {
    const { InputError } = await import('../../core/errors.js');
    const { parseFiles } = await import('../../parse/index.js');
    const { renderParseText } = await import('../render/parse-text.js');
    const { emitResult } = await import('../emit.js');
    const result = await parseFiles(files, options.kind !== undefined ? { kind: options.kind } : {});
    await emitResult(result, options, renderParseText);
    // The files that were read are out; the bad ones are named on stderr and the exit is 2.
    const failed = result.metrics.failed ?? [];
    if (failed.length > 0)
      throw new InputError(failed.map((failure) => failure.message).join('\naifabric: '));
  });
}
