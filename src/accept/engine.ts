/**
 * `aifabric accept`'s engine (issue 11): the stages as runs through a launcher, each result judged
 * against the expectation for this fabric and against the fleet (judge.ts), the failures attributed
 * to nodes, links and the fabric (attribute.ts), a failing collective localised by group testing
 * (localise.ts). The launcher is the only edge: it runs one argv on one host and returns what it
 * printed, so the engine is the same for the testbed and, later, for ssh, mpirun or srun.
 *
 * Stages run here: `preflight` (each host's tools and interface MTU, in parallel), `node` (each host
 * alone, one at a time: a 2-rank bench tcp over its loopback, for stragglers; node-stage.ts), `pairs` (iperf3
 * between every pair of hosts by the circle method, or seeded random rounds as a screen; the pairs
 * of one round run at once, since they share no host), `full` (one bench tcp all_reduce over every
 * host) and `groups` (when `full` fails: halves of the failing set, down to the hosts, each run with
 * a host known good beside a lone suspect).
 */
import { makeResult, type Finding, type ResultEnvelope } from '../core/envelope.js';
import { EnvironmentError } from '../core/errors.js';
import { median } from '../core/stats.js';
import { attributeCulprits, formatArgv, type HostOutcome, type PairOutcome } from './attribute.js';
import { judgeResults, DEFAULT_CV_THRESHOLD, DEFAULT_SLOW_FRACTION, DEFAULT_Z_THRESHOLD, type JudgeInput, type JudgeOptions } from './judge.js';
import { localise } from './localise.js';
import { nodeStage } from './node-stage.js';
import { circlePairings, randomPairings, type PairRound } from './pairings.js';
import { benchTcpArgv, iperf3ClientArgv, iperf3ServerArgv, readBenchTcpJson, readIperf3Json, TCP_GOODPUT_1500 } from './tools.js';
import type { AcceptCulprit, AcceptMetrics, AcceptRun, AcceptStage, AcceptStageName, AcceptTool, AcceptVerdict } from './types.js';

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
  exec(host: number, command: readonly string[], options: { timeoutS: number; env?: Record<string, string> }): Promise<LaunchResult>;
  /** The command line that reproduces `command` on `host`. */
  reproduce(host: number, command: readonly string[]): string[];
}

export interface AcceptExpectation {
  /** Line rate of each host's port, bits per second. */
  portRateBps: number;
  /** Rate of each leaf's uplink, bits per second, when hosts hang from several leaves. */
  uplinkRateBps?: number;
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
}

/**
 * Retransmitted segments per MB sent above which a pair is lossy, when also ten times the fleet's
 * median: 1% random loss costs about 7 per MB at MSS 1448 (1e6 / 1448 x 0.01), while a healthy
 * 200 Mb/s testbed port with a 256 KiB buffer showed up to 5.4 per MB in 1-second runs (BBR's
 * start-up overshoot) and under 3 in 3-second ones (our measurement; printed in inputs).
 */
export const LOSSY_RETRANSMITS_PER_MB = 3;
const SERVER_START_ATTEMPTS = 15;
const SERVER_START_WAIT_MS = 300;
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

