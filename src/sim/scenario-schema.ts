/**
 * The scenario file: a fabric, its switches, a transport and workloads. Quantities are strings
 * with units (`rate: 100Gbps`, `buffer: 128KiB`, `minRto: 200ms`) parsed with core/units, so a
 * typo is reported at its YAML line like any other schema problem.
 */
import { z } from 'zod';
import { COMPACT_OP_NAMES } from '../core/collectives.js';
import { parseDuration, parseRate, parseSize } from '../core/units.js';
import { CC_NAMES } from './transport/cc/index.js';

function unitField(kind: 'size' | 'rate' | 'duration', allowZero: boolean) {
  return z.union([z.string(), z.number()]).transform((raw, ctx) => {
    try {
      const text = String(raw);
      const value =
        kind === 'size' ? parseSize(text) : kind === 'rate' ? parseRate(text) : parseDuration(text);
      if (value < 0 || (!allowZero && value === 0)) {
        ctx.addIssue({
          code: 'custom',
          message: `must be ${allowZero ? 'zero or more' : 'positive'}, got "${text}"`,
        });
        return z.NEVER;
      }
      return value;
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message.replace(/^invalid /, 'invalid ') });
      return z.NEVER;
    }
  });
}

/** Bytes (`128KiB`, `1M`), bits per second (`100Gbps`), seconds (`200ms`). */
export const sizeField = unitField('size', false);
export const sizeOrZeroField = unitField('size', true);
export const rateField = unitField('rate', false);
export const durationField = unitField('duration', false);
export const durationOrZeroField = unitField('duration', true);

const count = z.number().int().positive();
const hostIndex = z.number().int().nonnegative();

const linkFields = { linkRate: rateField, linkDelay: durationOrZeroField.default(1e-6) };

const topologySchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('star'),
      hosts: count,
      ...linkFields,
      /**
       * Rate of each host's link towards the switch, when it differs from linkRate (the switch's
       * ports towards the hosts): a namespace testbed's host veth is not shaped, only the switch
       * port's egress is (src/testbed/port.ts). Default: linkRate.
       */
      uplinkRate: rateField.optional(),
      /**
       * How the switch's ports towards the hosts send: `wire` (default) serialises each packet at
       * linkRate before it travels; `htb` is the namespace testbed's port, a Linux htb token bucket
       * over a veth: a packet leaves at once when the class has tokens, its time at the rate is
       * charged afterwards (net/sched/sch_htb.c htb_dequeue_tree / htb_charge_class), so the rate holds
       * over time but a packet after idle crosses without delay.
       */
      ports: z.enum(['wire', 'htb']).optional(),
      /**
       * Hosts whose port goes through the namespace testbed's fault hop (a port with a loss or rate
       * fault, src/testbed/hostport.ts): a second switch whose egress towards sw0 is shaped and
       * buffered like the port towards the host, so the host's traffic queues in the switch.
       */
      faultHops: z.array(hostIndex).optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('leaf-spine'),
      hosts: count,
      hostsPerLeaf: count,
      spines: count,
      oversubscription: z.number().positive().default(1),
      ...linkFields,
    })
    .strict(),
  z
    .object({ kind: z.literal('rail'), servers: count, gpusPerServer: count, spines: count, ...linkFields })
    .strict(),
  z.object({ kind: z.literal('fat-tree'), k: count, ...linkFields }).strict(),
  z
    .object({
      kind: z.literal('ring'),
      switches: z.number().int().min(3).max(256),
      hostsPerSwitch: count.default(1),
      /** clockwise (every route turns the same way), shortest (ties clockwise), up-down (deadlock-free). */
      routing: z.enum(['clockwise', 'shortest', 'up-down']).default('shortest'),
      /** Cables that are down, each as the indices of the two adjacent switches it joins. */
      failedCables: z.array(z.tuple([hostIndex, hostIndex])).default([]),
      ...linkFields,
    })
    .strict(),
]);

const ecnSchema = z
  .object({ kmin: sizeOrZeroField, kmax: sizeField, pmax: z.number().min(0).max(1) })
  .strict();

