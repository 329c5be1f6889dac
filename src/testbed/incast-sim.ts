/**
 * The simulator's side of a testbed comparison (`testbed incast --compare-sim`, and the ring under
 * loss of bench/tcp-loss-sweep.mjs): the same traffic as a star scenario in packet mode, given the
 * testbed's settings rather than the simulator's defaults: its port rate and bfifo bytes, its ports'
 * htb token buckets (a packet after idle leaves at once), its unshaped host side (veth speed), its
 * segments per veth packet (GSO_SEGMENTS), the MSS of its 1500-byte MTU with TCP timestamps, the
 * congestion control set in its namespaces, the kernel's delayed and quick ACKs, its restart after
 * idle (net.ipv4.tcp_slow_start_after_idle), and a cable delay
 * from the kernel's own minimum RTT on the testbed.
 */
import { median } from '../core/index.js';
import { runScenario, scenarioSchema, type Scenario } from '../sim/index.js';
import { GSO_SEGMENTS } from './hostport.js';

/** Ethernet MTU of a veth (its default, drivers/net/veth.c leaves ETH_DATA_LEN) less IPv4 (20) and TCP (20) headers. */
const VETH_MTU_BYTES = 1500;
const IP_TCP_HEADER_BYTES = 40;
/** TCP timestamps option padded to 12 bytes (RFC 7323; Linux net.ipv4.tcp_timestamps = 1 by default, TCPOLEN_TSTAMP_ALIGNED). */
const TIMESTAMP_OPTION_BYTES = 12;
/** Linux TCP_INIT_CWND (include/net/tcp.h), RFC 6928. */
const INITIAL_CWND = 10;
/** Linux TCP_RTO_MIN, 200 ms (include/net/tcp.h); the testbed's routes set no rto_min. */
const MIN_RTO_S = 0.2;
/** Linux TCP_DELACK_MIN, HZ/25 = 40 ms (include/net/tcp.h). */
const DELAYED_ACK_S = 0.04;
/** tcp_input.c __tcp_ack_snd_check: an ACK once more than one full segment is unacknowledged. */
const ACK_EVERY = 2;
/** TCP_MAX_QUICKACKS (include/net/tcp.h): segments ACKed at once at the start and after a duplicate. */
const QUICK_ACKS = 16;
/** The target: the median of three seeds per row (issue 13, part 2). */
export const SIM_SEEDS = [1, 2, 3] as const;
/**
 * A star path crosses two cables each way; with no cable delay known (the kernel reported no
 * minimum RTT) the path gets this one, the delay of examples/scenarios/incast-tcp.yaml.
 */
const FALLBACK_LINK_DELAY_S = 10e-6;
/**
 * The hosts' side of each cable: a host's veth is not shaped (only the switch port's egress is,
 * src/testbed/port.ts), so the kernel hands it packets as fast as the CPU goes; the simulator gets
 * the speed a veth reports, 10 Gb/s (drivers/net/veth.c veth_get_link_ksettings: SPEED_10000).
 */
const VETH_SPEED_BPS = 10e9;
/** Queue sampling: 1 ms is plenty for a goodput comparison and keeps long collapsed runs cheap. */
const SAMPLE_INTERVAL_S = 1e-3;

export type IncastCc = 'reno' | 'cubic' | 'bbr';

/** What the simulator is told of a testbed: its ports, its hosts' side and its kernel's TCP. */
export interface TestbedTcpSettings {
  rateBps: number;
  /** Host to switch: the veth's speed (or the port rate, if slower). */
  uplinkRateBps: number;
  bufferBytes: number;
  cc: IncastCc;
  mssBytes: number;
  tsoSegments: number;
  ackEvery: number;
  quickAcks: number;
  delayedAckTimeoutS: number;
  initialCwnd: number;
  minRtoS: number;
  /** net.ipv4.tcp_slow_start_after_idle as the testbed's namespaces have it (Linux's default 1: true). */
  slowStartAfterIdle: boolean;
  /** One cable's delay: a quarter of the kernel's minimum RTT (two cables each way), less nothing else. */
  linkDelayS: number;
}

