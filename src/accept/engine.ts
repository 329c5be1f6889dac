/**
 * `aifabric accept`'s engine (issue 11): the stages as runs through a launcher, each result judged
 * against the expectation for this fabric and against the fleet (judge.ts), the failures attributed
 * to nodes, links and the fabric (attribute.ts), a failing collective localised by group testing
 * (localise.ts). The launcher is the only edge: it runs one argv on one host and returns what it
 * printed, so the engine is the same for the testbed and, later, for ssh, mpirun or srun.
 *
 * Stages run here: `preflight` (each host's tools and interface MTU, in parallel), `node` (each host
 * alone, one at a time: a 2-rank bench tcp over its loopback, for stragglers; node-stage.ts), `pairs` (pairs-stage.ts: iperf3
 * between every pair of hosts by the circle method, or seeded random rounds as a screen; the pairs
 * of one round run at once, since they share no host), `full` (one bench tcp all_reduce over every
 * host) and `groups` (when `full` fails: halves of the failing set, down to the hosts, each run with
 * a host known good beside a lone suspect).
 */
import { busbwFactor } from '../core/collectives.js';
import { makeResult, type Finding, type ResultEnvelope } from '../core/envelope.js';
import { EnvironmentError } from '../core/errors.js';
import { makeFinding } from '../core/rules.js';
import { attributeCulprits, formatArgv, type HostOutcome, type PairOutcome } from './attribute.js';
import {
  DEFAULT_CV_THRESHOLD,
  DEFAULT_SLOW_FRACTION,
  DEFAULT_Z_THRESHOLD,
  type JudgeOptions,
} from './judge.js';
import { localise } from './localise.js';
import { IPERF3_PAIR, LOSSY_RETRANSMITS_PER_MB, pairsStage, perftestPair } from './pairs-stage.js';
import { nodeStage } from './node-stage.js';
import { preflightStage } from './preflight-stage.js';
import {
  benchTcpArgv,
  firstLine,
  NCCL_TESTS_ENV,
  ncclTestsArgv,
  readBenchTcpJson,
  readNcclTests,
  TCP_GOODPUT_1500,
} from './tools.js';
import type {
  AcceptCulprit,
  AcceptMetrics,
  AcceptRun,
  AcceptStage,
  AcceptStageName,
  AcceptTool,
  AcceptVerdict,
} from './types.js';

export interface AcceptHost {
  /** The name the launcher knows it by (`NAME-h5` on a testbed). */
  name: string;
  /** Its address on the fabric under test. */
  address: string;
  /** The leaf switch it hangs from, when known. */
  leaf?: string;
}

export interface LaunchResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  wallS: number;
}

export interface AcceptLauncher {
  /** What the hosts are, for the report (`testbed tvm`). */
  label: string;
  hosts: AcceptHost[];
  exec(
    host: number,
    command: readonly string[],
    options: { timeoutS: number; env?: Record<string, string> },
  ): Promise<LaunchResult>;
  /** The command line that reproduces `command` on `host`. */
  reproduce(host: number, command: readonly string[]): string[];
  /** One MPI-style job of `ranksPerHost` ranks on each of the hosts (srun, mpirun); absent where the launcher cannot. */
  job?(
    hosts: readonly number[],
    ranksPerHost: number,
    command: readonly string[],
    options: { timeoutS: number; env?: Record<string, string> },
  ): Promise<LaunchResult>;
  reproduceJob?(
    hosts: readonly number[],
    ranksPerHost: number,
    command: readonly string[],
    env?: Record<string, string>,
  ): string[];
}

export interface AcceptExpectation {
  /** Line rate of each host's port, bits per second. */
  portRateBps: number;
  /** Rate of each leaf's uplink, bits per second, when hosts hang from several leaves. */
  uplinkRateBps?: number;
  /** nccl-tests: the transport NCCL should use (`IB`, `Socket`, as its log names NET/...), from the fabric preset. */
  ncclNet?: string;
  /** nccl-tests: the model's all_reduce busbw at 1 GiB over every host, GB/s, when a fabric preset says what to expect. */
  ncclBusbwGBps?: number;
}

