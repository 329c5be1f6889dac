/**
 * `testbed incast`: the synchronised-read incast of Chen et al. (WREN 2009) on real kernel TCP, and
 * optionally the same incast in the simulator, side by side. It builds its own testbed of
 * max(senders) + 1 hosts (exit 3 if NAME exists), sets the congestion control in every host
 * namespace (`net.ipv4.tcp_congestion_control`, a per-namespace sysctl), runs `runs` repetitions of
 * each sender count (incast-worker.ts in hosts 0..S), counts the drops at the receiver's switch port
 * (its bfifo), and removes the testbed afterwards, also when interrupted (`signal`). The simulator
 * (incast-sim.ts) runs after the testbed is gone, so it never competes with it for the CPU.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  EnvironmentError,
  UsageError,
  makeFinding,
  makeResult,
  median,
  type Finding,
  type ResultEnvelope,
} from '../core/index.js';
import { testbedDown } from './down.js';
import { run } from './exec.js';
import { execOnHost } from './host-exec.js';
import {
  incastSimSettings,
  simulateIncastRow,
  SIM_SEEDS,
  type IncastCc,
  type IncastSimSettings,
} from './incast-sim.js';
import { MAX_HOSTS, hostAddress, switchPort } from './names.js';
import { bfifoDrops, parseQdiscDrops } from './port.js';
import { readState } from './state.js';
import { testbedUp, validateSpec } from './up.js';

export const INCAST_CCS = ['reno', 'cubic', 'bbr'] as const satisfies readonly IncastCc[];
/** The issue's target: every row's simulated goodput within 20% of the testbed's (issue 13, part 2). */
export const INCAST_TARGET = 0.2;
/**
 * Rounds per run below which a comparison is noise: an RTO stalls a round for 200 ms and a short run has a
 * handful, so a row moved by 10-30% between two sets of the same build at 20 rounds (docs/bench.md,
 * 2026-12-03: BBR at 8 senders 1.20 and 1.29 a minute apart); at 100 rounds sets agree within about 0.1.
 */
export const COMPARE_MIN_ROUNDS = 100;
/** A port rate the machine can emulate: one sender reaches at least this fraction of it (issue 13, part 2). */
export const SINGLE_SENDER_MIN_FRACTION = 0.9;
/** The incast's own TCP port, away from the rendezvous (TESTBED_MASTER_PORT, 29500) that `run` uses. */
const INCAST_PORT = 29600;
/** One day: a run's time limit stays far below setTimeout's 2^31 - 1 ms, past which Node fires it at once. */
const MAX_RUN_TIMEOUT_S = 86_400;
const ALLOWED_CC_SYSCTL = '/proc/sys/net/ipv4/tcp_allowed_congestion_control';

export interface IncastSpec {
  name: string;
  senders: number[];
  rateBps: number;
  bufferBytes: number;
  blockBytes: number;
  rounds: number;
  runs: number;
  /** Absent: the namespaces' own default (read back and reported). */
  congestionControl?: string;
  compareSim: boolean;
}

export interface IncastRow {
  senders: number;
  /** Medians over the runs (testbed) and the seeds (simulator). */
  testbedGoodputGbps: number;
  simGoodputGbps: number | null;
  /** simGoodputGbps / testbedGoodputGbps. */
  ratio: number | null;
  /** Packets the receiver's switch port dropped (bfifo), median over the runs. */
  drops: number;
  /** The senders' RTOs per run on the testbed (nstat TcpExtTCPTimeouts), median over the runs. */
  timeouts: number;
  simDrops: number | null;
  /** RTOs in the simulation, median over the seeds. */
  simTimeouts: number | null;
  /** How far apart the servers began their blocks, median over the runs (us); null with one sender. */
  startGapUs: number | null;
  runs: IncastRun[];
}

export interface IncastMetrics {
  congestionControl: string;
  rows: IncastRow[];
  /** The one-sender check: the emulated path keeps up with the port rate (always measured). */
  singleSender: { goodputGbps: number; fractionOfRate: number; atLeast: number; ok: boolean };
  /** Every row within the target (null without --compare-sim). */
  withinTarget: boolean | null;
  /** os.loadavg() (1, 5, 15 minutes) before the testbed was built and after its last run. */
  loadAverageBefore: number[];
  loadAverageAfter: number[];
  sim: (IncastSimSettings & { seeds: number[] }) | null;
}