export interface IncastSimSettings extends TestbedTcpSettings {
  blockBytes: number;
  rounds: number;
}

/** The testbed's settings for the simulator; `minRttUs` from the kernel (ss or ping), if any. */
export function testbedTcpSettings(options: {
  rateBps: number;
  bufferBytes: number;
  cc: IncastCc;
  minRttUs: number | null;
  /** Read from the namespaces' sysctl; Linux's default (1) when not given. */
  slowStartAfterIdle?: boolean;
}): TestbedTcpSettings {
  return {
    rateBps: options.rateBps,
    uplinkRateBps: Math.max(options.rateBps, VETH_SPEED_BPS),
    bufferBytes: options.bufferBytes,
    cc: options.cc,
    mssBytes: VETH_MTU_BYTES - IP_TCP_HEADER_BYTES - TIMESTAMP_OPTION_BYTES,
    tsoSegments: GSO_SEGMENTS,
    ackEvery: ACK_EVERY,
    quickAcks: QUICK_ACKS,
    delayedAckTimeoutS: DELAYED_ACK_S,
    initialCwnd: INITIAL_CWND,
    minRtoS: MIN_RTO_S,
    slowStartAfterIdle: options.slowStartAfterIdle ?? true,
    linkDelayS:
      options.minRttUs !== null && options.minRttUs > 0 ? options.minRttUs / 4 / 1e6 : FALLBACK_LINK_DELAY_S,
  };
}

/** The settings the simulator is given for a testbed incast; `minRttUs` from the kernel (ss), if any. */
export function incastSimSettings(options: {
  rateBps: number;
  bufferBytes: number;
  blockBytes: number;
  rounds: number;
  cc: IncastCc;
  minRttUs: number | null;
  slowStartAfterIdle?: boolean;
}): IncastSimSettings {
  return { ...testbedTcpSettings(options), blockBytes: options.blockBytes, rounds: options.rounds };
}

// The schema reads quantities as text with units, as a scenario file writes them.
const seconds = (value: number): string => `${value}s`;

/** A star of `hosts` with the testbed's ports and its kernel's TCP, around the given workloads. */
function testbedStar(
  settings: TestbedTcpSettings,
  name: string,
  hosts: number,
  rest: {
    workloads: unknown[];
    faults?: { host: number; loss: number }[];
    maxTimeS: number;
    shapedAt?: 'switch' | 'host';
  },
): Scenario {
  // 'host': the simulator's plain star, every cable at the port rate both ways, so each host's own
  // NIC is its bottleneck (a comparison, not the testbed: there only the switch side is shaped).
  // A host with a port fault has the testbed's fault hop too (src/testbed/hostport.ts addHop).
  const faultHops = rest.faults?.map((fault) => fault.host) ?? [];
  const ports =
    rest.shapedAt === 'host'
      ? {}
      : {
          uplinkRate: `${settings.uplinkRateBps}bps`,
          ports: 'htb',
          ...(faultHops.length > 0 ? { faultHops } : {}),
        };
  return scenarioSchema.parse({
    name,
    topology: {
      kind: 'star',
      hosts,
      linkRate: `${settings.rateBps}bps`,
      ...ports,
      linkDelay: seconds(settings.linkDelayS),
    },
    switch: { buffer: String(settings.bufferBytes), sharing: 'static' },
    transport: {
      kind: 'tcp',
      tcp: {
        mss: settings.mssBytes,
        initialCwnd: settings.initialCwnd,
        minRto: seconds(settings.minRtoS),
        cc: settings.cc,
        ackEvery: settings.ackEvery,
        quickAcks: settings.quickAcks,
        delayedAckTimeout: seconds(settings.delayedAckTimeoutS),
        rack: true,
        tsoSegments: settings.tsoSegments,
        slowStartAfterIdle: settings.slowStartAfterIdle,
      },
    },
    workloads: rest.workloads,
    ...(rest.faults ? { faults: rest.faults } : {}),
    sim: { maxTime: seconds(rest.maxTimeS), sampleInterval: seconds(SAMPLE_INTERVAL_S) },
  });
}

