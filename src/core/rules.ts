/**
 * Every rule id any engine emits, with its family, a title and where it is documented, and the one
 * constructor of findings. An id missing here does not type-check at the place that emits it, and
 * test/core/rules.test.ts holds each entry to its doc section, so no finding goes undocumented.
 */
import type { Severity } from './envelope.js';

const CHECKS = 'docs/checks.md';
const SIMULATOR = 'docs/simulator.md';

export const RULES = [
  {
    id: 'busbw.plateau',
    family: 'busbw',
    title: 'large-message busbw plateau against the model',
    doc: `${CHECKS}#busbw-bus-bandwidth-nccl-tests`,
  },
  {
    id: 'busbw.wrong',
    family: 'busbw',
    title: '#wrong above zero in a row',
    doc: `${CHECKS}#busbw-bus-bandwidth-nccl-tests`,
  },
  {
    id: 'busbw.out-of-bounds',
    family: 'busbw',
    title: 'out-of-bounds values reported by nccl-tests',
    doc: `${CHECKS}#busbw-bus-bandwidth-nccl-tests`,
  },
  {
    id: 'busbw.avg-reliance',
    family: 'busbw',
    title: 'a gate on the average bus bandwidth',
    doc: `${CHECKS}#busbw-bus-bandwidth-nccl-tests`,
  },
  {
    id: 'busbw.range',
    family: 'busbw',
    title: 'values no measurement gives',
    doc: `${CHECKS}#busbw-bus-bandwidth-nccl-tests`,
  },
  {
    id: 'gdr.nic-distance',
    family: 'gdr',
    title: "each GPU's nearest NIC on PCIe",
    doc: `${CHECKS}#gdr-gpudirect-rdma-path`,
  },
  {
    id: 'gdr.level',
    family: 'gdr',
    title: 'NCCL_NET_GDR_LEVEL admits every GPU path',
    doc: `${CHECKS}#gdr-gpudirect-rdma-path`,
  },
  {
    id: 'gdr.log',
    family: 'gdr',
    title: 'NCCL log says GDR 0 on an RDMA fabric',
    doc: `${CHECKS}#gdr-gpudirect-rdma-path`,
  },
  {
    id: 'rdma.hca-present',
    family: 'rdma',
    title: 'every NCCL_IB_HCA entry names a device',
    doc: `${CHECKS}#rdma-devices-and-addressing`,
  },
  {
    id: 'rdma.port-state',
    family: 'rdma',
    title: 'selected ports ACTIVE and LINK_UP',
    doc: `${CHECKS}#rdma-devices-and-addressing`,
  },
  {
    id: 'rdma.link-layer',
    family: 'rdma',
    title: "link layer matches the fabric's transport",
    doc: `${CHECKS}#rdma-devices-and-addressing`,
  },
  {
    id: 'rdma.rate',
    family: 'rdma',
    title: "active rate at the fabric's line rate",
    doc: `${CHECKS}#rdma-devices-and-addressing`,
  },
  { id: 'rdma.mtu', family: 'rdma', title: 'active MTU 4096', doc: `${CHECKS}#rdma-devices-and-addressing` },
  {
    id: 'rdma.firmware',
    family: 'rdma',
    title: "HCA firmware matches the cluster's",
    doc: `${CHECKS}#rdma-devices-and-addressing`,
  },
  {
    id: 'rdma.gid-index',
    family: 'rdma',
    title: 'NCCL_IB_GID_INDEX names a RoCE v2 GID',
    doc: `${CHECKS}#rdma-devices-and-addressing`,
  },
  {
    id: 'rdma.perftest-bw',
    family: 'rdma',
    title: 'perftest bandwidth against the line rate',
    doc: `${CHECKS}#rdma-devices-and-addressing`,
  },
  {
    id: 'lossless.traffic-class',
    family: 'lossless',
    title: 'NCCL_IB_TC set and the same on every host',
    doc: `${CHECKS}#lossless-pfc-ecn-and-traffic-class-roce`,
  },
  {
    id: 'lossless.pfc-pause',
    family: 'lossless',
    title: 'PFC pause growth and pause storms',
    doc: `${CHECKS}#lossless-pfc-ecn-and-traffic-class-roce`,
  },
  {
    id: 'lossless.discards',
    family: 'lossless',
    title: 'discards on the lossless priority',
    doc: `${CHECKS}#lossless-pfc-ecn-and-traffic-class-roce`,
  },
  {
    id: 'lossless.pfc-priority',
    family: 'lossless',
    title: 'PFC on the RDMA priority and only on it',
    doc: `${CHECKS}#lossless-pfc-ecn-and-traffic-class-roce`,
  },
  {
    id: 'lossless.ecn',
    family: 'lossless',
    title: 'ECN thresholds inside the band for the port speed',
    doc: `${CHECKS}#lossless-pfc-ecn-and-traffic-class-roce`,
  },
  {
    id: 'tcp.sockets',
    family: 'tcp',
    title: 'NCCL sockets per peer against the line rate',
    doc: `${CHECKS}#tcp-nccl-over-sockets`,
  },
  {
    id: 'tcp.buffers',
    family: 'tcp',
    title: 'socket buffer limits against the bandwidth-delay product',
    doc: `${CHECKS}#tcp-nccl-over-sockets`,
  },
  {
    id: 'straggler.busbw',
    family: 'straggler',
    title: 'a host whose busbw plateau is an outlier',
    doc: `${CHECKS}#straggler-one-slow-node`,
  },
  {
    id: 'straggler.latency',
    family: 'straggler',
    title: 'a host whose small-message latency is an outlier',
    doc: `${CHECKS}#straggler-one-slow-node`,
  },
  {
    id: 'virt.hypervisor',
    family: 'virt',
    title: 'a hypervisor or container under the host',
    doc: `${CHECKS}#virt-virtualisation`,
  },
  {
    id: 'trace.straggler',
    family: 'trace',
    title: 'a rank the others wait for',
    doc: `${CHECKS}#trace-per-rank-traces-aifabric-trace`,
  },
  {
    id: 'trace.below-model',
    family: 'trace',
    title: "collectives far below the model's prediction",
    doc: `${CHECKS}#trace-per-rank-traces-aifabric-trace`,
  },
  {
    id: 'trace.unfinished',
    family: 'trace',
    title: 'a collective that never finished (a hang)',
    doc: `${CHECKS}#trace-per-rank-traces-aifabric-trace`,
  },
  {
    id: 'trace.rank-missing',
    family: 'trace',
    title: 'a rank without a trace or without GPU kernels',
    doc: `${CHECKS}#trace-per-rank-traces-aifabric-trace`,
  },
  {
    id: 'trace.clock-aligned',
    family: 'trace',
    title: 'hosts whose clocks were aligned',
    doc: `${CHECKS}#trace-per-rank-traces-aifabric-trace`,
  },
  {
    id: 'accept.pass',
    family: 'accept',
    title: 'no culprit on any host',
    doc: `${CHECKS}#accept-acceptance-across-hosts-aifabric-accept`,
  },
  {
    id: 'accept.node',
    family: 'accept',
    title: 'a host blamed',
    doc: `${CHECKS}#accept-acceptance-across-hosts-aifabric-accept`,
  },
  {
    id: 'accept.link',
    family: 'accept',
    title: 'a link blamed (a pair, or a leaf uplink)',
    doc: `${CHECKS}#accept-acceptance-across-hosts-aifabric-accept`,
  },
  {
    id: 'accept.rail',
    family: 'accept',
    title: 'a rail blamed',
    doc: `${CHECKS}#accept-acceptance-across-hosts-aifabric-accept`,
  },
  {
    id: 'accept.fabric',
    family: 'accept',
    title: 'the fabric blamed',
    doc: `${CHECKS}#accept-acceptance-across-hosts-aifabric-accept`,
  },
  {
    id: 'busbw-regression',
    family: 'runs',
    title: 'busbw fell by more than 5% between two stored runs',
    doc: `${CHECKS}#runs-stored-runs-compared-aifabric-runs-diff`,
  },
  {
    id: 'sim.pfc-victim',
    family: 'sim',
    title: 'a flow slowed by pauses it did not cause',
    doc: `${SIMULATOR}#findings`,
  },
  {
    id: 'sim.lossless-drops',
    family: 'sim',
    title: 'drops in the lossless class',
    doc: `${SIMULATOR}#findings`,
  },
  {
    id: 'sim.pfc-deadlock',
    family: 'sim',
    title: 'paused ports waiting on each other in a cycle',
    doc: `${SIMULATOR}#findings`,
  },
  {
    id: 'sim.pause-storm',
    family: 'sim',
    title: "a NIC's endless pause spreading through the fabric",
    doc: `${SIMULATOR}#findings`,
  },
  {
    id: 'sim.pfc-watchdog',
    family: 'sim',
    title: 'queues the PFC watchdog stormed and drained',
    doc: `${SIMULATOR}#findings`,
  },
  {
    id: 'sim.incast-port-rate',
    family: 'sim',
    title: 'testbed incast: one sender below 90% of the port (the emulated path is the limit)',
    doc: `${SIMULATOR}#findings`,
  },
  {
    id: 'sim.incast-few-rounds',
    family: 'sim',
    title: 'testbed incast --compare-sim with too few rounds for the ratios to settle',
    doc: `${SIMULATOR}#findings`,
  },
  {
    id: 'sim.incast-gap',
    family: 'sim',
    title: 'testbed incast: a row where the simulator is more than 20% off the kernel',
    doc: `${SIMULATOR}#findings`,
  },
] as const satisfies readonly { id: string; family: string; title: string; doc: string }[];