/**
 * PFC watchdog, as switch vendors define it (SONiC "PFC Watchdog Design" wiki; Junos "PFC
 * watchdog"): a lossless queue that holds packets and has sent nothing while paused for the
 * detection time is stormed; for the restoration time its packets, queued and arriving, are dropped
 * and pauses are ignored; then it is lossless again. No default timeout: the scenario says it.
 */
const watchdogSchema = z
  .object({
    timeout: durationField.optional(),
    /** Default: the timeout (Junos defaults both to 200 ms). */
    restoration: durationField.optional(),
  })
  .strict()
  .transform((w, ctx) => {
    if (w.timeout === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['timeout'],
        message:
          'a PFC watchdog needs a timeout: how long a queue may stay paused with packets waiting (e.g. 200ms)',
      });
      return z.NEVER;
    }
    return { timeout: w.timeout, restoration: w.restoration ?? w.timeout };
  });

const pfcSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** `auto` computes the 802.1Qbb bound per ingress port. */
    headroom: z.union([z.literal('auto'), sizeOrZeroField]).default('auto'),
    /**
     * Dynamic XOFF factor on the free shared buffer (the dynamic-threshold scheme applied to
     * ingress, as Broadcom/NVIDIA lossless profiles do); 0 = static XOFF (pool / ports). 1/8 is
     * our default: many paused ingress ports together still leave most of the pool free.
     */
    xoffAlpha: z.number().min(0).default(0.125),
    responseDelay: durationOrZeroField.optional(),
    allowInsufficientHeadroom: z.boolean().default(false),
    /** Off unless given: a lossless egress queue paused with packets for `timeout` is flushed. */
    watchdog: watchdogSchema.optional(),
  })
  .strict();

const switchSchema = z
  .object({
    /** Buffer per port; the switch's shared pool is this times its port count. */
    buffer: sizeField,
    sharing: z.enum(['static', 'dynamic']).default('dynamic'),
    dtAlpha: z.number().positive().default(1),
    ecn: ecnSchema.optional(),
    pfc: pfcSchema.optional(),
  })
  .strict();

/**
 * Linux's receiver and loss-detection defaults for every congestion control but DCTCP, which keeps
 * an ACK per segment without RACK: our receiver ORs CE over the segments one ACK covers and has no
 * immediate ACK on a CE change (RFC 8257 3.2, tcp_dctcp.c dctcp_ece_ack_update), so delayed ACKs
 * would blur DCTCP's marked fraction.
 */
export const TCP_KERNEL_DEFAULTS = {
  /** tcp_input.c __tcp_ack_snd_check: an ACK once more than one full segment is unacknowledged. */
  ackEvery: 2,
  /** TCP_MAX_QUICKACKS (include/net/tcp.h), entered at the start and on a duplicate (tcp_incr_quickack). */
  quickAcks: 16,
  /** net.ipv4.tcp_recovery = 1 (RACK-TLP, RFC 8985), Documentation/networking/ip-sysctl.rst. */
  rack: true,
} as const;
export const TCP_DCTCP_DEFAULTS = { ackEvery: 1, quickAcks: 0, rack: false } as const;

