/**
 * Family `rdma`: the HCAs NCCL will use exist, are up, speak the fabric's link layer at its rate and
 * MTU, run one firmware, and (RoCE) NCCL_IB_GID_INDEX names a RoCE v2 GID on each of them.
 */
import { makeFinding, type RuleId } from '../../core/rules.js';
import { evidenceAt } from '../evidence.js';
import { hostNccl, rdmaDeviceNames, unmatchedHcaEntries } from '../host-facts.js';
import type { CheckContext, CheckFinding, HostCaptures, RuleFamily, RuleOutput } from '../types.js';
import { portEvidence, selectedPorts, type PortView } from './rdma-ports.js';
import { checkFirmware } from './rdma-firmware.js';
import { checkGidIndex } from './rdma-gid.js';
import { checkPerftest } from './perftest.js';

/** A port trained below 95% of the fabric's rate lost lanes or speed (4X to 2X, 400G to 200G). */
const RATE_TOLERANCE = 0.95;
const RDMA_MTU_BYTES = 4096;

type PortRuleId = Extract<
  RuleId,
  'rdma.hca-present' | 'rdma.port-state' | 'rdma.link-layer' | 'rdma.rate' | 'rdma.mtu'
>;

function finding(
  host: HostCaptures,
  ruleId: PortRuleId,
  severity: CheckFinding['severity'],
  message: string,
  evidence?: string,
  remediation?: string,
): CheckFinding {
  return makeFinding(ruleId, {
    family: 'rdma',
    severity,
    host: host.host,
    message,
    ...(evidence ? { evidence } : {}),
    ...(remediation ? { remediation } : {}),
  });
}

function list(views: readonly PortView[], value: (view: PortView) => string): string {
  return views.map((view) => `${view.device}/${view.port} ${value(view)}`).join(', ');
}

function checkHcaPresent(host: HostCaptures): CheckFinding[] {
  const nccl = hostNccl(host);
  const hcaList = nccl.settings?.ibHca;
  const variable = nccl.variables.get('NCCL_IB_HCA');
  const devices = rdmaDeviceNames(host);
  if (!hcaList || !variable || devices.length === 0) return [];
  const missing = unmatchedHcaEntries(hcaList, devices);
  const evidence = evidenceAt(variable.capture, variable.line, `NCCL_IB_HCA=${variable.value}`);
  if (missing.length > 0) {
    return [
      finding(
        host,
        'rdma.hca-present',
        'error',
        `NCCL_IB_HCA names ${missing.join(', ')}, which this host does not have (it has ${devices.join(', ')})`,
        evidence,
        'Fix NCCL_IB_HCA for this node type, or find why the device is missing (driver not loaded, VF not passed into the pod).',
      ),
    ];
  }
  return [finding(host, 'rdma.hca-present', 'pass', `every NCCL_IB_HCA entry matches a device`, evidence)];
}