export interface AcceptOptions {
  tools: AcceptTool[];
  stages: AcceptStageName[];
  pairing: 'circle' | 'random';
  seed: number;
  budgetS: number;
  iperfSeconds: number;
  /** Most pairs of a round run at once (default: the whole round; they share no host). */
  concurrency?: number;
  /** How a host starts aifabric (`[node, /path/to/main.js]`). */
  benchCommand: string[];
  judge?: JudgeOptions;
  /** Port for the iperf3 servers and the bench tcp rendezvous (each run uses its own). */
  basePort?: number;
  /** The HCAs perftest pairs run over, each a rail (default mlx5_0). */
  hcas?: string[];
  /** perftest's `-x`: the GID index RoCE v2 needs where index 0 is not it. */
  gidIndex?: number;
  /** A stored accept run to compare each pair with (`--baseline`): its reference and its runs. */
  baseline?: { ref: string; runs: AcceptRun[] };
  /** nccl-tests: GPUs (ranks) per host (default 8) and the folder of its binaries (default: on PATH). */
  gpusPerNode?: number;
  ncclTestsDir?: string;
}

/** The HCA perftest runs over when none is named: the first ConnectX port's usual name. */
const DEFAULT_HCA = 'mlx5_0';

/** bench tcp message size for collective runs: above the 1 MiB slice, small enough to run in about a second at 200 Mb/s. */
const BENCH_BYTES = 1 << 20;
const BENCH_SECONDS_TARGET = 1.5;
/**
 * A collective over N hosts pays 2(N-1) per-step latencies that one iperf3 stream does not, so it
 * is slow below this share of the port rate (instead of the slow fraction): a healthy 12-host ring
 * of 1 MiB all_reduce on the 100 Mbit/s testbed reached 0.80 of it (our measurement).
 */
export const COLLECTIVE_SLOW_FRACTION = 0.6;
const DEFAULT_BASE_PORT = 39_100;

class BudgetSpent extends Error {}