export async function runAcceptance(launcher: AcceptLauncher, expectation: AcceptExpectation, options: AcceptOptions): Promise<ResultEnvelope<AcceptMetrics>> {
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

  // Preflight: every host answers, has the tools, and shows the MTU of the fleet.
  const preflight = async (): Promise<void> => {
    const tools = options.tools.map((tool) => (tool === 'iperf3' ? ['iperf3', '--version'] : [...options.benchCommand, '--version']));
    const checks = await Promise.all(
      hosts.map(async (_host, index) => {
        const link = await launcher.exec(index, ['ip', '-j', 'link', 'show'], { timeoutS: 10 });
        const missing: string[] = [];
        for (const tool of tools) {
          const result = await launcher.exec(index, tool, { timeoutS: 10 });
          if (result.exitCode !== 0) missing.push(tool[0] === 'iperf3' ? 'iperf3' : 'aifabric');
        }
        return { link, missing, mtus: interfaceMtus(link.stdout) };
      }),
    );
    const mtuOf = checks.map((check) => (check.mtus.length > 0 ? Math.max(...check.mtus.map((m) => m.mtu)) : null));
    const fleetMtu = median(mtuOf.filter((mtu): mtu is number => mtu !== null));
    checks.forEach((check, index) => {
      const host = names[index]!;
      const argv = launcher.reproduce(index, ['ip', '-j', 'link', 'show']);
      const problems: string[] = [];
      if (check.link.exitCode !== 0) {
        unreachable.add(host);
        problems.push(`did not answer (${firstLine(check.link.stderr) || `exit ${check.link.exitCode}`})`);
      }
      if (check.missing.length > 0) problems.push(`missing ${check.missing.join(', ')}`);
      const mtu = mtuOf[index];
      if (mtu !== null && mtu !== undefined && mtu !== fleetMtu) {
        const names = check.mtus.map((m) => `${m.ifname} ${m.mtu}`).join(', ');
        problems.push(`MTU ${mtu} (${names}) where the other hosts have ${fleetMtu}`);
      }
      const verdict: AcceptVerdict = problems.length > 0 ? 'fail' : 'pass';
      runs.push({ stage: 'preflight', tool: options.tools[0] ?? 'iperf3', hosts: [host], argv, exitCode: check.link.exitCode, wallS: check.link.wallS, measured: mtu ?? null, expected: fleetMtu, unit: 'rateGbps', verdict });
      if (verdict !== 'pass') hostOutcomes.push({ host, verdict, argv, detail: problems.join('; ') });
    });
    stages.push({ name: 'preflight', runs: hosts.length * (1 + tools.length) });
  };

  /** Expected Gb/s of a -> b in a round: the port rate, or the leaf uplinks' share when pairs of the round cross them. */
  const pairExpectation = (a: string, b: string, round: PairRound): number => {
    let bps = expectation.portRateBps;
    const la = leafOf[a];
    const lb = leafOf[b];
    if (expectation.uplinkRateBps !== undefined && la !== undefined && lb !== undefined && la !== lb) {
      const up = round.filter(([x, y]) => leafOf[x] === la && leafOf[y] !== la).length;
      const down = round.filter(([x, y]) => leafOf[y] === lb && leafOf[x] !== lb).length;
      bps = Math.min(bps, expectation.uplinkRateBps / Math.max(1, up), expectation.uplinkRateBps / Math.max(1, down));
    }
    return (bps * TCP_GOODPUT_1500) / 1e9;
  };

  const runPair = async (a: string, b: string, round: PairRound): Promise<{ input: JudgeInput; run: AcceptRun; retransmitsPerMb: number | null }> => {
    const ia = byName.get(a)!;
    const ib = byName.get(b)!;
    const serverPort = nextPort();
    const server = launcher.exec(ib, iperf3ServerArgv(hosts[ib]!.address, serverPort), { timeoutS: options.iperfSeconds + 20 });
    const clientArgv = iperf3ClientArgv(hosts[ib]!.address, hosts[ia]!.address, serverPort, options.iperfSeconds);
    await new Promise((resolve) => setTimeout(resolve, SERVER_START_WAIT_MS));
    let client = await launcher.exec(ia, clientArgv, { timeoutS: options.iperfSeconds + 15 });
    // The server may not be listening yet (a loaded machine starts twelve at once): try again for a few seconds.
    for (let attempt = 0; attempt < SERVER_START_ATTEMPTS && /unable to connect|refused/i.test(client.stdout + client.stderr); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, SERVER_START_WAIT_MS));
      client = await launcher.exec(ia, clientArgv, { timeoutS: options.iperfSeconds + 15 });
    }
    await server;
    const figures = client.exitCode === 0 ? readIperf3Json(client.stdout) : `exit code ${client.exitCode}${client.timedOut ? ' (timed out)' : ''}: ${firstLine(client.stderr) || firstLine(readIperf3Error(client.stdout))}`;
    const expected = pairExpectation(a, b, round);
    const measured = typeof figures === 'string' ? null : figures.rateGbps;
    const retransmits = typeof figures === 'string' ? null : figures.retransmits;
    const mb = typeof figures === 'string' ? 0 : figures.bytes / 1e6;
    const argv = launcher.reproduce(ia, clientArgv);
    const run: AcceptRun = { stage: 'pairs', tool: 'iperf3', hosts: [a, b], argv, exitCode: client.exitCode, wallS: client.wallS, measured, expected, unit: 'rateGbps', retransmits, verdict: 'pass' };
    const input: JudgeInput = { id: `${a}~${b}`, measured, expected, hardFailure: typeof figures === 'string' ? figures : null, timedOut: client.timedOut };
    return { input, run, retransmitsPerMb: retransmits !== null && mb > 0 ? retransmits / mb : null };
  };

  const pairsStage = async (): Promise<void> => {
    const live = names.filter((name) => !unreachable.has(name));
    const rounds = options.pairing === 'circle' ? circlePairings(live) : randomPairings(live, Math.max(1, Math.ceil(Math.log2(Math.max(2, live.length)))), options.seed);
    const results: Awaited<ReturnType<typeof runPair>>[] = [];
    let count = 0;
    try {
      for (const round of rounds) {
        checkBudget();
        const width = Math.max(1, Math.min(round.length, options.concurrency ?? round.length));
        for (let k = 0; k < round.length; k += width) {
          checkBudget();
          // Expectations count only the pairs that actually share the uplinks at the same time.
          const batch = round.slice(k, k + width);
          results.push(...(await Promise.all(batch.map(([a, b]) => runPair(a, b, batch)))));
          count += batch.length;
        }
      }
    } finally {
      stages.push({ name: 'pairs', runs: count });
      judgePairs(results);
    }
  };

  /**
   * Pairs are judged on measured / expected, so that a pair sharing an uplink with others in its round
   * (a lower expectation) is compared with the fleet fairly: slow needs both a share below
   * slowFraction and a robust z-score beyond the threshold (judge.ts). A fleet whose median share is
   * below slowFraction is reported as such (the fabric, or the expectation, is off), and a pair whose
   * sender retransmits far more than the fleet's is lossy.
   */
  const judgePairs = (results: { input: JudgeInput; run: AcceptRun; retransmitsPerMb: number | null }[]): void => {
    const ratios = results.map((r): JudgeInput => ({
      ...r.input,
      measured: r.input.measured !== null && r.input.expected ? r.input.measured / r.input.expected : null,
      expected: 1,
    }));
    const judged = judgeResults(ratios, options.judge);
    const shares = ratios.flatMap((r) => (r.measured !== null ? [r.measured] : []));
    const fleetShare = median(shares);
    if (shares.length > 0 && fleetShare < slowFraction) {
      warnings.push(`pairs: the median pair reached ${(fleetShare * 100).toFixed(0)}% of its expected rate (below ${(slowFraction * 100).toFixed(0)}%): the whole fabric, or the expectation, is off`);
    }
    const fleetRetransmits = median(results.flatMap((r) => (r.retransmitsPerMb !== null ? [r.retransmitsPerMb] : [])));
    const lossyAbove = Math.max(LOSSY_RETRANSMITS_PER_MB, 10 * (Number.isFinite(fleetRetransmits) ? fleetRetransmits : 0));
    results.forEach((result, k) => {
      const judgement = judged[k]!;
      let verdict = judgement.verdict;
      const reasons: string[] = [];
      const share = judgement.ofExpected;
      if (verdict === 'slow' || verdict === 'unstable') {
        if (share !== null) reasons.push(`${(share * 100).toFixed(0)}% of the expected`);
        if (judgement.ofFleet !== null && judgement.zScore !== null) reasons.push(`${(judgement.ofFleet * 100).toFixed(0)}% of the fleet's median share, robust z-score ${judgement.zScore.toFixed(1)}`);
        if (verdict === 'unstable') reasons.push(...judgement.reasons);
      } else if (verdict !== 'pass') reasons.push(...judgement.reasons);
      const perMb = result.retransmitsPerMb;
      if (verdict === 'pass' && perMb !== null && perMb > lossyAbove) {
        verdict = 'fail';
        reasons.push(`${result.run.retransmits} retransmitted segments (${perMb.toFixed(1)} per MB sent; the fleet's median ${fleetRetransmits.toFixed(2)}, lossy above ${lossyAbove.toFixed(1)})`);
      }
      result.run.verdict = verdict;
      runs.push(result.run);
      const [a, b] = result.run.hosts as [string, string];
      const rate = result.run.measured !== null ? `${result.run.measured.toFixed(3)} Gb/s of ${result.run.expected?.toFixed(3)} expected` : 'no rate';
      pairOutcomes.push({ a, b, verdict, argv: result.run.argv, detail: reasons.length > 0 ? `${rate}: ${reasons.join('; ')}` : rate });
    });
    judgeHosts(results.map((r, k) => ({ hosts: r.run.hosts as [string, string], share: ratios[k]!.measured, argv: r.run.argv })));
  };

  /**
   * Each host's median share over its pairs, judged against the other hosts' (the same rule: below
   * slowFraction and a robust z-score beyond the threshold). One pair's share moves with whatever
   * else the machine does; the median over a host's N-1 pairs hardly does, so a slow host stands out
   * here even when a busy machine spreads the pairs too widely for any one pair's z-score.
   */
  const judgeHosts = (shares: { hosts: [string, string]; share: number | null; argv: string[] }[]): void => {
    const perHost = names.filter((name) => !unreachable.has(name)).map((host) => {
      const mine = shares.filter((s) => s.hosts.includes(host) && s.share !== null);
      return { host, median: mine.length > 0 ? median(mine.map((s) => s.share!)) : null, pairs: mine.length, argv: mine.find((s) => s.share === Math.min(...mine.map((m) => m.share!)))?.argv ?? [] };
    });
    const judged = judgeResults(perHost.map((h) => ({ id: h.host, measured: h.median, expected: 1 })), options.judge);
    judged.forEach((judgement, k) => {
      const host = perHost[k]!;
      if (judgement.verdict !== 'slow' || host.median === null) return;
      hostOutcomes.push({
        host: host.host,
        verdict: 'slow',
        argv: host.argv,
        detail: `median share of the expected rate over its ${host.pairs} pairs ${(host.median * 100).toFixed(0)}%, the hosts' median ${((judgement.fleetMedian ?? 0) * 100).toFixed(0)}% (robust z-score ${(judgement.zScore ?? 0).toFixed(1)})`,
      });
    });
  };

  /** One bench tcp all_reduce over `set`; pass when it is correct and at least slowFraction of the expectation. */
  const benchOn = async (set: readonly string[], stage: AcceptStageName): Promise<AcceptRun> => {
    const indexes = set.map((name) => byName.get(name)!);
    const expectedGBps = (Math.min(expectation.portRateBps, expectation.uplinkRateBps ?? Infinity) * TCP_GOODPUT_1500) / 8 / 1e9;
    const n = set.length;
    const secondsPerIter = (2 * ((n - 1) / n) * BENCH_BYTES) / (expectedGBps * 1e9);
    const iters = Math.max(3, Math.min(50, Math.round(BENCH_SECONDS_TARGET / Math.max(secondsPerIter, 1e-6))));
    const timeoutS = Math.ceil(30 + 20 * secondsPerIter * (iters + 4));
    const command = benchTcpArgv(options.benchCommand, BENCH_BYTES, iters, timeoutS);
    const masterPort = nextPort();
    const results = await Promise.all(
      indexes.map((host, rank) =>
        launcher.exec(host, command, {
          timeoutS: timeoutS + 10,
          env: { RANK: String(rank), WORLD_SIZE: String(n), LOCAL_RANK: '0', MASTER_ADDR: hosts[indexes[0]!]!.address, MASTER_PORT: String(masterPort) },
        }),
      ),
    );
    const first = results[0]!;
    const failed = results.findIndex((result) => result.exitCode !== 0);
    const figures = readBenchTcpJson(first.stdout);
    let verdict: AcceptVerdict = 'pass';
    let measured: number | null = null;
    if (results.some((result) => result.timedOut)) verdict = 'hung';
    else if (failed >= 0 && !(failed === 0 && typeof figures !== 'string' && figures.wrong > 0)) verdict = 'fail';
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
        const helper = set.length === 1 ? ([...good].find((h) => !set.includes(h)) ?? live.find((h) => !set.includes(h))) : undefined;
        const run = await benchOn(helper !== undefined ? [...set, helper] : set, 'groups');
        groupRuns.push(run);
        if (run.verdict === 'pass') for (const host of run.hosts) good.add(host);
        return run.verdict === 'pass' ? 'pass' : 'fail';
      },
      { screenFailed: true, maxRuns: Math.max(4, 2 * Math.ceil(Math.log2(live.length)) + 2) * 2 },
    );
    stages.push({ name: 'groups', runs: result.runs });
    if (!result.complete) warnings.push(`groups: stopped after ${result.runs} runs before every failing set was split`);
    for (const host of result.bad) {
      const mine = groupRuns.filter((run) => run.hosts.includes(host) && run.verdict !== 'pass');
      const last = mine[mine.length - 1] ?? full;
      hostOutcomes.push({ host, verdict: last.verdict, argv: last.argv, detail: `bench tcp all_reduce on ${last.hosts.join(',')}: ${describeBench(last)} (found by group testing in ${result.runs} runs after the full run: ${describeBench(full)})` });
    }
    cuts.push(...result.cuts);
    localised = result.bad.length > 0;
  };

  try {
    if (want('preflight')) await preflight();
    if (unreachable.size === hosts.length) throw new EnvironmentError(`accept: none of the ${hosts.length} hosts of ${launcher.label} answered (${names.join(', ')})`);
    if (want('node') && options.tools.includes('bench-tcp')) {
      stopped = 'node';
      const node = await nodeStage(launcher, hosts, (name) => !unreachable.has(name), options.benchCommand, options.judge, checkBudget);
      runs.push(...node.runs);
      hostOutcomes.push(...node.outcomes);
      stages.push({ name: 'node', runs: node.runs.length });
    }
    if (want('pairs') && options.tools.includes('iperf3')) {
      stopped = 'pairs';
      await pairsStage();
    }
    if (want('full') && options.tools.includes('bench-tcp')) {
      stopped = 'full';
      checkBudget();
      await collectiveStages();
    }
    stopped = undefined;
  } catch (error) {
    if (!(error instanceof BudgetSpent)) throw error;
    warnings.push(`budget of ${options.budgetS} s spent during ${stopped ?? 'the run'}: later stages did not run`);
  }

  const culprits = attributeCulprits({ pairs: pairOutcomes, hosts: hostOutcomes, ...(Object.keys(leafOf).length > 0 ? { leafOf } : {}) });
  // A failing collective that no host explains: between the halves that pass alone, or the fabric.
  if (fullRun && fullRun.verdict !== 'pass' && !localised && !culprits.some((c) => c.kind === 'link' || c.kind === 'fabric')) {
    const evidence = [`bench tcp all_reduce over all ${fullRun.hosts.length} hosts: ${describeBench(fullRun)}`];
    for (const cut of cuts) evidence.push(`${cut.left.join(',')} and ${cut.right.join(',')} each pass, and fail together`);
    const id = cuts.length > 0 ? cutName(cuts[0]!, leafOf) : 'fabric';
    culprits.push({ kind: 'fabric', id, severity: fullRun.verdict === 'slow' ? 'warn' : 'error', score: 1, evidence, reproduce: formatArgv(fullRun.argv) });
  }
  const findings = culprits.map(culpritFinding);
  if (culprits.length === 0) findings.push({ severity: 'pass', ruleId: 'accept.pass', family: 'accept', message: `no culprit on ${hosts.length} hosts (${runs.length} runs)` });
  const metrics: AcceptMetrics & { budgetSpent: boolean } = { culprits, runs, stages, budgetSpent: stopped !== undefined };
  const inputs = {
    hosts: launcher.label,
    hostNames: names,
    tools: options.tools,
    stages: options.stages,
    pairing: options.pairing,
    seed: options.seed,
    budgetS: options.budgetS,
    iperfSeconds: options.iperfSeconds,
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
  return {
    severity: culprit.severity,
    ruleId: `accept.${culprit.kind}`,
    family: 'accept',
    message: `${culprit.kind} ${culprit.id}: ${culprit.evidence[0] ?? ''}`,
    ...(culprit.kind === 'node' ? { host: culprit.id } : {}),
    evidence: culprit.evidence.join('\n'),
    remediation: `reproduce: ${culprit.reproduce}`,
  };
}

function describeBench(run: AcceptRun): string {
  if (run.verdict === 'hung') return 'hung (killed at its timeout)';
  if (run.measured === null) return `failed (exit ${run.exitCode})`;
  return `busbw ${run.measured.toFixed(4)} GB/s of ${run.expected?.toFixed(4)} expected (${run.verdict})`;
}

const firstLine = (text: string): string => text.trim().split('\n')[0] ?? '';

function readIperf3Error(stdout: string): string {
  try {
    const parsed = JSON.parse(stdout) as { error?: unknown };
    return typeof parsed.error === 'string' ? parsed.error : '';
  } catch {
    return stdout;
  }
}

/** MTU of each interface that is up, from `ip -j link show`, loopback left out. */
export function interfaceMtus(stdout: string): { ifname: string; mtu: number }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap((link: { ifname?: unknown; mtu?: unknown; link_type?: unknown; operstate?: unknown; flags?: unknown }) =>
    typeof link.ifname === 'string' && typeof link.mtu === 'number' && link.link_type !== 'loopback' && Array.isArray(link.flags) && link.flags.includes('UP')
      ? [{ ifname: link.ifname, mtu: link.mtu }]
      : [],
  );
}

