/**
 * `aifabric accept [--testbed NAME | --hosts LIST | --hostfile FILE] [--launcher auto|testbed|ssh|srun|mpirun|local]
 * [--port-rate RATE | --fabric PRESET] [--tools iperf3,bench-tcp] [--stages ...] [--pairing circle|random]
 * [--seed N] [--budget 600s] [--iperf-seconds S] [--json] [--out FILE] [--junit FILE] [--drain-list FILE]
 * [--prometheus FILE] [--save]`:
 * run the acceptance stages across the hosts, judge every result against the expectation and the
 * fleet, and name the bad node, link or fabric. Exit 0 with no culprit, 1 with an error culprit,
 * 2 for bad input, 3 when no host answers or the budget ran out before localisation.
 */
import type { Command } from '@commander-js/extra-typings';
import { parseDuration } from '../../core/units.js';
import { UsageError } from '../../core/errors.js';
import { choiceArg, listArg, nonNegativeIntArg, positiveIntArg, type OptionsOf } from '../options.js';
import { addOutputOptions, addStoreOptions } from '../store-options.js';

export const ACCEPT_TOOLS = ['iperf3', 'bench-tcp', 'perftest', 'nccl-tests'] as const;
/** The tools run when --tools is not given: perftest and nccl-tests need RDMA devices or GPUs, so they are asked for by name. */
const DEFAULT_TOOLS = ['iperf3', 'bench-tcp'] as const;
export const ACCEPT_STAGES = ['preflight', 'node', 'pairs', 'uplinks', 'full', 'groups'] as const;

function subsetArg<T extends string>(flag: string, choices: readonly T[]) {
  return (value: string): T[] => {
    const items = listArg(value);
    const bad = items.find((item) => !(choices as readonly string[]).includes(item));
    if (bad !== undefined || items.length === 0)
      throw new UsageError(
        `invalid value for ${flag}: "${bad ?? value}" (expected a comma-separated list of ${choices.join(', ')})`,
      );
    return [...new Set(items)] as T[];
  };
}

/** `accept` and its options; registerAccept adds the action. */
export function buildAccept(program: Command) {
  const command = program
    .command('accept')
    .description(
      'acceptance across a set of hosts: iperf3 between every pair, a checked bench tcp all_reduce over all of them, group testing on what fails; names the bad node, link or fabric',
    )
    .option(
      '--testbed <name>',
      'the hosts of this namespace testbed (`aifabric testbed up`), each run through `ip netns exec`',
    )
    .option(
      '--hosts <list>',
      'the hosts, comma-separated, Slurm hostlist expressions allowed (node[01-16]); default under Slurm: the allocation (SLURM_JOB_NODELIST)',
    )
    .option('--hostfile <file>', "the hosts from an Open MPI host file ('host slots=N' lines)")
    .option(
      '--launcher <how>',
      'how each run starts on its host: auto (testbed with --testbed, srun inside a Slurm allocation, mpirun with --hostfile, else ssh), testbed, ssh, srun, mpirun or local (this machine, one host)',
      choiceArg('--launcher', ['auto', 'testbed', 'ssh', 'srun', 'mpirun', 'local'] as const),
      'auto' as const,
    )
    .option(
      '--port-rate <rate>',
      "each host's port rate on real hosts, with its unit (100gbit, 25Gbps): what a pair or collective is expected to reach",
    )
    .option(
      '--fabric <preset>',
      "each host's port rate from a fabric preset's line rate (aifabric presets), instead of --port-rate",
    )
    .option(
      '--cluster <file>',
      'cluster YAML (fabric, GPU, GPUs and NICs per node, NCCL version): the port rate and what nccl-tests should reach, instead of --fabric',
    )
    .option(
      '--aifabric-command <argv>',
      'how a remote host starts aifabric (default: aifabric on its PATH; local and testbed runs use this one)',
    )
    .option(
      '--tools <list>',
      `tools to run (${ACCEPT_TOOLS.join(', ')})`,
      subsetArg('--tools', ACCEPT_TOOLS),
      [...DEFAULT_TOOLS] as (typeof ACCEPT_TOOLS)[number][],
    )
    .option(
      '--hcas <list>',
      'perftest: the HCAs to run ib_write_bw over, each a rail (default mlx5_0)',
      (value) => listArg(value),
    )
    .option(
      '--gid-index <n>',
      "perftest: ib_write_bw's -x, the GID index RoCE v2 needs",
      nonNegativeIntArg('--gid-index'),
    )
    .option(
      '--gpus-per-node <n>',
      "nccl-tests: ranks (GPUs) per host, one GPU each (-g 1) (default: the cluster file's, else 8)",
      positiveIntArg('--gpus-per-node'),
    )
    .option(
      '--nics-per-node <n>',
      "nccl-tests: NICs per host, for the model's expectation with --fabric (default: one per GPU)",
      positiveIntArg('--nics-per-node'),
    )
    .option(
      '--baseline <run>',
      'compare each pair with a stored accept run (`runs list --kind accept`): its id, or latest; a pair below 80% of its own figure there is slow',
    )
    .option(
      '--nccl-tests-dir <dir>',
      'nccl-tests: the folder holding all_reduce_perf on every host (default: on PATH)',
    )
    .option(
      '--stages <list>',
      `stages to run, in this order (${ACCEPT_STAGES.join(', ')})`,
      subsetArg('--stages', ACCEPT_STAGES),
      [...ACCEPT_STAGES],
    )
    .option(
      '--pairing <how>',
      'pairs stage: every pair by the circle method, or ceil(log2 N) seeded random rounds as a screen',
      choiceArg('--pairing', ['circle', 'random'] as const),
      'circle' as const,
    )
    .option('--seed <n>', 'seed of the random pairings', nonNegativeIntArg('--seed'), 1)
    .option(
      '--budget <duration>',
      'wall-clock budget with its unit (600s, 1500ms): no new run starts after it',
      (value) => parseDuration(value, '--budget'),
      600,
    )
    .option(
      '--iperf-seconds <s>',
      'length of each iperf3 run',
      positiveIntArg('--iperf-seconds', { max: 60 }),
      3,
    )
    .option(
      '--concurrency <n>',
      'pairs stage: at most N pairs at once (default: all pairs of a round, which share no host)',
      positiveIntArg('--concurrency'),
    );
  const withOutput = addOutputOptions(command)
    .option('--junit <file>', 'also write the culprits as JUnit XML (for CI)')
    .option(
      '--drain-list <file>',
      'also write the scontrol (Slurm) and kubectl cordon (Kubernetes) lines that would take each blamed node out of service; written, never run',
    )
    .option(
      '--prometheus <file>',
      'also write node-exporter textfile metrics (aifabric_accept_host_healthy and others)',
    );
  return addStoreOptions(withOutput);
}

export type AcceptOptions = OptionsOf<typeof buildAccept>;

export function registerAccept(program: Command): void {
  buildAccept(program).action(async (options) => {
    const { runAcceptCommand } = await import('./accept-action.js');
    await runAcceptCommand(options);
  });
}