/**
 * A ring all_reduce of `sizeBytes` over every host for `iterations`, with random loss `lossRate` on
 * every host's cable (both directions), as bench/tcp-loss-sweep.mjs runs on the testbed with
 * `--fault hK:loss=P`; switch-shaped, each lossy host's port has the testbed's fault hop too (its
 * traffic into the switch queues in a shaped, buffered port, as on the testbed since 2026-12-04).
 */
export function testbedRingScenario(
  settings: TestbedTcpSettings,
  ring: {
    hosts: number;
    sizeBytes: number;
    iterations: number;
    lossRate: number;
    /** Where the rate is enforced: at the switch's ports as on the testbed (default), or on the hosts' cables. */
    shapedAt?: 'switch' | 'host';
    /** Slices per ring step, as `bench tcp` pipelines them (its default 1 MiB); whole steps without. */
    sliceBytes?: number;
  },
): Scenario {
  const faults =
    ring.lossRate > 0
      ? Array.from({ length: ring.hosts }, (_, host) => ({ host, loss: ring.lossRate }))
      : undefined;
  return testbedStar(settings, 'testbed-ring', ring.hosts, {
    workloads: [
      {
        kind: 'allreduce',
        size: String(ring.sizeBytes),
        iterations: ring.iterations,
        ...(ring.sliceBytes !== undefined ? { slice: String(ring.sliceBytes) } : {}),
      },
    ],
    ...(faults ? { faults } : {}),
    maxTimeS: 600,
    ...(ring.shapedAt ? { shapedAt: ring.shapedAt } : {}),
  });
}

/**
 * The incast scenario of one row; `startGapUs`: how far apart the testbed's servers began their blocks
 * (measured by the incast worker), which the simulated senders take in a random order each round.
 */
export function incastScenario(
  settings: IncastSimSettings,
  senders: number,
  startGapUs: number | null = null,
  startOffsetsUs: readonly (readonly number[])[] | null = null,
): Scenario {
  // The measured starts of each round replayed (one offset per sender), else the median gap.
  const offsets = startOffsetsUs?.filter((round) => round.length === senders) ?? [];
  // A generous limit: a collapsed round waits for 200 ms RTOs that back off; a run that still ends
  // at the limit reports no goodput rather than a wrong one.
  return testbedStar(settings, `testbed-incast-${senders}`, senders + 1, {
    workloads: [
      {
        kind: 'incast',
        name: 'incast',
        receiver: 0,
        senders,
        blockSize: String(settings.blockBytes),
        rounds: settings.rounds,
        ...(offsets.length > 0
          ? { startOffsets: offsets.map((round) => round.map((us) => seconds(us / 1e6))) }
          : startGapUs !== null && startGapUs > 0
            ? { startGap: seconds(startGapUs / 1e6) }
            : {}),
      },
    ],
    maxTimeS: Math.max(60, settings.rounds * 10),
  });
}

export interface SimRow {
  /** Median over the seeds; null when no seed finished. */
  goodputGbps: number | null;
  drops: number | null;
  timeouts: number | null;
  perSeed: { seed: number; goodputGbps: number | null; drops: number; timeouts: number }[];
}

export function simulateIncastRow(
  settings: IncastSimSettings,
  senders: number,
  startGapUs: number | null = null,
  startOffsetsUs: readonly (readonly number[])[] | null = null,
): SimRow {
  const scenario = incastScenario(settings, senders, startGapUs, startOffsetsUs);
  const perSeed = SIM_SEEDS.map((seed) => {
    const result = runScenario(scenario, { seed });
    const workload = result.metrics.workloads[0];
    const goodput = workload?.goodputGbps;
    return {
      seed,
      goodputGbps: result.metrics.completed && typeof goodput === 'number' ? goodput : null,
      drops: result.metrics.drops,
      timeouts: result.metrics.timeouts ?? 0,
    };
  });
  const done = perSeed.filter((run) => run.goodputGbps !== null);
  return {
    goodputGbps: done.length ? median(done.map((run) => run.goodputGbps!)) : null,
    drops: median(perSeed.map((run) => run.drops)),
    timeouts: median(perSeed.map((run) => run.timeouts)),
    perSeed,
  };
}
