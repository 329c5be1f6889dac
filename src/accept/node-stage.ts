/**
 * The `node` stage: each host alone, one after the other, runs a checked 2-rank bench tcp
 * all_reduce over its own loopback: the copies, reductions and socket work a collective costs that
 * host's cores, with no link involved. A host whose figure sits far below the other hosts' (the
 * pairs' rule, with 0.4 of the fleet's median as the slow line: NODE_SLOW_FRACTION) is a straggler:
 * every collective it joins waits for it, whatever its links do. Hosts run one at a time because the emulated hosts of a testbed (or the ranks of a shared machine) share
 * the cores: running them at once would measure the machine, not the host.
 */
import { median } from '../core/stats.js';
import type { HostOutcome } from './attribute.js';
import type { AcceptHost, AcceptLauncher } from './engine.js';
import { betterRun } from './better-run.js';
import { judgeResults, type JudgeOptions, type JudgeResult } from './judge.js';
import { ACCEPT_SETTLE, firstLine, readBenchTcpJson } from './tools.js';
import type { AcceptRun, AcceptVerdict } from './types.js';

/** Above the 1 MiB slice so the run pipelines, small enough for about a second on a slow host. */
const NODE_BYTES = 8 << 20;
const NODE_ITERS = 10;
const NODE_TIMEOUT_S = 60;
/**
 * A straggler is below 0.4 of the hosts' median (and beyond the z threshold): a healthy 12-host
 * testbed had one host's run at 0.37 of the median once (its next run cleared it), and a quarter-core
 * cap put its host at 0.12 (our measurements, docs/accept.md).
 */
export const NODE_SLOW_FRACTION = 0.4;
/**
 * Or a clear gap: below 0.4 of the median and below half of the slowest host above that line. On a
 * testbed whose hosts share a busy machine, the healthy hosts' figures spread with the machine's
 * load (0.40 to 1.22 GB/s in one run), which lifts the robust spread until a quarter-core host at
 * 0.12 scores z -2.0; the gap to the next host (0.40) still shows it (docs/accept.md).
 */
export const NODE_GAP_FRACTION = 0.5;
/** More runs of a suspect: a CI machine's bursts of other work can span two runs of one host. */
const NODE_RETRIES = 2;

/** The node check's command: bench tcp's own local launcher starting 2 ranks on this host. */
export function nodeCheckArgv(benchCommand: readonly string[]): string[] {
  return [
    ...benchCommand,
    'bench',
    'tcp',
    '--np',
    '2',
    '--op',
    'all_reduce',
    '-b',
    String(NODE_BYTES),
    '-e',
    String(NODE_BYTES),
    '-n',
    String(NODE_ITERS),
    '-w',
    '2',
    '--settle',
    ACCEPT_SETTLE,
    '-c',
    '1',
    '--timeout',
    String(NODE_TIMEOUT_S),
    '--json',
  ];
}

export interface NodeStageResult {
  runs: AcceptRun[];
  outcomes: HostOutcome[];
}

