/**
 * rdma.gid-index (RoCE): NCCL_IB_GID_INDEX must name a RoCE v2 GID on every HCA port a job uses.
 * The index of the v2 IPv4 GID differs between hosts, pods (macvlan/SR-IOV add GIDs) and driver
 * versions, so a value copied from another machine silently picks RoCE v1 (not routable) or nothing.
 * GIDs come from `show_gids` or the GID table of `ibv_devinfo -v`.
 */
import { makeFinding } from '../../core/rules.js';
import { evidenceAt } from '../evidence.js';
import { hostNccl } from '../host-facts.js';
import { capturesOf, type HostCaptures, type RuleOutput } from '../types.js';
import type { PortView } from './rdma-ports.js';

interface GidSeen {
  version: 'v1' | 'v2' | null;
  gid: string;
  evidence: string;
}

function gidAt(host: HostCaptures, view: PortView, index: number): GidSeen | null | undefined {
  let known = false;
  for (const capture of capturesOf(host, 'show-gids')) {
    const entries = capture.facts.entries.filter(
      (entry) => entry.device === view.device && entry.port === view.port,
    );
    if (entries.length > 0) known = true;
    const entry = entries.find((candidate) => candidate.index === index);
    if (entry)
      return {
        version: entry.version,
        gid: entry.gid,
        evidence: evidenceAt(
          capture,
          entry.line,
          `${entry.device} ${entry.port} ${entry.index} ${entry.gid} ${entry.version}`,
        ),
      };
  }
  if (view.ibv && view.ibv.port.gids.length > 0) {
    known = true;
    const gid = view.ibv.port.gids.find((candidate) => candidate.index === index);
    if (gid)
      return {
        version: gid.roceVersion,
        gid: gid.gid,
        evidence: `${view.ibv.capture.source}:${view.ibv.port.line} ${view.device} port ${view.port} GID[${index}] ${gid.gid}, ${gid.type ?? '?'}`,
      };
  }
  // undefined: no GID table for this port at all; null: a table without this index.
  return known ? null : undefined;
}

export function checkGidIndex(host: HostCaptures, ports: readonly PortView[]): RuleOutput {
  const none: RuleOutput = { findings: [], notes: [] };
  const nccl = hostNccl(host);
  const variable = nccl.variables.get('NCCL_IB_GID_INDEX');
  const index = nccl.settings?.ibGidIndex;
  const ethernet = ports.filter((view) => view.linkLayer === null || view.linkLayer === 'Ethernet');
  if (ethernet.length === 0) return none;
  if (!variable || index === null || index === undefined) {
    if (!nccl.settings) return none;
    return {
      findings: [],
      notes: [
        `rdma.gid-index: ${host.host}: NCCL_IB_GID_INDEX not set; NCCL 2.21+ picks a RoCE v2 GID itself (per NCCL_SOCKET_FAMILY), older versions use index 0 (RoCE v1)`,
      ],
    };
  }
  if (index < 0) return none;
  const problems: string[] = [];
  let firstBad: string | undefined;
  let firstGood: string | undefined;
  let checked = 0;
  for (const view of ethernet) {
    const gid = gidAt(host, view, index);
    if (gid === undefined) continue;
    checked++;
    if (gid === null) {
      problems.push(`${view.device}/${view.port} has no GID ${index}`);
      firstBad ??= evidenceAt(variable.capture, variable.line, `NCCL_IB_GID_INDEX=${variable.value}`);
    } else if (gid.version !== 'v2') {
      problems.push(
        `${view.device}/${view.port} GID ${index} is RoCE ${gid.version ?? 'of unknown version'}`,
      );
      firstBad ??= gid.evidence;
    } else {
      firstGood ??= gid.evidence;
    }
  }
  if (checked === 0) {
    return {
      findings: [],
      notes: [
        `rdma.gid-index: ${host.host}: no show_gids or ibv_devinfo -v GID table captured; NCCL_IB_GID_INDEX=${index} not checked`,
      ],
    };
  }
  if (problems.length > 0) {
    const finding = makeFinding('rdma.gid-index', {
      family: 'rdma',
      severity: 'error',
      host: host.host,
      message: `NCCL_IB_GID_INDEX=${index} does not select a RoCE v2 GID: ${problems.join('; ')}`,
      evidence:
        firstBad ?? evidenceAt(variable.capture, variable.line, `NCCL_IB_GID_INDEX=${variable.value}`),
      remediation:
        'Run show_gids on this host (and inside the pod) and set NCCL_IB_GID_INDEX to the index of the v2 GID carrying the RoCE IP, or leave it unset on NCCL 2.21+.',
    });
    return { findings: [finding], notes: [] };
  }
  return {
    findings: [
      makeFinding('rdma.gid-index', {
        family: 'rdma',
        severity: 'pass',
        host: host.host,
        message: `NCCL_IB_GID_INDEX=${index} is a RoCE v2 GID on ${checked} port(s)`,
        evidence: firstGood,
      }),
    ],
    notes: [],
  };
}