export type Rule = (typeof RULES)[number];
export type RuleId = Rule['id'];
/** The family a rule id belongs to, as the table says. */
export type FamilyOf<Id extends RuleId> = Extract<Rule, { id: Id }>['family'];

const BY_ID: ReadonlyMap<string, Rule> = new Map(RULES.map((rule) => [rule.id, rule]));

/** The table's entry for an id, or undefined for one no engine emits (ids read back from stored results). */
export function ruleById(id: string): Rule | undefined {
  return BY_ID.get(id);
}

/**
 * What a finding says besides its id. `family` is the engine's choice to carry (check and accept do,
 * for JUnit classes and filters; the simulator, trace and runs diff do not), but when given it must
 * be the table's family for the id.
 */
export type FindingFields<Id extends RuleId> = {
  severity: Severity;
  message: string;
  family?: FamilyOf<Id>;
  host?: string;
  evidence?: string;
  remediation?: string;
  ruleId?: never;
} & Record<string, unknown>;

/**
 * The one finding constructor: severity and rule id first, then the fields in the order given (that
 * order is what `--json` prints).
 */
export function makeFinding<Id extends RuleId, F extends FindingFields<Id>>(
  ruleId: Id,
  fields: F,
): { severity: Severity; ruleId: Id } & F {
  // Assigned onto an object that already has both keys, so they keep the first two places.
  return Object.assign({ severity: fields.severity, ruleId }, fields);
}