function checkPorts(context: CheckContext, host: HostCaptures, ports: PortView[]): CheckFinding[] {
  const findings: CheckFinding[] = [];
  const down = ports.filter(
    (view) =>
      (view.state !== null && view.state !== 'ACTIVE') ||
      (view.physState !== null && view.physState !== 'LINK_UP'),
  );
  const known = ports.filter((view) => view.state !== null || view.physState !== null);
  const state = (view: PortView): string => `${view.state ?? '?'}/${view.physState ?? '?'}`;
  if (known.length === 0) {
    // Only show_gids named these ports: their state is unknown, nothing to judge.
  } else if (down.length > 0) {
    // Named in NCCL_IB_HCA, a down port breaks the job's plan; without it NCCL skips down ports, so it may be a spare.
    const named = hostNccl(host).settings?.ibHca != null;
    const message = named
      ? `${down.length} port(s) NCCL_IB_HCA selects are not ACTIVE and LINK_UP: ${list(down, state)}`
      : `${down.length} port(s) are not ACTIVE and LINK_UP: ${list(down, state)}; NCCL_IB_HCA is not captured, so NCCL may simply skip them`;
    findings.push(
      finding(
        host,
        'rdma.port-state',
        named ? 'error' : 'warn',
        message,
        portEvidence(down[0]!, `state ${state(down[0]!)}`),
        'Check the cable and switch port (ibstat, mlxlink -d DEV), the subnet manager on InfiniBand, and exclude the HCA from NCCL_IB_HCA until fixed.',
      ),
    );
  } else {
    findings.push(
      finding(
        host,
        'rdma.port-state',
        'pass',
        `${known.length} port(s) ACTIVE and LINK_UP`,
        portEvidence(known[0]!, `state ${state(known[0]!)}`),
      ),
    );
  }
  const fabric = context.fabric;
  if (!fabric || fabric.transport === 'tcp') return findings;
  const wantLayer = fabric.transport === 'roce' ? 'Ethernet' : 'InfiniBand';
  const layered = ports.filter((view) => view.linkLayer !== null);
  const wrongLayer = layered.filter((view) => view.linkLayer !== wantLayer);
  if (wrongLayer.length > 0) {
    findings.push(
      finding(
        host,
        'rdma.link-layer',
        'error',
        `${wrongLayer.length} port(s) run ${wrongLayer[0]!.linkLayer} on a ${fabric.transport === 'roce' ? 'RoCE' : 'InfiniBand'} fabric: ${list(wrongLayer, (view) => view.linkLayer ?? '')}`,
        portEvidence(wrongLayer[0]!, `link_layer ${wrongLayer[0]!.linkLayer}`),
        `Set the port type to ${wantLayer === 'Ethernet' ? 'ETH' : 'IB'} (mlxconfig -d DEV set LINK_TYPE_P1=${wantLayer === 'Ethernet' ? 2 : 1}) and reboot, or declare the right fabric.`,
      ),
    );
  } else if (layered.length > 0) {
    findings.push(
      finding(
        host,
        'rdma.link-layer',
        'pass',
        `${layered.length} port(s) on ${wantLayer}`,
        portEvidence(layered[0]!, `link_layer ${wantLayer}`),
      ),
    );
  }
  // A port that is down reports a meaningless rate and MTU (2.5 Gb/s, 1024): the port-state finding covers it.
  const up = ports.filter((view) => !down.includes(view));
  const rated = up.filter((view) => view.activeRateGbps !== null);
  const slow = rated.filter((view) => view.activeRateGbps! < fabric.lineRateGbps * RATE_TOLERANCE);
  const rate = (view: PortView): string =>
    `${view.ibv?.port.activeWidthLanes ?? '?'}X x ${view.ibv?.port.activeSpeedGbpsPerLane ?? '?'} Gb/s = ${view.activeRateGbps} Gb/s`;
  if (slow.length > 0) {
    findings.push(
      finding(
        host,
        'rdma.rate',
        'error',
        `${slow.length} port(s) trained below the fabric's ${fabric.lineRateGbps} Gb/s: ${list(slow, rate)}`,
        portEvidence(slow[0]!, rate(slow[0]!)),
        'Check the cable and transceiver (mlxlink -d DEV shows the negotiated speed and errors) and the switch port speed setting.',
      ),
    );
  } else if (rated.length > 0) {
    findings.push(
      finding(
        host,
        'rdma.rate',
        'pass',
        `${rated.length} port(s) at ${fabric.lineRateGbps} Gb/s or above`,
        portEvidence(rated[0]!, rate(rated[0]!)),
      ),
    );
  }
  const withMtu = up.filter((view) => view.activeMtuBytes !== null);
  const small = withMtu.filter((view) => view.activeMtuBytes! < RDMA_MTU_BYTES);
  if (small.length > 0) {
    findings.push(
      finding(
        host,
        'rdma.mtu',
        'warn',
        `${small.length} port(s) run an active MTU below 4096: ${list(small, (view) => String(view.activeMtuBytes))}`,
        portEvidence(small[0]!, `active_mtu ${small[0]!.activeMtuBytes}`),
        fabric.transport === 'roce'
          ? 'Raise the netdev MTU to 9000 (ip link set DEV mtu 9000) and the switch ports to at least 4200 so RoCE can use 4096-byte packets.'
          : 'Set the subnet MTU to 4096 in the subnet manager partition configuration.',
      ),
    );
  } else if (withMtu.length > 0) {
    findings.push(
      finding(
        host,
        'rdma.mtu',
        'pass',
        `${withMtu.length} port(s) at active MTU 4096`,
        portEvidence(withMtu[0]!, 'active_mtu 4096'),
      ),
    );
  }
  return findings;
}

function run(context: CheckContext): RuleOutput {
  const findings: CheckFinding[] = [];
  const notes: string[] = [];
  for (const host of context.hosts) {
    findings.push(...checkHcaPresent(host));
    const ports = selectedPorts(host);
    if (ports.length === 0) continue;
    findings.push(...checkPorts(context, host, ports));
    if (context.fabric?.transport === 'roce') {
      const gid = checkGidIndex(host, ports);
      findings.push(...gid.findings);
      notes.push(...gid.notes);
    }
  }
  findings.push(...checkFirmware(context.hosts));
  const perftest = checkPerftest(context);
  findings.push(...perftest.findings);
  notes.push(...perftest.notes);
  return { findings, notes };
}

export const rdmaRules: RuleFamily = { id: 'rdma', title: 'RDMA devices and addressing', run };