export async function runAcceptance(
  launcher: AcceptLauncher,
  expectation: AcceptExpectation,
  options: AcceptOptions,
): Promise<ResultEnvelope<AcceptMetrics>> {
  const started = performance.now();
  const hosts = launcher.hosts;
  const names = hosts.map((host) => host.name);
  const runs: AcceptRun[] = [];
  const stages: AcceptStage[] = [];
  const warnings: string[] = [];
  const hostOutcomes: HostOutcome[] = [];
  const pairOutcomes: PairOutcome[] = [];
  const slowFraction = options.judge?.slowFraction ?? DEFAULT_SLOW_FRACTION;
  const collectiveSlowFraction = COLLECTIVE_SLOW_FRACTION * (slowFraction / DEFAULT_SLOW_FRACTION);
  let port = options.basePort ?? DEFAULT_BASE_PORT;
  const nextPort = (): number => {
    port = port >= 65_000 ? DEFAULT_BASE_PORT : port + 1;
    return port;
  };
  const elapsedS = (): number => (performance.now() - started) / 1000;
  const checkBudget = (): void => {
    if (elapsedS() > options.budgetS) throw new BudgetSpent();
  };
  const want = (stage: AcceptStageName): boolean => options.stages.includes(stage);
  const leafOf: Record<string, string> = {};
  for (const host of hosts) if (host.leaf !== undefined) leafOf[host.name] = host.leaf;
  const byName = new Map(hosts.map((host, index) => [host.name, index]));
  const unreachable = new Set<string>();
  let stopped: AcceptStageName | undefined;
  let fullRun: AcceptRun | undefined;
  let localised = false;
  const cuts: { left: string[]; right: string[] }[] = [];

  /** One bench tcp all_reduce over `set`; pass when it is correct and at least slowFraction of the expectation. */
  const benchOn = async (set: readonly string[], stage: AcceptStageName): Promise<AcceptRun> => {
    const indexes = set.map((name) => byName.get(name)!);
    const expectedGBps =
      (Math.min(expectation.portRateBps, expectation.uplinkRateBps ?? Infinity) * TCP_GOODPUT_1500) / 8 / 1e9;
    const n = set.length;
    const secondsPerIter = (busbwFactor('all_reduce', n) * BENCH_BYTES) / (expectedGBps * 1e9);
    const iters = Math.max(
      3,
      Math.min(50, Math.round(BENCH_SECONDS_TARGET / Math.max(secondsPerIter, 1e-6))),
    );
    const timeoutS = Math.ceil(30 + 20 * secondsPerIter * (iters + 4));
    const command = benchTcpArgv(options.benchCommand, BENCH_BYTES, iters, timeoutS);
    const masterPort = nextPort();
    const results = await Promise.all(
      indexes.map((host, rank) =>
        launcher.exec(host, command, {
          timeoutS: timeoutS + 10,
          env: {
            RANK: String(rank),
            WORLD_SIZE: String(n),
            LOCAL_RANK: '0',
            MASTER_ADDR: hosts[indexes[0]!]!.address,
            MASTER_PORT: String(masterPort),
          },
        }),
      ),
    );
    const first = results[0]!;
    const failed = results.findIndex((result) => result.exitCode !== 0);
    const figures = readBenchTcpJson(first.stdout);
    let verdict: AcceptVerdict = 'pass';
    let measured: number | null = null;
    if (results.some((result) => result.timedOut)) verdict = 'hung';
    else if (failed >= 0 && !(failed === 0 && typeof figures !== 'string' && figures.wrong > 0))
      verdict = 'fail';
    else if (typeof figures === 'string') verdict = 'fail';
    else {
      measured = figures.busbwGBps;
      if (figures.wrong > 0) verdict = 'fail';
      else if (measured < collectiveSlowFraction * expectedGBps) verdict = 'slow';
    }
    const run: AcceptRun = {
      stage,
      tool: 'bench-tcp',
      hosts: [...set],
      argv: launcher.reproduce(indexes[0]!, command),
      exitCode: failed >= 0 ? results[failed]!.exitCode : 0,
      wallS: Math.max(...results.map((result) => result.wallS)),
      measured,
      expected: expectedGBps,
      unit: 'busbwGBps',
      verdict,
    };
    runs.push(run);
    return run;
  };

  /**
   * nccl-tests all_reduce_perf over every GPU of every live host as one MPI job: a hard failure
   * (exit code, #wrong, each rank alone) fails the run; a host whose NCCL log shows only NET/Socket
   * where the fabric is RDMA is a node that fell back (its RDMA path is broken or not configured).
   */
  const ncclTestsFull = async (): Promise<void> => {
    const live = names.filter((name) => !unreachable.has(name));
    if (!launcher.job || !launcher.reproduceJob) {
      warnings.push(
        `nccl-tests: not run: it needs an MPI job across the hosts (--launcher srun or mpirun), not ${launcher.label}`,
      );
      return;
    }
    if (live.length === 0) return;
    const indexes = live.map((name) => byName.get(name)!);
    const gpus = options.gpusPerNode ?? 8;
    const command = ncclTestsArgv(options.ncclTestsDir);
    const result = await launcher.job(indexes, gpus, command, { timeoutS: 900, env: NCCL_TESTS_ENV });
    const argv = launcher.reproduceJob(indexes, gpus, command, NCCL_TESTS_ENV);
    const figures = readNcclTests(result.stdout);
    const problems: string[] = [];
    if (result.timedOut) problems.push('timed out');
    else if (result.exitCode !== 0)
      problems.push(
        `exit code ${result.exitCode}: ${firstLine(result.stderr) || (typeof figures === 'string' ? figures : '')}`,
      );
    if (typeof figures === 'string' && !result.timedOut && result.exitCode === 0) problems.push(figures);
    if (typeof figures !== 'string') {
      if (figures.wrong > 0) problems.push(`#wrong ${figures.wrong}`);
      if (figures.ranks > 0 && figures.ranks !== live.length * gpus)
        problems.push(`${figures.ranks} ranks where ${live.length} hosts x ${gpus} GPUs were asked for`);
    }
    const measured = typeof figures === 'string' ? null : figures.busbwGBps;
    const expected = expectation.ncclBusbwGBps ?? null;
    let verdict: AcceptVerdict = result.timedOut ? 'hung' : problems.length > 0 ? 'fail' : 'pass';
    if (verdict === 'pass' && measured !== null && expected !== null && measured < slowFraction * expected) {
      verdict = 'slow';
      problems.push(
        `busbw ${measured.toFixed(1)} GB/s at 1 GiB, ${((measured / expected) * 100).toFixed(0)}% of the ${expected.toFixed(1)} GB/s the model expects`,
      );
    }
    runs.push({
      stage: 'full',
      tool: 'nccl-tests',
      hosts: live,
      argv,
      exitCode: result.exitCode,
      wallS: result.wallS,
      measured,
      expected,
      unit: 'busbwGBps',
      verdict,
    });
    stages.push({ name: 'full', runs: 1 });
    // Hosts whose ranks fell back to sockets where the fabric is RDMA.
    if (
      typeof figures !== 'string' &&
      expectation.ncclNet !== undefined &&
      expectation.ncclNet !== 'Socket'
    ) {
      for (const [logHost, nets] of Object.entries(figures.transports)) {
        if (nets.some((net) => net !== 'NET/Socket')) continue;
        const host = live.find((name) => name === logHost || name.split('.')[0] === logHost.split('.')[0]);
        if (host)
          hostOutcomes.push({
            host,
            verdict: 'fail',
            argv,
            detail: `NCCL on this host used NET/Socket where the fabric is NET/${expectation.ncclNet} (nccl-tests' NCCL_DEBUG=INFO log)`,
          });
      }
    }
    if (verdict !== 'pass')
      warnings.push(
        `nccl-tests all_reduce_perf over ${live.length} hosts x ${gpus} GPUs: ${verdict}: ${problems.join('; ')}`,
      );
  };

  const collectiveStages = async (): Promise<void> => {
    const live = names.filter((name) => !unreachable.has(name));
    if (live.length < 2) return;
    const full = await benchOn(live, 'full');
    fullRun = full;
    stages.push({ name: 'full', runs: 1 });
    if (full.verdict === 'pass' || !want('groups')) return;
    const good = new Set<string>();
    const groupRuns: AcceptRun[] = [];
    const result = await localise(
      live,
      async (set) => {
        checkBudget();
        // A lone suspect runs beside a host already seen passing (or any other live host).
        const helper =
          set.length === 1
            ? ([...good].find((h) => !set.includes(h)) ?? live.find((h) => !set.includes(h)))
            : undefined;
        const run = await benchOn(helper !== undefined ? [...set, helper] : set, 'groups');
        groupRuns.push(run);
        if (run.verdict === 'pass') for (const host of run.hosts) good.add(host);
        return run.verdict === 'pass' ? 'pass' : 'fail';
      },
      { screenFailed: true, maxRuns: Math.max(4, 2 * Math.ceil(Math.log2(live.length)) + 2) * 2 },
    );
    stages.push({ name: 'groups', runs: result.runs });
    if (!result.complete)
      warnings.push(`groups: stopped after ${result.runs} runs before every failing set was split`);
    for (const host of result.bad) {
      const mine = groupRuns.filter((run) => run.hosts.includes(host) && run.verdict !== 'pass');
      const last = mine[mine.length - 1] ?? full;
      hostOutcomes.push({
        host,
        verdict: last.verdict,
        argv: last.argv,
        detail: `bench tcp all_reduce on ${last.hosts.join(',')}: ${describeBench(last)} (found by group testing in ${result.runs} runs after the full run: ${describeBench(full)})`,
      });
    }
    cuts.push(...result.cuts);
    localised = result.bad.length > 0;
  };

  try {
    if (want('preflight'))
      await preflightStage({ launcher, options, unreachable, runs, stages, warnings, hostOutcomes });
    if (unreachable.size === hosts.length)
      throw new EnvironmentError(
        `accept: none of the ${hosts.length} hosts of ${launcher.label} answered (${names.join(', ')})`,
      );
    if (want('node') && options.tools.includes('bench-tcp')) {
      stopped = 'node';
      const node = await nodeStage(
        launcher,
        hosts,
        (name) => !unreachable.has(name),
        options.benchCommand,
        options.judge,
        checkBudget,
      );
      runs.push(...node.runs);
      hostOutcomes.push(...node.outcomes);
      stages.push({ name: 'node', runs: node.runs.length });
    }
    // iperf3 over the hosts' TCP path, and perftest's RDMA write once per HCA (each HCA a rail).
    const pairTools = [
      ...(options.tools.includes('iperf3') ? [IPERF3_PAIR] : []),
      ...(options.tools.includes('perftest')
        ? (options.hcas ?? [DEFAULT_HCA]).map((hca) => perftestPair(hca, options.gidIndex))
        : []),
    ];
    if (want('pairs') && pairTools.length > 0) {
      stopped = 'pairs';
      await pairsStage(
        {
          launcher,
          expectation,
          options,
          live: names.filter((name) => !unreachable.has(name)),
          leafOf,
          nextPort,
          checkBudget,
          runs,
          stages,
          warnings,
          pairOutcomes,
          hostOutcomes,
        },
        'pairs',
        pairTools,
      );
    }
    if (want('uplinks') && options.tools.includes('iperf3') && new Set(Object.values(leafOf)).size >= 2) {
      stopped = 'uplinks';
      await pairsStage(
        {
          launcher,
          expectation,
          options,
          live: names.filter((name) => !unreachable.has(name)),
          leafOf,
          nextPort,
          checkBudget,
          runs,
          stages,
          warnings,
          pairOutcomes,
          hostOutcomes,
        },
        'uplinks',
      );
    }
    if (want('full') && options.tools.includes('nccl-tests')) {
      stopped = 'full';
      checkBudget();
      await ncclTestsFull();
    }
    if (want('full') && options.tools.includes('bench-tcp')) {
      stopped = 'full';
      checkBudget();
      await collectiveStages();
    }
    stopped = undefined;
  } catch (error) {
    if (!(error instanceof BudgetSpent)) throw error;
    warnings.push(
      `budget of ${options.budgetS} s spent during ${stopped ?? 'the run'}: later stages did not run`,
    );
  }

  const culprits = attributeCulprits({
    pairs: pairOutcomes,
    hosts: hostOutcomes,
    ...(Object.keys(leafOf).length > 0 ? { leafOf } : {}),
  });
  // A failing collective that no host explains: between the halves that pass alone, or the fabric.
  if (
    fullRun &&
    fullRun.verdict !== 'pass' &&
    !localised &&
    !culprits.some((c) => c.kind === 'link' || c.kind === 'fabric')
  ) {
    const evidence = [
      `bench tcp all_reduce over all ${fullRun.hosts.length} hosts: ${describeBench(fullRun)}`,
    ];
    for (const cut of cuts)
      evidence.push(`${cut.left.join(',')} and ${cut.right.join(',')} each pass, and fail together`);
    const id = cuts.length > 0 ? cutName(cuts[0]!, leafOf) : 'fabric';
    culprits.push({
      kind: 'fabric',
      id,
      severity: fullRun.verdict === 'slow' ? 'warn' : 'error',
      score: 1,
      evidence,
      reproduce: formatArgv(fullRun.argv),
    });
  }
  // A failing nccl-tests run that no host explains is the fabric's (or its configuration's).
  const ncclRun = runs.find((run) => run.tool === 'nccl-tests' && run.stage === 'full');
  if (ncclRun && ncclRun.verdict !== 'pass' && culprits.length === 0) {
    const why =
      warnings.find((warning) => warning.startsWith('nccl-tests all_reduce_perf')) ??
      `nccl-tests ${ncclRun.verdict}`;
    culprits.push({
      kind: 'fabric',
      id: 'fabric',
      severity: ncclRun.verdict === 'slow' ? 'warn' : 'error',
      score: 1,
      evidence: [why],
      reproduce: formatArgv(ncclRun.argv),
    });
  }
  const findings = culprits.map(culpritFinding);
  if (culprits.length === 0)
    findings.push(
      makeFinding('accept.pass', {
        severity: 'pass',
        family: 'accept',
        message: `no culprit on ${hosts.length} hosts (${runs.length} runs)`,
      }),
    );
  const metrics: AcceptMetrics & { budgetSpent: boolean } = {
    culprits,
    runs,
    stages,
    budgetSpent: stopped !== undefined,
  };
  const inputs = {
    hosts: launcher.label,
    hostNames: names,
    tools: options.tools,
    stages: options.stages,
    pairing: options.pairing,
    seed: options.seed,
    budgetS: options.budgetS,
    iperfSeconds: options.iperfSeconds,
    ...(options.tools.includes('perftest')
      ? { hcas: options.hcas ?? [DEFAULT_HCA], gidIndex: options.gidIndex ?? null }
      : {}),
    ...(options.baseline ? { baseline: options.baseline.ref } : {}),
    concurrency: options.concurrency ?? null,
    portRateBps: expectation.portRateBps,
    ...(expectation.uplinkRateBps !== undefined ? { uplinkRateBps: expectation.uplinkRateBps } : {}),
    thresholds: {
      slowFraction,
      collectiveSlowFraction,
      zThreshold: options.judge?.zThreshold ?? DEFAULT_Z_THRESHOLD,
      cvThreshold: options.judge?.cvThreshold ?? DEFAULT_CV_THRESHOLD,
      lossyRetransmitsPerMb: LOSSY_RETRANSMITS_PER_MB,
    },
  };
  return makeResult('accept', inputs, metrics, { findings, warnings, timing: { wallS: elapsedS() } });
}