export interface IncastOptions {
  /** Aborting stops the running incast and removes the testbed; the call then throws. */
  signal?: AbortSignal;
  /** Progress lines (for stderr). */
  onProgress?: (line: string) => void;
}

function validateIncast(spec: IncastSpec): IncastCc | undefined {
  if (spec.senders.length === 0)
    throw new UsageError('invalid value for --senders: empty (expected a list of sender counts, e.g. 1,2,4)');
  for (const s of spec.senders) {
    if (!Number.isInteger(s) || s < 1 || s > MAX_HOSTS - 1)
      throw new UsageError(
        `invalid value for --senders: ${s} (expected whole numbers from 1 to ${MAX_HOSTS - 1})`,
      );
  }
  for (const [flag, value] of [
    ['--block', spec.blockBytes],
    ['--rounds', spec.rounds],
    ['--runs', spec.runs],
  ] as const) {
    if (!Number.isInteger(value) || value < 1)
      throw new UsageError(`invalid value for ${flag}: ${value} (expected a whole number of at least 1)`);
  }
  const cc = spec.congestionControl;
  if (cc !== undefined && !(INCAST_CCS as readonly string[]).includes(cc))
    throw new UsageError(`invalid value for --cc: "${cc}" (expected one of ${INCAST_CCS.join(', ')})`);
  validateSpec({
    name: spec.name,
    hosts: Math.max(...spec.senders) + 1,
    rateBps: spec.rateBps,
    bufferBytes: spec.bufferBytes,
  });
  return cc as IncastCc | undefined;
}

/** A namespace may only select a congestion control the machine allows (tcp_allowed_congestion_control). */
function requireAllowed(cc: IncastCc): void {
  let allowed: string[];
  try {
    allowed = readFileSync(ALLOWED_CC_SYSCTL, 'utf8').trim().split(/\s+/);
  } catch {
    return; // Unknown here: the sysctl in the namespace will say.
  }
  if (!allowed.includes(cc)) {
    throw new EnvironmentError(
      `--cc ${cc}: not allowed on this machine; a network namespace may only select from net.ipv4.tcp_allowed_congestion_control = "${allowed.join(' ')}" (the machine's own sysctl)`,
    );
  }
}

async function setCongestionControl(
  namespaces: readonly string[],
  cc: IncastCc | undefined,
): Promise<string> {
  const key = 'net.ipv4.tcp_congestion_control';
  if (cc !== undefined)
    for (const ns of namespaces) await run('ip', ['netns', 'exec', ns, 'sysctl', '-q', '-w', `${key}=${cc}`]);
  const readBack = await Promise.all(
    namespaces.map(async (ns) => (await run('ip', ['netns', 'exec', ns, 'sysctl', '-n', key])).stdout.trim()),
  );
  const first = readBack[0] ?? '';
  if (readBack.some((value) => value !== first) || (cc !== undefined && first !== cc))
    throw new EnvironmentError(`${key} did not take in every host namespace: ${readBack.join(', ')}`);
  return first;
}

/** net.ipv4.tcp_slow_start_after_idle in the host namespaces (each namespace has its own; they must agree). */
async function slowStartAfterIdle(namespaces: readonly string[]): Promise<boolean> {
  const key = 'net.ipv4.tcp_slow_start_after_idle';
  const values = await Promise.all(
    namespaces.map(async (ns) => (await run('ip', ['netns', 'exec', ns, 'sysctl', '-n', key])).stdout.trim()),
  );
  const first = values[0] ?? '';
  if (values.some((value) => value !== first) || !/^[01]$/.test(first))
    throw new EnvironmentError(
      `${key} differs between the host namespaces or is not 0 or 1: ${values.join(', ')}`,
    );
  return first === '1';
}

/**
 * Packets the receiver port's bfifo dropped (tc -s). The kernel counts a drop per packet handed to
 * the qdisc (qdisc_qstats_drop), which on the veth is a GSO packet of up to GSO_SEGMENTS segments,
 * while its `Sent ... pkt` counts segments (bstats_update adds gso_segs): so neither gives the
 * segments per packet.
 */
async function portDrops(switchNs: string): Promise<number> {
  const { stdout } = await run('tc', ['-n', switchNs, '-s', 'qdisc', 'show', 'dev', switchPort(0)]);
  if (!parseQdiscDrops(stdout).some((q) => q.kind === 'bfifo'))
    throw new EnvironmentError(
      `tc -s qdisc show dev ${switchPort(0)} in ${switchNs}: no bfifo counters in its output`,
    );
  return bfifoDrops(stdout);
}

