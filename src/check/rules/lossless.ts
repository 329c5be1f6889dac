/**
 * Family `lossless` (RoCE): the host side of a lossless Ethernet fabric.
 * - lossless.traffic-class: NCCL_IB_TC is set (else RoCE leaves on DSCP 0, the lossy class) and
 *   the same on every host.
 * - lossless.pfc-pause: per-priority PFC pause counters of `ethtool -S` that grow between two
 *   captures of one interface, and mlx5's pause-storm watchdog events.
 * - lossless.discards: receive discards on the lossless priority, which PFC exists to prevent.
 * ECN and PFC settings of switches and NICs are in lossless-qos.ts.
 */
import { makeFinding } from '../../core/rules.js';
import type { EthtoolFacts } from '../../parse/index.js';
import { evidenceAt, findLine } from '../evidence.js';
import { hostNccl } from '../host-facts.js';
import { rdmaPriority } from '../rdma-priority.js';
import {
  capturesOf,
  type Capture,
  type CheckContext,
  type CheckFinding,
  type HostCaptures,
  type RuleFamily,
  type RuleOutput,
} from '../types.js';
import { checkQosSettings } from './lossless-qos.js';

function checkTrafficClass(hosts: readonly HostCaptures[]): CheckFinding[] {
  const withEnv = hosts.filter((host) => capturesOf(host, 'nccl-env').length > 0);
  const values = new Map<string, number>();
  for (const host of withEnv) {
    const tc = hostNccl(host).settings?.ibTc;
    if (tc !== null && tc !== undefined) values.set(host.host, tc);
  }
  const counts = new Map<number, number>();
  for (const value of values.values()) counts.set(value, (counts.get(value) ?? 0) + 1);
  const common = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0];
  return withEnv.map((host) => {
    const variable = hostNccl(host).variables.get('NCCL_IB_TC');
    const tc = values.get(host.host);
    const base = { family: 'lossless' as const, host: host.host };
    if (!variable || tc === undefined) {
      return makeFinding('lossless.traffic-class', {
        ...base,
        severity: 'warn',
        message:
          "NCCL_IB_TC is not set: RoCE traffic leaves with DSCP 0 and lands in the switch's default (lossy) class unless the NIC rewrites it",
        evidence: `${capturesOf(host, 'nccl-env')[0]!.source} (no NCCL_IB_TC)`,
        remediation:
          "Set NCCL_IB_TC to the lossless class (106 = DSCP 26, priority 3, on NVIDIA's default mapping) on every rank, or set the NIC default (cma_roce_tos / sysfs traffic_class).",
      });
    }
    if (counts.size > 1 && tc !== common) {
      return makeFinding('lossless.traffic-class', {
        ...base,
        severity: 'error',
        message: `NCCL_IB_TC=${tc} here but ${common} on most hosts: traffic from this host takes another class`,
        evidence: evidenceAt(variable.capture, variable.line, `NCCL_IB_TC=${variable.value}`),
        remediation: 'Set one NCCL_IB_TC across the job (launcher environment, not per-node profiles).',
      });
    }
    return makeFinding('lossless.traffic-class', {
      ...base,
      severity: 'pass',
      message: `NCCL_IB_TC=${tc}${values.size > 1 ? ', the same on every host' : ''}`,
      evidence: evidenceAt(variable.capture, variable.line, `NCCL_IB_TC=${variable.value}`),
    });
  });
}

/** Counters only grow, so the capture with the most traffic is the later one, whatever the file names. */
function progress(facts: EthtoolFacts): number {
  const counters = facts.counters;
  return (
    (counters.rx_packets ?? 0) +
    (counters.tx_packets ?? 0) +
    (counters.rx_bytes ?? 0) +
    (counters.tx_bytes ?? 0) +
    Object.values(counters).reduce((sum, value) => sum + value, 0) * 1e-9
  );
}

/**
 * Without `# ethtool -S IFACE` in the capture the interface is unknown; then captures pair by file
 * name with the before/after marker removed (eth2.before, eth2.after; x.t0, x.t1), so counters of two
 * different interfaces are never compared.
 */
export function interfaceKey(capture: Capture<'ethtool'>): string {
  if (capture.facts.interfaceName) return capture.facts.interfaceName;
  return `${capture.source.replace(/[-_.](before|after|pre|post|start|end|begin|t\d+|\d+)(\.(txt|log|out))?$/i, '')} (interface not named)`;
}

function byInterface(host: HostCaptures): Map<string, Capture<'ethtool'>[]> {
  const groups = new Map<string, Capture<'ethtool'>[]>();
  for (const capture of capturesOf(host, 'ethtool')) {
    const name = interfaceKey(capture);
    groups.set(name, [...(groups.get(name) ?? []), capture]);
  }
  for (const list of groups.values()) list.sort((a, b) => progress(a.facts) - progress(b.facts));
  return groups;
}

const delta = (before: number | null | undefined, after: number | null | undefined): number =>
  before == null || after == null ? 0 : Math.max(0, after - before);

function counterEvidence(
  capture: Capture<'ethtool'>,
  name: string,
  value: number | null | undefined,
): string {
  return evidenceAt(capture, findLine(capture, new RegExp(`^\\s*${name}:`)), `${name}: ${value ?? '?'}`);
}

