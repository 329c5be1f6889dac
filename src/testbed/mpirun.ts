/**
 * `testbed mpirun -- PROGRAM ...`: real Open MPI across the testbed's emulated hosts. mpirun starts in
 * host 0's namespace; its rsh agent (`plm_rsh_agent`, the program Open MPI runs to start a daemon on
 * a remote host: ompi_info --param plm rsh) is rsh-agent.js, which starts each remote orted in the
 * namespace of the host mpirun names (by its testbed address), with AIFABRIC_TESTBED_HOST set so that
 * every rank reports its emulated host. Daemons and MPI traffic (ob1 over the TCP BTL only) stay on the testbed's interface (eth0),
 * so they cross its switch ports, rates, buffers and faults like any other traffic. Ranks are spread
 * one per host in turn (`--map-by node`); more ranks than hosts wrap around (`--oversubscribe`).
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EnvironmentError, UsageError } from '../core/errors.js';
import { requireNamespaces } from './exec.js';
import { hostFault } from './faults.js';
import { TESTBED_MASTER_PORT, hostAddress, validateName } from './names.js';
import { completeTestbed } from './run.js';
import { mpiSessionBase, type TestbedState } from './state.js';

/** The testbed hosts' interface to the switch (up.ts): daemons and BTL traffic are kept on it. */
const TESTBED_INTERFACE = 'eth0';

export interface MpirunOptions {
  /** Ranks (default: one per host). */
  np?: number;
}

/** The agent mpirun runs as `AGENT HOST COMMAND...`: this file's sibling, under the same Node. */
export function agentCommand(name: string): string[] {
  const script = fileURLToPath(new URL('./rsh-agent.js', import.meta.url));
  const agent = [process.execPath, script, name];
  // Open MPI splits the agent's text on spaces: a path with one cannot be handed to it.
  const spaced = agent.find((part) => /\s/.test(part));
  if (spaced !== undefined)
    throw new EnvironmentError(
      `testbed mpirun: "${spaced}" holds a space, which Open MPI's plm_rsh_agent cannot take`,
    );
  return agent;
}

/**
 * The environment of a remote daemon on host NAMESPACE (rsh-agent.ts): the host's name for `bench
 * tcp`'s header, and a session folder of its own (mpiSessionBase, made here) given as
 * orte_tmpdir_base. mpirun (host 0) keeps Open MPI's default folder and is started without that
 * variable (mpirunEnv): mpirun forwards an orte_tmpdir_base it has to every daemon's command line,
 * which would override theirs and put all hosts in one folder again.
 */
export function daemonEnv(name: string, namespace: string): NodeJS.ProcessEnv {
  const base = mpiSessionBase(name, namespace);
  mkdirSync(base, { recursive: true });
  return { ...process.env, AIFABRIC_TESTBED_HOST: namespace, OMPI_MCA_orte_tmpdir_base: base };
}

function mpirunEnv(namespace: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, AIFABRIC_TESTBED_HOST: namespace };
  delete env.OMPI_MCA_orte_tmpdir_base;
  return env;
}

/** mpirun's argv, to run inside host 0's namespace. */
export function mpirunArgv(
  state: TestbedState,
  program: readonly string[],
  options: MpirunOptions = {},
): string[] {
  const addresses = state.hostNamespaces.map((_, index) => state.addresses[index] ?? hostAddress(index));
  const np = options.np ?? addresses.length;
  return [
    'mpirun',
    '--allow-run-as-root',
    '--oversubscribe',
    '--map-by',
    'node',
    '--mca',
    'plm_rsh_agent',
    agentCommand(state.name).join(' '),
    '--mca',
    'oob_tcp_if_include',
    TESTBED_INTERFACE,
    // No hwloc topology in shared memory, a start-up saving only: orted writes it at a fixed address
    // in a hole of its address space (rtc_hwloc.c, find_hole), and CI saw orted die there (SIGSEGV in
    // hwloc_shmem_topology_write) while the daemons still shared one session folder (mpiSessionBase).
    '--mca',
    'rtc_hwloc_vmhole',
    'none',
    '--mca',
    'pml',
    'ob1',
    '--mca',
    'btl',
    'tcp,self',
    '--mca',
    'btl_tcp_if_include',
    TESTBED_INTERFACE,
    '--host',
    addresses.join(','),
    '-np',
    String(np),
    // torchrun's rendezvous names, which `bench tcp` reads under any launcher (launch-env.ts).
    '-x',
    `MASTER_ADDR=${addresses[0]}`,
    '-x',
    `MASTER_PORT=${TESTBED_MASTER_PORT}`,
    ...program,
  ];
}

/** Runs PROGRAM under mpirun across the testbed; resolves to mpirun's exit code (128 + signal when killed). */
export async function testbedMpirun(
  nameInput: string,
  program: string[],
  options: MpirunOptions = {},
): Promise<number> {
  const name = validateName(nameInput);
  if (program.length === 0)
    throw new UsageError(
      'testbed mpirun: no program given (usage: aifabric testbed mpirun [--name NAME] [--np N] -- PROGRAM ...)',
    );
  if (options.np !== undefined && !(Number.isInteger(options.np) && options.np >= 1))
    throw new UsageError(
      `invalid value for --np: ${options.np} (expected a whole number of ranks, at least 1)`,
    );
  await requireNamespaces();
  const state = await completeTestbed(name);
  if (hostFault(state.faults, 0, 'cpu') !== undefined) {
    throw new UsageError(
      `testbed mpirun: host h0 of "${name}" has a cpu fault; mpirun runs there, outside the cap: put the fault on another host`,
    );
  }
  const host0 = state.hostNamespaces[0]!;
  const argv = ['ip', 'netns', 'exec', host0, ...mpirunArgv(state, program, options)];
  const child = spawn(argv[0]!, argv.slice(1), {
    env: mpirunEnv(host0),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const forward = (signal: NodeJS.Signals) => (): void => {
    child.kill(signal);
  };
  const onInt = forward('SIGINT');
  const onTerm = forward('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  try {
    return await new Promise<number>((resolve, reject) => {
      child.on('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'ENOENT'
            ? new EnvironmentError('testbed mpirun: `ip` not found (apt-get install iproute2)')
            : error,
        ),
      );
      child.on('exit', (code, signal) => resolve(code ?? (signal === 'SIGINT' ? 130 : 143)));
    });
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
}