/** The senders' TCP counters (nstat: the namespace's /proc/net/snmp and netstat): retransmitted segments, RTOs, loss probes. */
const TCP_COUNTERS = {
  retransmittedSegments: 'TcpRetransSegs',
  timeouts: 'TcpExtTCPTimeouts',
  lossProbes: 'TcpExtTCPLossProbes',
} as const;
export type TcpCounters = Record<keyof typeof TCP_COUNTERS, number>;

/** The TCP counters summed over namespaces (nstat -asz: absolute, zeros shown, history left alone). */
export async function tcpCounters(namespaces: readonly string[]): Promise<TcpCounters> {
  const total: TcpCounters = { retransmittedSegments: 0, timeouts: 0, lossProbes: 0 };
  for (const ns of namespaces) {
    const { stdout } = await run('ip', [
      'netns',
      'exec',
      ns,
      'nstat',
      '-asz',
      ...Object.values(TCP_COUNTERS),
    ]);
    for (const [key, name] of Object.entries(TCP_COUNTERS) as [keyof TcpCounters, string][]) {
      const value = new RegExp(`^${name}\\s+(\\d+)`, 'm').exec(stdout)?.[1];
      if (value === undefined) throw new EnvironmentError(`nstat in ${ns} did not report ${name}`);
      total[key] += Number(value);
    }
  }
  return total;
}

const WORKER = fileURLToPath(new URL('./incast-worker.js', import.meta.url));

export interface IncastRun {
  goodputGbps: number;
  drops: number;
  minRttUs: number | null;
  /** The incast worker's measure of how far apart the servers began their blocks (us); null with one. */
  startGapUs: number | null;
  /** Each round's start of every server, us from the round's earliest, ascending (empty with one server). */
  startOffsetsUs: number[][];
  seconds: number;
  /** The senders' retransmitted segments, RTOs and loss probes during the run (nstat). */
  senders: TcpCounters;
}

async function runIncastOnce(
  name: string,
  senders: number,
  spec: IncastSpec,
  signal: AbortSignal | undefined,
): Promise<IncastRun> {
  const state = readState(name);
  if (!state) throw new EnvironmentError(`testbed "${name}" lost its state while the incast ran`);
  // A round that waits for RTOs backing off from 200 ms can take seconds; no run is allowed to hang.
  const timeoutS = Math.min(30 + spec.rounds * 10, MAX_RUN_TIMEOUT_S);
  const argv = [
    process.execPath,
    WORKER,
    '--senders',
    String(senders),
    '--block',
    String(spec.blockBytes),
    '--rounds',
    String(spec.rounds),
    '--port',
    String(INCAST_PORT),
    '--timeout',
    String(timeoutS),
  ];
  const senderNamespaces = state.hostNamespaces.slice(1, senders + 1);
  const before = await portDrops(state.switchNamespace);
  const countersBefore = await tcpCounters(senderNamespaces);
  const hosts = Array.from({ length: senders + 1 }, (_, rank) => rank);
  const results = await Promise.all(
    hosts.map((rank) =>
      execOnHost(state, rank, argv, {
        timeoutS: timeoutS + 5,
        env: { RANK: String(rank), MASTER_ADDR: hostAddress(0) },
        ...(signal ? { signal } : {}),
      }),
    ),
  );
  if (signal?.aborted) throw new EnvironmentError('testbed incast interrupted');
  const failed = results.findIndex((result) => result.exitCode !== 0);
  if (failed >= 0) {
    const result = results[failed]!;
    const why = result.timedOut
      ? `timed out after ${timeoutS} s`
      : `exited ${result.exitCode ?? result.signal}`;
    throw new EnvironmentError(
      `testbed incast: host ${failed} ${why} (${senders} senders): ${result.stderr.trim().split('\n')[0] ?? ''}`,
    );
  }
  const after = await portDrops(state.switchNamespace);
  const countersAfter = await tcpCounters(senderNamespaces);
  const line = results[0]!.stdout.split('\n').find((text) => text.startsWith('{'));
  if (!line) throw new EnvironmentError(`testbed incast: the client printed no result (${senders} senders)`);
  const parsed = JSON.parse(line) as {
    goodputBps: number;
    minRttUs: number | null;
    startGapUs?: number | null;
    startOffsetsUs?: number[][];
    seconds: number;
  };
  return {
    goodputGbps: parsed.goodputBps / 1e9,
    drops: after - before,
    minRttUs: parsed.minRttUs,
    startGapUs: parsed.startGapUs ?? null,
    startOffsetsUs: parsed.startOffsetsUs ?? [],
    seconds: parsed.seconds,
    senders: {
      retransmittedSegments: countersAfter.retransmittedSegments - countersBefore.retransmittedSegments,
      timeouts: countersAfter.timeouts - countersBefore.timeouts,
      lossProbes: countersAfter.lossProbes - countersBefore.lossProbes,
    },
  };
}

