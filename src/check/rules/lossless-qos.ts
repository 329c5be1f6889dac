/**
 * QoS settings captured from switches (SONiC config_db.json) and NICs (mlnx_qos):
 * - lossless.pfc-priority: PFC is enabled on the RDMA priority, and only on it (every extra
 *   lossless priority is one more class that can spread pauses, and takes headroom buffer).
 * - lossless.ecn: the WRED/ECN profile on the RDMA queue marks (ecn_* not ecn_none) with Kmin and
 *   Kmax inside the band for the port speed, so DCQCN slows senders before PFC has to pause them.
 */
import { makeFinding } from '../../core/rules.js';
import { evidenceAt } from '../evidence.js';
import { rdmaPriority, DEFAULT_RDMA_PRIORITY } from '../rdma-priority.js';
import type { SonicWredProfile } from '../qos/sonic-config-db.js';
import {
  capturesOf,
  type Capture,
  type CheckContext,
  type CheckFinding,
  type HostCaptures,
  type RuleOutput,
} from '../types.js';

/**
 * ECN band per 100 Gb/s of port speed, scaled linearly (thresholds track the bandwidth-delay
 * product). It encloses the published defaults: SONiC AZURE_LOSSLESS 1 MiB / 2 MiB, Cumulus Linux's
 * RoCE threshold of about 1.5 MB; DCQCN's 40G Kmin of 5 KB falls below it at 400G (docs/checks.md).
 */
export const ECN_BAND_PER_100G = { kminMinBytes: 25_000, kminMaxBytes: 1_500_000, kmaxMaxBytes: 3_000_000 };

function clusterPriority(hosts: readonly HostCaptures[]): number {
  const counts = new Map<number, number>();
  for (const host of hosts)
    if (capturesOf(host, 'nccl-env').length > 0) {
      const { priority } = rdmaPriority(host);
      counts.set(priority, (counts.get(priority) ?? 0) + 1);
    }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? DEFAULT_RDMA_PRIORITY;
}

function pfcFinding(
  host: string,
  where: string,
  enabled: readonly number[],
  priority: number,
  evidence: string,
): CheckFinding {
  const base = { family: 'lossless' as const, host, evidence };
  if (!enabled.includes(priority)) {
    return makeFinding('lossless.pfc-priority', {
      ...base,
      severity: 'error',
      message: `${where}: PFC is ${enabled.length === 0 ? 'off on every priority' : `on priority ${enabled.join(',')}`} but RDMA traffic uses priority ${priority}: it is not lossless`,
      remediation: `Enable PFC on priority ${priority} at both ends (mlnx_qos -i IFACE --pfc with a 1 in position ${priority}; SONiC PORT_QOS_MAP pfc_enable).`,
    });
  }
  const extra = enabled.filter((value) => value !== priority);
  if (extra.length > 0) {
    return makeFinding('lossless.pfc-priority', {
      ...base,
      severity: 'warn',
      message: `${where}: PFC is on priority ${enabled.join(',')}; only the RDMA priority ${priority} needs it`,
      remediation: `Disable PFC on priority ${extra.join(',')} unless another lossless class (storage) is deliberately there.`,
    });
  }
  return makeFinding('lossless.pfc-priority', {
    ...base,
    severity: 'pass',
    message: `${where}: PFC on priority ${priority} only`,
  });
}

function checkNicPfc(host: HostCaptures, capture: Capture<'mlnx-qos'>): CheckFinding[] {
  if (capture.facts.pfcEnabled === null) return [];
  const { priority } = rdmaPriority(host);
  const flags = [0, 1, 2, 3, 4, 5, 6, 7]
    .map((value) => (capture.facts.pfcEnabled!.includes(value) ? 1 : 0))
    .join(' ');
  return [
    pfcFinding(
      host.host,
      `${capture.facts.interfaceName ?? 'NIC'} (mlnx_qos)`,
      capture.facts.pfcEnabled,
      priority,
      evidenceAt(capture, capture.facts.pfcLine, `enabled ${flags}`),
    ),
  ];
}