/** A cut between two sets of hosts, named by their leaves when each set sits under leaves of its own. */
function cutName(cut: { left: string[]; right: string[] }, leafOf: Readonly<Record<string, string>>): string {
  const leaves = (set: string[]): string[] => [...new Set(set.map((host) => leafOf[host] ?? '?'))].sort();
  const left = leaves(cut.left);
  const right = leaves(cut.right);
  if (left.includes('?') || right.includes('?') || left.some((leaf) => right.includes(leaf))) return 'fabric';
  return `${left.join('+')}~${right.join('+')}`;
}

function culpritFinding(culprit: AcceptCulprit): Finding {
  return makeFinding(`accept.${culprit.kind}`, {
    severity: culprit.severity,
    family: 'accept',
    message: `${culprit.kind} ${culprit.id}: ${culprit.evidence[0] ?? ''}`,
    ...(culprit.kind === 'node' ? { host: culprit.id } : {}),
    evidence: culprit.evidence.join('\n'),
    remediation: `reproduce: ${culprit.reproduce}`,
  });
}

function describeBench(run: AcceptRun): string {
  if (run.verdict === 'hung') return 'hung (killed at its timeout)';
  if (run.measured === null) return `failed (exit ${run.exitCode})`;
  return `busbw ${run.measured.toFixed(4)} GB/s of ${run.expected?.toFixed(4)} expected (${run.verdict})`;
}