const tcpSchema = z
  .object({
    /** 1500 B Ethernet MTU less 40 B of IPv4 and TCP headers. */
    mss: count.default(1460),
    /** RFC 6928 / Linux TCP_INIT_CWND (include/net/tcp.h). */
    initialCwnd: count.default(10),
    /** Linux TCP_RTO_MIN (200 ms) and TCP_RTO_MAX (120 s), include/net/tcp.h. */
    minRto: durationField.default(0.2),
    maxRto: durationField.default(120),
    /** Congestion control (src/sim/transport/cc); this machine's Linux 6.18 runs bbr (net.ipv4.tcp_congestion_control, tcp_bbr.c). */
    cc: z.enum(CC_NAMES).default('bbr'),
    /** Delayed ACKs: ACK every N in-order segments (1 = every segment); default TCP_KERNEL_DEFAULTS (2; 1 under dctcp). */
    ackEvery: count.optional(),
    /** Linux TCP_DELACK_MIN (HZ/25 = 40 ms), include/net/tcp.h. */
    delayedAckTimeout: durationField.default(0.04),
    /** Segments acknowledged at once at the start and after a duplicate (Linux quick-ACK mode); 0 = none; default 16 (0 under dctcp). */
    quickAcks: z.number().int().nonnegative().optional(),
    /** Selective acknowledgements with RFC 6675 recovery (Linux default, net.ipv4.tcp_sack=1); false: NewReno. */
    sack: z.boolean().default(true),
    /** RACK-TLP loss detection and tail loss probes (RFC 8985; Linux tcp_recovery=1, tcp_early_retrans=3); default on (off under dctcp). Needs sack. */
    rack: z.boolean().optional(),
    /** Segments per packet (TSO/GSO super-packets as a veth testbed carries them; Linux sizes them up to 64 KB). 1 = none. */
    tsoSegments: count.default(1),
    /** Restart from the initial window after an idle period longer than the RTO (Linux net.ipv4.tcp_slow_start_after_idle = 1, RFC 2861); not for bbr, which has its own. */
    slowStartAfterIdle: z.boolean().default(true),
  })
  .strict()
  .transform((t) => {
    const d = t.cc === 'dctcp' ? TCP_DCTCP_DEFAULTS : TCP_KERNEL_DEFAULTS;
    return {
      ...t,
      ackEvery: t.ackEvery ?? d.ackEvery,
      quickAcks: t.quickAcks ?? d.quickAcks,
      rack: t.rack ?? d.rack,
    };
  });

const dcqcnSchema = z
  .object({
    enabled: z.boolean().default(true),
    // Defaults from the DCQCN paper (Zhu et al., SIGCOMM 2015), as listed in shared/data/reference-points.md.
    g: z
      .number()
      .positive()
      .max(1)
      .default(1 / 256),
    timer: durationField.default(55e-6),
    byteCounter: sizeField.default(10 * 1024 * 1024),
    fastRecoveryRounds: count.default(5),
    rai: rateField.optional(),
    rhai: rateField.optional(),
    /** Floor of a throttled rate (ns-3 HPCC simulator's MinRate, 100 Mb/s). */
    minRate: rateField.default(100e6),
    /** Notification point: at most one CNP per flow per 50 us (DCQCN paper, N). */
    cnpInterval: durationOrZeroField.default(50e-6),
  })
  .strict();

const roceSchema = z
  .object({
    /** RoCE path MTU 4096 B, the largest IB MTU and the usual setting for NCCL over RoCE. */
    mtu: count.default(4096),
    /** ACK coalescing of the responder (our default; RC NICs coalesce ACKs for throughput). */
    ackEvery: count.default(16),
    /** IBTA local ACK timeout 4.096 us x 2^14 (exponent 14: a common RDMA CM/perftest default), about 67 ms. */
    retransmitTimeout: durationField.default(4.096e-6 * 2 ** 14),
    dcqcn: dcqcnSchema.prefault({}),
  })
  .strict();

const transportSchema = z
  .object({
    kind: z.enum(['tcp', 'roce']),
    tcp: tcpSchema.prefault({}),
    roce: roceSchema.prefault({}),
  })
  .strict();

const transportChoice = z.enum(['tcp', 'roce']).optional();

/**
 * The collectives the simulator runs, by the compact names its results report (`allreduce`);
 * a scenario may also write nccl-tests' spelling (`all_reduce`), read as the same kind.
 */
export const SIM_COLLECTIVE_KINDS = [
  COMPACT_OP_NAMES.all_reduce,
  COMPACT_OP_NAMES.all_gather,
  COMPACT_OP_NAMES.alltoall,
] as const;
export type SimCollectiveKind = (typeof SIM_COLLECTIVE_KINDS)[number];
const SIM_KIND_BY_SPELLING: Readonly<Record<string, SimCollectiveKind>> = Object.fromEntries(
  Object.entries(COMPACT_OP_NAMES).flatMap(([op, compact]) =>
    isSimCollectiveKind(compact)
      ? [
          [op, compact],
          [compact, compact],
        ]
      : [],
  ),
);
const collectiveKind = z
  .enum(Object.keys(SIM_KIND_BY_SPELLING) as [string, ...string[]])
  .transform((name) => SIM_KIND_BY_SPELLING[name]!);

