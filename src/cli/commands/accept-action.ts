/** The body of `aifabric accept`, imported only when the command runs. */
import { writeFileAtomic } from '../../core/atomic-write.js';
import { EnvironmentError } from '../../core/errors.js';
import { UsageError } from '../../core/errors.js';
import { parseRate } from '../../core/units.js';
import { refuseNewCapturedRuns, signalCapturedRuns } from '../../core/index.js';
import { readInputFile } from '../../core/read-input.js';
import { getFabricPreset, loadClusterFile } from '../../spec/index.js';
import { predictCollective } from '../../model/index.js';
import { getRun, listRuns, parseRunId, resolveDbPath } from '../../store/index.js';
import {
  expandHostlist,
  launcherProblem,
  parseHostfile,
  remoteLauncher,
  runAcceptance,
  testbedLauncher,
  type AcceptExpectation,
  type AcceptLauncher,
  type AcceptRun,
} from '../../accept/index.js';
import { toJunitXml, type CheckResult } from '../../check/index.js';
import { emitResult } from '../emit.js';
import { renderDrainList, renderPrometheus } from '../render/accept-files.js';
import { renderAcceptText } from '../render/accept-text.js';
import type { AcceptOptions } from './accept.js';

/**
 * Where the runs go: a testbed, or real hosts (from --hosts, --hostfile or the Slurm allocation)
 * through ssh, srun, mpirun or this machine, with the port rate they are judged against.
 */
/** GPUs (nccl-tests ranks) per host when neither the flag nor a cluster file says: an HGX/DGX node. */
const DEFAULT_GPUS_PER_NODE = 8;

async function chooseLauncher(options: AcceptOptions): Promise<{
  launcher: AcceptLauncher;
  expectation: AcceptExpectation;
  remote: boolean;
  gpusPerNode: number;
}> {
  const sources = [
    options.testbed !== undefined && '--testbed',
    options.hosts !== undefined && '--hosts',
    options.hostfile !== undefined && '--hostfile',
  ].filter(Boolean);
  if (sources.length > 1) throw new UsageError(`give the hosts one way: ${sources.join(' or ')}`);
  if (options.testbed !== undefined || options.launcher === 'testbed') {
    if (options.testbed === undefined) throw new UsageError('--launcher testbed needs --testbed NAME');
    if (options.launcher !== 'auto' && options.launcher !== 'testbed')
      throw new UsageError(
        `--testbed runs through the testbed's namespaces, not --launcher ${options.launcher}`,
      );
    if (options.portRate !== undefined || options.fabric !== undefined || options.cluster !== undefined)
      throw new UsageError(
        '--testbed takes the port rate from the testbed itself; drop --port-rate / --fabric / --cluster',
      );
    return {
      ...(await testbedLauncher(options.testbed)),
      remote: false,
      gpusPerNode: options.gpusPerNode ?? DEFAULT_GPUS_PER_NODE,
    };
  }
  const slurmNodes = process.env.SLURM_JOB_NODELIST?.trim();
  let names: string[];
  if (options.hosts !== undefined)
    names = options.hosts
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean)
      .flatMap((item) => expandHostlist(item));
  else if (options.hostfile !== undefined)
    names = parseHostfile(readInputFile(options.hostfile), options.hostfile).map((entry) => entry.host);
  else if (slurmNodes) names = expandHostlist(slurmNodes);
  else
    throw new UsageError(
      'accept needs hosts: --testbed NAME, --hosts LIST, --hostfile FILE, or a Slurm allocation (SLURM_JOB_NODELIST)',
    );
  if (names.length === 0) throw new UsageError('--hosts: no host given');
  const kind =
    options.launcher !== 'auto'
      ? options.launcher
      : process.env.SLURM_JOB_ID
        ? 'srun'
        : options.hostfile !== undefined
          ? 'mpirun'
          : 'ssh';
  const ways = [
    options.portRate !== undefined && '--port-rate',
    options.fabric !== undefined && '--fabric',
    options.cluster !== undefined && '--cluster',
  ].filter(Boolean);
  if (ways.length > 1) throw new UsageError(`give the port rate one way: ${ways.join(' or ')}`);
  const cluster = options.cluster !== undefined ? loadClusterFile(options.cluster) : undefined;
  const fabric =
    cluster?.fabric ?? (options.fabric !== undefined ? getFabricPreset(options.fabric) : undefined);
  const portRateBps =
    options.portRate !== undefined
      ? parseRate(options.portRate, '--port-rate')
      : (cluster?.bandwidthBps ?? (fabric !== undefined ? fabric.lineRateGbps * 1e9 : undefined));
  if (portRateBps === undefined || !(portRateBps > 0))
    throw new UsageError(
      'accept on real hosts needs the rate to judge against: --port-rate RATE (100gbit), --fabric PRESET or --cluster FILE',
    );
  // The address a tool dials is the name the launcher knows (a host file's user@ is ssh's business).
  const hosts = names.map((name) => ({ name, address: name.replace(/^[^@]*@/, '') }));
  const problem = launcherProblem(kind, hosts);
  if (problem) throw new UsageError(problem);
  // nccl-tests: what NCCL should use and reach on this fabric, from the preset and the model.
  // A cluster file's GPUs and NICs per node stand unless the flags say otherwise.
  const gpusPerNode = options.gpusPerNode ?? cluster?.gpusPerNode ?? DEFAULT_GPUS_PER_NODE;
  const nccl =
    fabric !== undefined && options.tools.includes('nccl-tests')
      ? {
          ncclNet: fabric.ncclNet,
          ncclBusbwGBps: predictCollective({
            op: 'all_reduce',
            nodes: hosts.length,
            gpusPerNode,
            nicsPerNode: options.nicsPerNode ?? cluster?.nicsPerNode ?? gpusPerNode,
            fabric,
            ...(cluster
              ? {
                  gpu: cluster.gpu,
                  ...(cluster.ncclVersion !== undefined ? { ncclVersion: cluster.ncclVersion } : {}),
                  ...(cluster.bandwidthBps !== undefined ? { bandwidthBps: cluster.bandwidthBps } : {}),
                }
              : {}),
            sizeBytes: 1 << 30,
          }).busbwGBps,
        }
      : {};
  return {
    launcher: remoteLauncher(kind, hosts, { runAsRoot: process.getuid?.() === 0 }),
    expectation: { portRateBps, ...nccl },
    remote: kind !== 'local',
    gpusPerNode,
  };
}