function checkPauses(
  host: HostCaptures,
  iface: string,
  captures: Capture<'ethtool'>[],
  priority: number,
): RuleOutput {
  const last = captures[captures.length - 1]!;
  const base = { family: 'lossless' as const, host: host.host };
  const stormEvents =
    (last.facts.linkPause.txPauseStormErrorEvents ?? 0) +
    (last.facts.linkPause.txPauseStormWarningEvents ?? 0);
  if (stormEvents > 0) {
    const storm = makeFinding('lossless.pfc-pause', {
      ...base,
      severity: 'error',
      message: `${iface}: the NIC's pause-storm watchdog fired ${stormEvents} time(s): a receiver stopped draining and paused its link`,
      evidence: counterEvidence(
        last,
        'tx_pause_storm_error_events',
        last.facts.linkPause.txPauseStormErrorEvents,
      ),
      remediation:
        'Find the host that stopped draining (a hung GPU process, a stuck PCIe device); check PFC watchdog logs on the switch.',
    });
    return { findings: [storm], notes: [] };
  }
  if (captures.length < 2) {
    return {
      findings: [],
      notes: [
        `lossless.pfc-pause: ${host.host}: one ethtool -S capture of ${iface}; capture it before and after a run to see pause growth`,
      ],
    };
  }
  const first = captures[0]!;
  const grown = last.facts.priorities.flatMap((after) => {
    const before = first.facts.priorities.find((entry) => entry.priority === after.priority);
    const rx = delta(before?.rxPause, after.rxPause);
    const tx = delta(before?.txPause, after.txPause);
    return rx + tx > 0
      ? [
          {
            priority: after.priority,
            rx,
            tx,
            durationUs:
              delta(before?.rxPauseDurationUs, after.rxPauseDurationUs) +
              delta(before?.txPauseDurationUs, after.txPauseDurationUs),
          },
        ]
      : [];
  });
  if (grown.length > 0) {
    const worst = grown.reduce((a, b) => (b.rx + b.tx > a.rx + a.tx ? b : a));
    const other = grown.filter((entry) => entry.priority !== priority);
    const grew = makeFinding('lossless.pfc-pause', {
      ...base,
      severity: 'warn',
      message: `${iface}: PFC pauses grew between ${first.source} and ${last.source}: ${grown.map((entry) => `prio ${entry.priority} rx +${entry.rx} tx +${entry.tx}${entry.durationUs ? ` (${entry.durationUs} us paused)` : ''}`).join(', ')}${other.length > 0 ? `; priority ${other.map((entry) => entry.priority).join(',')} is not the RDMA priority ${priority}` : ''}`,
      evidence: counterEvidence(
        last,
        `tx_prio${worst.priority}_pause`,
        last.facts.priorities.find((entry) => entry.priority === worst.priority)?.txPause,
      ),
      remediation:
        'tx pauses: this host cannot drain (PCIe, GPU memory, rx_out_of_buffer); rx pauses: the fabric is congested. Check ECN marking (DCQCN should act before PFC) and the switch buffers.',
    });
    return { findings: [grew], notes: [] };
  }
  return {
    findings: [
      makeFinding('lossless.pfc-pause', {
        ...base,
        severity: 'pass',
        message: `${iface}: no PFC pause growth between ${captures.length} captures`,
        evidence: counterEvidence(
          last,
          `rx_prio${priority}_pause`,
          last.facts.priorities.find((entry) => entry.priority === priority)?.rxPause,
        ),
      }),
    ],
    notes: [],
  };
}

function checkDiscards(
  host: HostCaptures,
  iface: string,
  captures: Capture<'ethtool'>[],
  priority: number,
): CheckFinding[] {
  const last = captures[captures.length - 1]!;
  const after = last.facts.priorities.find((entry) => entry.priority === priority)?.rxDiscards;
  if (after === null || after === undefined) return [];
  const name = `rx_prio${priority}_discards`;
  const base = { family: 'lossless' as const, host: host.host, evidence: counterEvidence(last, name, after) };
  if (captures.length >= 2) {
    const grew = delta(
      captures[0]!.facts.priorities.find((entry) => entry.priority === priority)?.rxDiscards,
      after,
    );
    if (grew > 0) {
      return [
        makeFinding('lossless.discards', {
          ...base,
          severity: 'error',
          message: `${iface}: ${grew} packet(s) discarded on the lossless priority ${priority} between captures`,
          remediation:
            'PFC is not protecting this priority: check that PFC is enabled for it on the NIC (mlnx_qos) and the switch port, and the headroom buffers.',
        }),
      ];
    }
  } else if (after > 0) {
    return [
      makeFinding('lossless.discards', {
        ...base,
        severity: 'warn',
        message: `${iface}: ${after} packet(s) discarded on the lossless priority ${priority} since the counters were last reset`,
        remediation: 'Capture ethtool -S before and after a run to see whether discards still happen.',
      }),
    ];
  }
  return [
    makeFinding('lossless.discards', {
      ...base,
      severity: 'pass',
      message: `${iface}: no discards on the lossless priority ${priority}`,
    }),
  ];
}

function run(context: CheckContext): RuleOutput {
  const findings: CheckFinding[] = [];
  const notes: string[] = [];
  if (context.fabric && context.fabric.transport !== 'roce') return { findings, notes };
  if (context.fabric?.transport === 'roce') findings.push(...checkTrafficClass(context.hosts));
  for (const host of context.hosts) {
    const { priority } = rdmaPriority(host);
    for (const [iface, captures] of byInterface(host)) {
      const pauses = checkPauses(host, iface, captures, priority);
      findings.push(...pauses.findings, ...checkDiscards(host, iface, captures, priority));
      notes.push(...pauses.notes);
    }
  }
  const qos = checkQosSettings(context);
  findings.push(...qos.findings);
  notes.push(...qos.notes);
  return { findings, notes };
}

export const losslessRules: RuleFamily = { id: 'lossless', title: 'Lossless transport (PFC, ECN)', run };