function isSimCollectiveKind(name: string): name is SimCollectiveKind {
  return (SIM_COLLECTIVE_KINDS as readonly string[]).includes(name);
}
const startField = durationOrZeroField.default(0);

const workloadSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('incast'),
      name: z.string().optional(),
      receiver: hostIndex.default(0),
      /** A count (hosts receiver+1 ..) or an explicit list of hosts. */
      senders: z.union([count, z.array(hostIndex).min(1)]),
      blockSize: sizeField,
      rounds: count.default(1),
      /**
       * Senders begin their block one after another, this far apart, in an order drawn afresh each
       * round from the run's seed (servers woken one by one, as on a testbed whose hosts share a few
       * cores); default 0, all at once. Packet mode.
       */
      startGap: durationOrZeroField.default(0),
      /**
       * Instead of startGap: each round's start offsets, one list per round (cycled), each offset from the
       * round's first start, one per sender, handed to the senders in an order drawn each round; a
       * testbed's measured starts replayed. Packet mode.
       */
      startOffsets: z.array(z.array(durationOrZeroField).min(1)).min(1).optional(),
      start: startField,
      transport: transportChoice,
    })
    .strict(),
  z
    .object({
      kind: z.literal('flow'),
      name: z.string().optional(),
      src: hostIndex,
      dst: hostIndex,
      size: sizeField,
      start: startField,
      transport: transportChoice,
    })
    .strict(),
  z
    .object({
      kind: z.literal('permutation'),
      name: z.string().optional(),
      size: sizeField,
      start: startField,
      transport: transportChoice,
    })
    .strict(),
  z
    .object({
      kind: collectiveKind,
      name: z.string().optional(),
      /** A count (hosts 0..N-1) or an explicit list; default every host. */
      ranks: z.union([count, z.array(hostIndex).min(2)]).optional(),
      size: sizeField,
      /**
       * Ring collectives: cut each step's chunk into slices of at most this size, each forwarded as
       * soon as its slice of the step before has arrived (bench tcp's 1 MiB pipelining, NCCL's
       * slices); default one transfer per step. Packet mode.
       */
      slice: sizeField.optional(),
      iterations: count.default(1),
      compute: z
        .object({ mean: durationOrZeroField.default(0), jitter: durationOrZeroField.default(0) })
        .strict()
        .optional(),
      start: startField,
      transport: transportChoice,
    })
    .strict(),
]);

const pauseStormSchema = z
  .object({
    host: hostIndex,
    start: startField,
    /** How long the NIC keeps the switch paused; default until the run ends. */
    duration: durationField.optional(),
  })
  .strict();

/**
 * A fault on one host's port, as `aifabric testbed --fault hK:loss=P` makes it on the emulated
 * fabric: each packet crossing the cable between the host and its switch, in either direction
 * (data and ACKs alike), is lost with probability `loss`, independently (a bad cable or optic).
 */
const faultSchema = z
  .object({
    host: hostIndex,
    loss: z.number().min(0).lt(1),
  })
  .strict();

export const scenarioSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    seed: z.number().int().optional(),
    topology: topologySchema,
    switch: switchSchema,
    transport: transportSchema,
    workloads: z.array(workloadSchema).min(1),
    /** Host NICs that send PAUSE without end (a stuck receive pipeline, Guo et al., SIGCOMM 2016, section 4.3). */
    pauseStorms: z.array(pauseStormSchema).optional(),
    /** Random loss on host ports (packet mode only). */
    faults: z.array(faultSchema).optional(),
    sim: z
      .object({ maxTime: durationField.default(60), sampleInterval: durationField.default(1e-6) })
      .strict()
      .default({ maxTime: 60, sampleInterval: 1e-6 }),
  })
  .strict();

export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioWorkload = Scenario['workloads'][number];