type MeasuredRow = Omit<IncastRow, 'simGoodputGbps' | 'ratio' | 'simDrops' | 'simTimeouts'>;

async function measure(
  spec: IncastSpec,
  cc: IncastCc | undefined,
  counts: readonly number[],
  options: IncastOptions,
): Promise<{ rows: MeasuredRow[]; congestionControl: string; slowStartAfterIdle: boolean }> {
  const hosts = Math.max(...spec.senders) + 1;
  const info = await testbedUp({
    name: spec.name,
    hosts,
    rateBps: spec.rateBps,
    bufferBytes: spec.bufferBytes,
  });
  try {
    const congestionControl = await setCongestionControl(info.hostNamespaces, cc);
    const restartAfterIdle = await slowStartAfterIdle(info.hostNamespaces);
    options.onProgress?.(`testbed ${spec.name}: ${hosts} hosts, congestion control ${congestionControl}`);
    const rows: MeasuredRow[] = [];
    for (const senders of counts) {
      const runs: IncastRun[] = [];
      for (let i = 0; i < spec.runs; i++) {
        if (options.signal?.aborted) throw new EnvironmentError('testbed incast interrupted');
        const outcome = await runIncastOnce(spec.name, senders, spec, options.signal);
        runs.push(outcome);
        options.onProgress?.(
          `  ${senders} senders, run ${i + 1}/${spec.runs}: ${(outcome.goodputGbps * 1e3).toFixed(0)} Mb/s, ${outcome.drops} drops, ${outcome.senders.timeouts} RTOs, ${outcome.senders.lossProbes} loss probes${outcome.startGapUs !== null ? `, servers started ${outcome.startGapUs.toFixed(0)} us apart` : ''}`,
        );
      }
      rows.push({
        senders,
        testbedGoodputGbps: median(runs.map((r) => r.goodputGbps)),
        drops: median(runs.map((r) => r.drops)),
        timeouts: median(runs.map((r) => r.senders.timeouts)),
        startGapUs: medianOrNull(runs.map((r) => r.startGapUs)),
        runs,
      });
    }
    return { rows, congestionControl, slowStartAfterIdle: restartAfterIdle };
  } finally {
    await testbedDown(spec.name).catch(() => undefined);
  }
}

/** The median of the values that are numbers; null if none is. */
function medianOrNull(values: readonly (number | null)[]): number | null {
  const numbers = values.filter((value): value is number => value !== null);
  return numbers.length ? median(numbers) : null;
}