function ecnFinding(
  host: string,
  capture: Capture<'sonic-config-db'>,
  profile: SonicWredProfile,
  ports: string[],
  speedGbps: number | null,
): CheckFinding {
  const base = {
    family: 'lossless' as const,
    host,
    evidence: evidenceAt(
      capture,
      profile.line,
      `WRED_PROFILE ${profile.name} ecn=${profile.ecn ?? '?'} green_min=${profile.greenMinBytes ?? '?'} green_max=${profile.greenMaxBytes ?? '?'}`,
    ),
  };
  const portText =
    ports.length > 3 ? `${ports.slice(0, 3).join(',')} and ${ports.length - 3} more` : ports.join(',');
  if (profile.ecn === null || profile.ecn === 'ecn_none') {
    return makeFinding('lossless.ecn', {
      ...base,
      severity: 'warn',
      message: `profile ${profile.name} on ${portText} does not mark ECN: DCQCN gets no congestion signal and PFC does all the work`,
      remediation: "Set ecn to ecn_all (or ecn_green) on the lossless queue's WRED profile.",
    });
  }
  const kmin = profile.greenMinBytes;
  const kmax = profile.greenMaxBytes;
  if (kmin === null || kmax === null)
    return makeFinding('lossless.ecn', {
      ...base,
      severity: 'warn',
      message: `profile ${profile.name} marks ECN but has no green thresholds`,
      remediation: 'Set green_min_threshold and green_max_threshold.',
    });
  if (kmin >= kmax)
    return makeFinding('lossless.ecn', {
      ...base,
      severity: 'error',
      message: `profile ${profile.name}: Kmin ${kmin} B is not below Kmax ${kmax} B`,
      remediation: 'Set green_min_threshold below green_max_threshold.',
    });
  if (speedGbps === null)
    return makeFinding('lossless.ecn', {
      ...base,
      severity: 'info',
      message: `profile ${profile.name}: Kmin ${kmin} B, Kmax ${kmax} B; port speed unknown, band not checked`,
    });
  const scale = speedGbps / 100;
  const low = ECN_BAND_PER_100G.kminMinBytes * scale;
  const high = ECN_BAND_PER_100G.kminMaxBytes * scale;
  const kmaxHigh = ECN_BAND_PER_100G.kmaxMaxBytes * scale;
  const range = `Kmin ${Math.round(low / 1000)} KB to ${Math.round(high / 1000)} KB, Kmax up to ${Math.round(kmaxHigh / 1000)} KB at ${speedGbps} Gb/s`;
  if (kmin < low || kmin > high || kmax > kmaxHigh) {
    const why =
      kmin < low
        ? 'marks so early that senders slow down on ordinary bursts'
        : 'marks so late that PFC pauses before DCQCN reacts';
    return makeFinding('lossless.ecn', {
      ...base,
      severity: 'warn',
      message: `profile ${profile.name} on ${portText}: Kmin ${kmin} B, Kmax ${kmax} B is outside ${range}: it ${why}`,
      remediation: `Bring the thresholds into ${range}; scale them with the port speed.`,
    });
  }
  return makeFinding('lossless.ecn', {
    ...base,
    severity: 'pass',
    message: `profile ${profile.name}: Kmin ${kmin} B, Kmax ${kmax} B within ${range}`,
  });
}

function checkSwitch(
  host: HostCaptures,
  capture: Capture<'sonic-config-db'>,
  priority: number,
  fallbackSpeedGbps: number | null,
): CheckFinding[] {
  const facts = capture.facts;
  const findings: CheckFinding[] = [];
  // Group ports by their PFC setting so a 64-port switch gives one finding per distinct setting.
  const groups = new Map<string, { enabled: number[]; ports: string[]; line: number }>();
  for (const entry of facts.portQos) {
    if (entry.pfcEnabled === null) continue;
    const key = entry.pfcEnabled.join(',');
    const group = groups.get(key) ?? { enabled: entry.pfcEnabled, ports: [], line: entry.line };
    group.ports.push(entry.port);
    groups.set(key, group);
  }
  for (const [key, group] of groups)
    findings.push(
      pfcFinding(
        host.host,
        `switch ports ${group.ports.length > 3 ? `${group.ports.slice(0, 3).join(',')} and ${group.ports.length - 3} more` : group.ports.join(',')}`,
        group.enabled,
        priority,
        evidenceAt(capture, group.line, `pfc_enable "${key}"`),
      ),
    );
  const onRdmaQueue = facts.queues.filter((queue) => queue.queue === priority);
  const profiles =
    onRdmaQueue.length > 0
      ? [...new Set(onRdmaQueue.map((queue) => queue.wredProfile))]
      : facts.wredProfiles.map((profile) => profile.name);
  for (const name of profiles) {
    const profile = facts.wredProfiles.find((candidate) => candidate.name === name);
    if (!profile) continue;
    const ports = onRdmaQueue.filter((queue) => queue.wredProfile === name).map((queue) => queue.port);
    const speeds = [
      ...new Set(
        ports
          .map((port) => facts.portSpeedsMbps[port])
          .filter((speed): speed is number => speed !== undefined),
      ),
    ];
    // The fastest port using the profile sets the band: thresholds in bytes scale with speed.
    const speedGbps = speeds.length > 0 ? Math.max(...speeds) / 1000 : fallbackSpeedGbps;
    findings.push(ecnFinding(host.host, capture, profile, ports, speedGbps));
  }
  return findings;
}

export function checkQosSettings(context: CheckContext): RuleOutput {
  const priority = clusterPriority(context.hosts);
  const findings: CheckFinding[] = [];
  for (const host of context.hosts) {
    for (const capture of capturesOf(host, 'mlnx-qos')) findings.push(...checkNicPfc(host, capture));
    // Without a PORT table the declared fabric's line rate stands in for the port speed.
    for (const capture of capturesOf(host, 'sonic-config-db'))
      findings.push(...checkSwitch(host, capture, priority, context.fabric?.lineRateGbps ?? null));
  }
  const captured = context.hosts.some(
    (host) => capturesOf(host, 'mlnx-qos').length + capturesOf(host, 'sonic-config-db').length > 0,
  );
  return {
    findings,
    notes: captured
      ? []
      : ['lossless.ecn, lossless.pfc-priority: no mlnx_qos output or SONiC config_db.json captured'],
  };
}