export async function nodeStage(
  launcher: AcceptLauncher,
  hosts: readonly AcceptHost[],
  live: (name: string) => boolean,
  benchCommand: readonly string[],
  judge: JudgeOptions | undefined,
  beforeEach: () => void,
): Promise<NodeStageResult> {
  const command = nodeCheckArgv(benchCommand);
  const measureHost = async (
    index: number,
  ): Promise<{ index: number; run: AcceptRun; problem: string | null; timedOut: boolean }> => {
    beforeEach();
    const result = await launcher.exec(index, command, { timeoutS: NODE_TIMEOUT_S + 15 });
    const figures =
      result.exitCode === 0
        ? readBenchTcpJson(result.stdout)
        : `exit code ${result.exitCode}${result.timedOut ? ' (timed out)' : ''}: ${firstLine(result.stderr)}`;
    const problem =
      typeof figures === 'string' ? figures : figures.wrong > 0 ? `${figures.wrong} wrong elements` : null;
    const run: AcceptRun = {
      stage: 'node',
      tool: 'bench-tcp',
      hosts: [hosts[index]!.name],
      argv: launcher.reproduce(index, command),
      exitCode: result.exitCode,
      wallS: result.wallS,
      measured: typeof figures === 'string' ? null : figures.busbwGBps,
      expected: null,
      unit: 'busbwGBps',
      verdict: 'pass',
    };
    return { index, run, problem, timedOut: result.timedOut };
  };
  const slowFraction = Math.min(NODE_SLOW_FRACTION, judge?.slowFraction ?? NODE_SLOW_FRACTION);
  const judgeAll = (list: typeof measured) =>
    withGap(
      judgeResults(
        list.map((m) => ({
          id: m.run.hosts[0]!,
          measured: m.run.measured,
          expected: null,
          hardFailure: m.problem,
          timedOut: m.timedOut,
        })),
        { ...judge, slowFraction },
      ),
      list.map((m) => (m.problem === null ? m.run.measured : null)),
      slowFraction,
    );
  const measured: Awaited<ReturnType<typeof measureHost>>[] = [];
  for (let index = 0; index < hosts.length; index++)
    if (live(hosts[index]!.name)) measured.push(await measureHost(index));
  const extra: AcceptRun[] = [];
  const keepBetter = (k: number, again: (typeof measured)[number]): void => {
    const { keep, aside } = betterRun(
      measured[k]!,
      again,
      (m) => m.run.measured,
      (m) => m.problem !== null,
    );
    measured[k] = keep;
    extra.push(aside.run);
  };
  // A second round over every host, in the same order, each keeping its better figure: the fleet's
  // spread is then the hosts', not the machine's moods (a healthy 9-host testbed's single runs spread
  // from 0.55 to 1.36 GB/s on a busy machine, which hid a quarter-core host at 0.12 from the z-score).
  for (let k = 0; k < measured.length; k++)
    if (measured[k]!.problem === null) keepBetter(k, await measureHost(measured[k]!.index));
  // A machine's stall can slow one host's runs; a straggler is slow every time. So each suspect runs
  // up to NODE_RETRIES more times, until its better figure clears the slow line (every run is listed).
  const first = judgeAll(measured);
  const fleet0 = median(measured.flatMap((m) => (m.run.measured !== null ? [m.run.measured] : [])));
  for (let k = 0; k < measured.length; k++) {
    if (first[k]!.verdict !== 'slow') continue;
    for (
      let retry = 0;
      retry < NODE_RETRIES && (measured[k]!.run.measured ?? 0) < NODE_SLOW_FRACTION * fleet0;
      retry++
    ) {
      keepBetter(k, await measureHost(measured[k]!.index));
    }
  }
  const judged = judgeAll(measured);
  const figures = measured.flatMap((m) => (m.run.measured !== null ? [m.run.measured] : []));
  const fleet = figures.length > 0 ? median(figures) : null;
  const outcomes: HostOutcome[] = [];
  measured.forEach((m, k) => {
    const judgement = judged[k]!;
    const verdict: AcceptVerdict = judgement.verdict;
    m.run.verdict = verdict;
    if (verdict === 'pass') return;
    const detail =
      verdict === 'slow' && m.run.measured !== null && fleet !== null
        ? `a straggler: bench tcp --np 2 on the host alone reached ${m.run.measured.toFixed(3)} GB/s, ${((judgement.ofFleet ?? 0) * 100).toFixed(0)}% of the hosts' median ${fleet.toFixed(3)} GB/s (robust z-score ${(judgement.zScore ?? 0).toFixed(1)}${judgement.gapReason !== undefined ? `; ${judgement.gapReason} GB/s` : ''}): its cores, not its links`
        : `bench tcp --np 2 on the host alone: ${judgement.reasons.join('; ')}`;
    outcomes.push({ host: m.run.hosts[0]!, verdict, argv: m.run.argv, detail });
  });
  for (const run of extra)
    run.verdict = measured.find((m) => m.run.hosts[0] === run.hosts[0])?.run.verdict ?? 'pass';
  return { runs: [...measured.map((m) => m.run), ...extra], outcomes };
}

/** A judgement, with the gap rule's reason when that rule (not the z-score) made it slow. */
export type NodeJudgement = JudgeResult & { gapReason?: string };

/** Also slow: below the slow line and below NODE_GAP_FRACTION of every host above it (the z-score aside). */
export function withGap(
  judged: JudgeResult[],
  figures: readonly (number | null)[],
  slowFraction: number,
): NodeJudgement[] {
  return judged.map((judgement, k) => {
    const figure = figures[k] ?? null;
    if (
      judgement.verdict !== 'pass' ||
      figure === null ||
      judgement.ofFleet === null ||
      judgement.ofFleet >= slowFraction ||
      judgement.fleetMedian === null
    )
      return judgement;
    const above = figures.filter(
      (other): other is number => other !== null && other >= slowFraction * judgement.fleetMedian!,
    );
    if (above.length === 0) return judgement;
    const next = Math.min(...above);
    if (figure >= NODE_GAP_FRACTION * next) return judgement;
    const gapReason = `${((figure / next) * 100).toFixed(0)}% of the slowest other host's ${next.toFixed(3)}`;
    return {
      ...judgement,
      verdict: 'slow',
      reasons: [
        `${(judgement.ofFleet * 100).toFixed(0)}% of the fleet median ${judgement.fleetMedian.toFixed(3)}`,
        gapReason,
      ],
      gapReason,
    };
  });
}