export async function testbedIncast(
  spec: IncastSpec,
  options: IncastOptions = {},
): Promise<ResultEnvelope<IncastMetrics>> {
  const cc = validateIncast(spec);
  if (cc !== undefined) requireAllowed(cc);
  // Sender counts in order, once each; one sender always, for the port-rate check.
  const wanted = [...new Set(spec.senders)];
  const counts = [...new Set([1, ...wanted])].sort((a, b) => a - b);
  const loadAverageBefore = loadavg();
  const {
    rows: measured,
    congestionControl,
    slowStartAfterIdle: restartAfterIdle,
  } = await measure(spec, cc, counts, options);
  const loadAverageAfter = loadavg();
  const single = measured.find((row) => row.senders === 1)!;
  const fractionOfRate = (single.testbedGoodputGbps * 1e9) / spec.rateBps;
  const singleSender = {
    goodputGbps: single.testbedGoodputGbps,
    fractionOfRate,
    atLeast: SINGLE_SENDER_MIN_FRACTION,
    ok: fractionOfRate >= SINGLE_SENDER_MIN_FRACTION,
  };
  const simCc = (INCAST_CCS as readonly string[]).includes(congestionControl)
    ? (congestionControl as IncastCc)
    : undefined;
  if (spec.compareSim && simCc === undefined)
    throw new EnvironmentError(
      `--compare-sim: the namespaces run ${congestionControl}, which the simulator does not model (give --cc ${INCAST_CCS.join('|')})`,
    );
  const minRtts = measured
    .flatMap((row) => row.runs.map((r) => r.minRttUs))
    .filter((value): value is number => value !== null);
  const sim = spec.compareSim
    ? incastSimSettings({
        ...spec,
        cc: simCc!,
        minRttUs: minRtts.length ? Math.min(...minRtts) : null,
        slowStartAfterIdle: restartAfterIdle,
      })
    : null;
  const rows: IncastRow[] = [];
  for (const row of measured.filter((each) => wanted.includes(each.senders))) {
    if (!sim) {
      rows.push({ ...row, simGoodputGbps: null, ratio: null, simDrops: null, simTimeouts: null });
      continue;
    }
    // The simulation is synchronous: let a Ctrl-C between rows be seen.
    await new Promise((resolve) => setImmediate(resolve));
    if (options.signal?.aborted)
      throw new EnvironmentError('testbed incast interrupted (the testbed is already removed)');
    options.onProgress?.(`  simulating ${row.senders} senders (seeds ${SIM_SEEDS.join(', ')})`);
    // Every measured round of every run, replayed in turn.
    const simRow = simulateIncastRow(
      sim,
      row.senders,
      row.startGapUs,
      row.runs.flatMap((run) => run.startOffsetsUs),
    );
    const ratio =
      simRow.goodputGbps !== null && row.testbedGoodputGbps > 0
        ? simRow.goodputGbps / row.testbedGoodputGbps
        : null;
    rows.push({
      ...row,
      simGoodputGbps: simRow.goodputGbps,
      ratio,
      simDrops: simRow.drops,
      simTimeouts: simRow.timeouts,
    });
  }
  const findings: Finding[] = [];
  if (!singleSender.ok) {
    findings.push(
      makeFinding('sim.incast-port-rate', {
        severity: 'warn',
        message: `one sender reached ${(fractionOfRate * 100).toFixed(1)}% of the ${spec.rateBps / 1e6} Mb/s port (expected at least ${SINGLE_SENDER_MIN_FRACTION * 100}%): the emulated path is CPU-bound at this rate; compare at a lower --rate`,
      }),
    );
  }
  if (sim && spec.rounds < COMPARE_MIN_ROUNDS) {
    findings.push(
      makeFinding('sim.incast-few-rounds', {
        severity: 'warn',
        message: `${spec.rounds} rounds a run: too few RTOs for the ratios to settle (a row moves 10-30% between sets); use --rounds ${COMPARE_MIN_ROUNDS} or more to compare`,
      }),
    );
  }
  for (const row of rows) {
    if (row.ratio !== null && Math.abs(row.ratio - 1) <= INCAST_TARGET) continue;
    if (!sim) continue;
    findings.push(
      makeFinding('sim.incast-gap', {
        severity: 'warn',
        message: `${row.senders} senders: the simulator ${row.ratio === null ? 'did not finish' : `gives ${(row.ratio * 100).toFixed(0)}% of the testbed's goodput`} (target within ${INCAST_TARGET * 100}%)`,
      }),
    );
  }
  const goodputPoints = rows.flatMap((row) => [
    { senders: row.senders, goodputGbps: row.testbedGoodputGbps, source: 'measured' },
    ...(row.simGoodputGbps !== null
      ? [{ senders: row.senders, goodputGbps: row.simGoodputGbps, source: 'simulated' }]
      : []),
  ]);
  return makeResult<IncastMetrics>(
    'testbed.incast',
    {
      name: spec.name,
      senders: wanted,
      rateBps: spec.rateBps,
      bufferBytes: spec.bufferBytes,
      blockBytes: spec.blockBytes,
      rounds: spec.rounds,
      runs: spec.runs,
      congestionControl,
      compareSim: spec.compareSim,
    },
    {
      congestionControl,
      rows,
      singleSender,
      withinTarget: sim
        ? rows.every((row) => row.ratio !== null && Math.abs(row.ratio - 1) <= INCAST_TARGET)
        : null,
      loadAverageBefore,
      loadAverageAfter,
      sim: sim ? { ...sim, seeds: [...SIM_SEEDS] } : null,
    },
    {
      series: [
        { name: `incast goodput vs senders (${congestionControl})`, unit: 'Gbps', points: goodputPoints },
      ],
      findings,
    },
  );
}