/** A stored accept run (`--baseline ID|latest`) as the engine compares with it. */
function readBaseline(which: string, db: string | undefined): { ref: string; runs: AcceptRun[] } {
  const dbPath = resolveDbPath(db);
  const id =
    which.trim() === 'latest' ? listRuns(dbPath, { kind: 'accept', limit: 1 })[0]?.id : parseRunId(which);
  if (id === undefined)
    throw new UsageError(`--baseline latest: no accept run in ${dbPath} (save one with accept --save)`);
  const run = getRun(dbPath, id);
  if (!run) throw new UsageError(`--baseline ${which}: no run #${id} in ${dbPath}`);
  if (run.envelope.kind !== 'accept')
    throw new UsageError(`--baseline ${which}: run #${id} is a ${run.envelope.kind} result, not accept`);
  const runs = (run.envelope.metrics as { runs?: AcceptRun[] }).runs ?? [];
  return { ref: `#${id}`, runs };
}

/** How long the runs get to stop after SIGTERM before they are killed. */
const STOP_GRACE_MS = 2000;

/**
 * Ctrl-C (or SIGTERM) stops every run on every host: no new run starts, each launched process group
 * gets SIGTERM (srun cancels its step, mpirun its daemons), then SIGKILL after a grace, and accept
 * exits 128 + the signal without a result.
 */
export async function runAcceptCommand(options: AcceptOptions): Promise<void> {
  const { launcher, expectation, remote, gpusPerNode } = await chooseLauncher(options);
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => (): void => {
    interrupted ??= signal;
    refuseNewCapturedRuns();
    signalCapturedRuns('SIGTERM');
    setTimeout(() => signalCapturedRuns('SIGKILL'), STOP_GRACE_MS).unref();
  };
  const onInt = onSignal('SIGINT');
  const onTerm = onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  try {
    await runAndReport(
      { ...options, gpusPerNode },
      launcher,
      expectation,
      remote,
      () => interrupted !== undefined,
    );
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
  if (interrupted !== undefined) {
    signalCapturedRuns('SIGKILL');
    process.stderr.write(
      `aifabric: accept: interrupted (${interrupted}); every run it started was stopped\n`,
    );
    process.exitCode = interrupted === 'SIGINT' ? 130 : 143;
  }
}

async function runAndReport(
  options: AcceptOptions,
  launcher: AcceptLauncher,
  expectation: AcceptExpectation,
  remote: boolean,
  wasInterrupted: () => boolean,
): Promise<void> {
  const script = process.argv[1];
  const localCommand = script ? [process.execPath, script] : ['aifabric'];
  const benchCommand =
    options.aifabricCommand !== undefined
      ? options.aifabricCommand.split(/\s+/).filter(Boolean)
      : remote
        ? ['aifabric']
        : localCommand;
  const result = await runAcceptance(launcher, expectation, {
    tools: options.tools,
    stages: options.stages,
    pairing: options.pairing,
    seed: options.seed,
    budgetS: options.budget,
    iperfSeconds: options.iperfSeconds,
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    benchCommand,
    ...(options.hcas !== undefined ? { hcas: options.hcas } : {}),
    ...(options.gidIndex !== undefined ? { gidIndex: options.gidIndex } : {}),
    gpusPerNode: options.gpusPerNode,
    ...(options.baseline !== undefined ? { baseline: readBaseline(options.baseline, options.db) } : {}),
    ...(options.ncclTestsDir !== undefined ? { ncclTestsDir: options.ncclTestsDir } : {}),
  });
  // An interrupted run's results are the runs it killed: nothing is written, nothing judged.
  if (wasInterrupted()) return;
  if (options.junit !== undefined) {
    // The JUnit writer groups findings per host: one suite per host, culprits as failures.
    const asCheck = {
      ...result,
      metrics: { hosts: launcher.hosts.map((host) => ({ name: host.name })) },
    } as unknown as CheckResult;
    writeFileAtomic(options.junit, toJunitXml(asCheck));
  }
  const ended = new Date();
  if (options.drainList !== undefined)
    writeFileAtomic(options.drainList, renderDrainList(result.metrics, ended));
  if (options.prometheus !== undefined)
    writeFileAtomic(
      options.prometheus,
      renderPrometheus(
        result.metrics,
        launcher.hosts.map((host) => host.name),
        ended,
      ),
    );
  await emitResult(result, options, renderAcceptText);
  if (result.metrics.culprits.some((culprit) => culprit.severity === 'error')) process.exitCode = 1;
  if ((result.metrics as { budgetSpent?: boolean }).budgetSpent && result.metrics.culprits.length === 0) {
    throw new EnvironmentError(
      `accept: the budget of ${options.budget} s ran out before the stages finished (raise --budget)`,
    );
  }
}
