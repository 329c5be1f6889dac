/**
 * Family `gdr`: can each GPU reach its NIC with GPUDirect RDMA?
 * - gdr.nic-distance: from `nvidia-smi topo -m`, each GPU's nearest NIC (among those NCCL_IB_HCA
 *   selects) is at PIX or PXB (through PCIe switches only); PHB crosses the CPU's host bridge
 *   (warn); NODE or SYS crosses the CPU's fabric or the socket link (error): NCCL's default
 *   NCCL_NET_GDR_LEVEL is PXB, so such GPUs stage through host memory.
 * - gdr.level: NCCL_NET_GDR_LEVEL, when set, admits every GPU's path (NCCL docs, Environment Variables).
 * - gdr.log: NCCL's own log says whether it used GPUDirect (`GDR 0|1`, `via NET/IB/../GDRDMA`).
 */
import { makeFinding } from '../../core/rules.js';
import type { NcclPathType } from '../../parse/index.js';
import { escapeRegExp, evidenceAt, findLine } from '../evidence.js';
import { hcaSelected, hostNccl } from '../host-facts.js';
import {
  capturesOf,
  type Capture,
  type CheckContext,
  type CheckFinding,
  type HostCaptures,
  type RuleFamily,
  type RuleOutput,
} from '../types.js';

const DISTANCE: Record<string, number> = { PIX: 0, PXB: 1, PHB: 2, NODE: 3, SYS: 4, SOC: 4 };
/** From NODE on (across host bridges or sockets) the pair is an error; PHB only warns (docs/checks.md, gdr.nic-distance). */
const FAR_DISTANCE = DISTANCE.NODE!;
// nvidia-smi's NODE (across host bridges of one socket) is NCCL's PHB; SOC is the old name of SYS.
const NCCL_PATH: Record<string, NcclPathType> = {
  PIX: 'PIX',
  PXB: 'PXB',
  PHB: 'PHB',
  NODE: 'PHB',
  SYS: 'SYS',
  SOC: 'SYS',
};
const PATH_ORDER: readonly NcclPathType[] = ['LOC', 'NVL', 'NVB', 'PIX', 'PXB', 'PXN', 'PHB', 'SYS'];

interface GpuPath {
  gpu: string;
  nic: string;
  link: string;
  line: number | null;
}

function gpuPaths(host: HostCaptures, capture: Capture<'nvidia-smi-topo'>): GpuPath[] {
  const list = hostNccl(host).settings?.ibHca ?? null;
  const allowed = capture.facts.nics.filter((nic) => hcaSelected(list, nic.device ?? nic.name));
  return capture.facts.gpus.flatMap((gpu) => {
    const row = capture.facts.matrix[gpu.name] ?? {};
    let best: { nic: string; link: string } | null = null;
    for (const nic of allowed) {
      const link = row[nic.name];
      if (link === undefined || DISTANCE[link] === undefined) continue;
      if (!best || DISTANCE[link] < DISTANCE[best.link]!) best = { nic: nic.device ?? nic.name, link };
    }
    return best
      ? [{ gpu: gpu.name, ...best, line: findLine(capture, new RegExp(`^\\s*${escapeRegExp(gpu.name)}\\s`)) }]
      : [];
  });
}

function describe(paths: readonly GpuPath[]): string {
  return paths.map((path) => `${path.gpu}->${path.nic} ${path.link}`).join(', ');
}

function checkDistance(
  host: HostCaptures,
  capture: Capture<'nvidia-smi-topo'>,
  paths: GpuPath[],
): CheckFinding[] {
  const findings: CheckFinding[] = [];
  const base = { family: 'gdr' as const, host: host.host };
  const far = paths.filter((path) => DISTANCE[path.link]! >= FAR_DISTANCE);
  const bridged = paths.filter((path) => path.link === 'PHB');
  if (far.length > 0) {
    findings.push(
      makeFinding('gdr.nic-distance', {
        ...base,
        severity: 'error',
        message: `${far.length} GPU(s) reach their nearest NIC only across the CPU interconnect: ${describe(far)}`,
        evidence: evidenceAt(capture, far[0]!.line, `${far[0]!.gpu} ${far[0]!.nic} ${far[0]!.link}`),
        remediation:
          "Give each GPU a NIC under the same PCIe switch (check the slot population against the server vendor's GPU/NIC pairing), or restrict NCCL_IB_HCA per rank to the local NIC.",
      }),
    );
  }
  if (bridged.length > 0) {
    findings.push(
      makeFinding('gdr.nic-distance', {
        ...base,
        severity: 'warn',
        message: `${bridged.length} GPU(s) reach their nearest NIC through the CPU's PCIe host bridge (PHB): ${describe(bridged)}; NCCL's default GDR level (PXB) will not use GPUDirect RDMA for them`,
        evidence: evidenceAt(capture, bridged[0]!.line, `${bridged[0]!.gpu} ${bridged[0]!.nic} PHB`),
        remediation:
          "Prefer a NIC behind the GPU's PCIe switch; if none exists, measure with NCCL_NET_GDR_LEVEL=PHB and keep it only if busbw improves.",
      }),
    );
  }
  if (far.length === 0 && bridged.length === 0) {
    findings.push(
      makeFinding('gdr.nic-distance', {
        ...base,
        severity: 'pass',
        message: `all ${paths.length} GPU(s) have a NIC at PIX or PXB`,
        evidence: evidenceAt(
          capture,
          paths[0]?.line,
          describe(paths.slice(0, 2)) + (paths.length > 2 ? ', ...' : ''),
        ),
      }),
    );
  }
  return findings;
}

function checkLevel(host: HostCaptures, paths: GpuPath[]): CheckFinding[] {
  const variable = hostNccl(host).variables.get('NCCL_NET_GDR_LEVEL');
  const level = hostNccl(host).settings?.netGdrLevel;
  if (!variable || !level) return [];
  const base = {
    family: 'gdr' as const,
    host: host.host,
    evidence: evidenceAt(variable.capture, variable.line, `NCCL_NET_GDR_LEVEL=${variable.value}`),
  };
  if (level.level === null) {
    return [
      makeFinding('gdr.level', {
        ...base,
        severity: 'warn',
        message: `NCCL_NET_GDR_LEVEL=${variable.value} is not a value NCCL understands`,
        remediation: 'Use a path type: PIX, PXB, PHB or SYS.',
      }),
    ];
  }
  const allowed = PATH_ORDER.indexOf(level.level);
  const excluded = paths.filter((path) => PATH_ORDER.indexOf(NCCL_PATH[path.link]!) > allowed);
  if (level.level === 'LOC' || excluded.length > 0) {
    return [
      makeFinding('gdr.level', {
        ...base,
        severity: 'warn',
        message:
          level.level === 'LOC'
            ? 'NCCL_NET_GDR_LEVEL=LOC disables GPUDirect RDMA for every GPU'
            : `NCCL_NET_GDR_LEVEL=${level.level} excludes ${excluded.length} GPU(s) whose NIC path is farther: ${describe(excluded)}`,
        remediation:
          'Unset NCCL_NET_GDR_LEVEL unless a measurement showed it helps, or fix the GPU/NIC placement it works around.',
      }),
    ];
  }
  return paths.length > 0
    ? [
        makeFinding('gdr.level', {
          ...base,
          severity: 'pass',
          message: `NCCL_NET_GDR_LEVEL=${level.level} admits every GPU's NIC path`,
        }),
      ]
    : [];
}

function checkLog(context: CheckContext, host: HostCaptures): CheckFinding[] {
  const findings: CheckFinding[] = [];
  if (context.fabric && context.fabric.transport === 'tcp') return findings;
  for (const capture of capturesOf(host, 'nccl-tests')) {
    const off = findLine(capture, /NCCL INFO .*\bGDR 0\b/);
    const on = findLine(capture, /NCCL INFO .*(\bGDR 1\b|\/GDRDMA)/);
    if (off !== null) {
      const text = capture.text?.split('\n')[off - 1]?.trim() ?? 'GDR 0';
      findings.push(
        makeFinding('gdr.log', {
          family: 'gdr',
          severity: 'warn',
          host: host.host,
          message:
            'NCCL reports GDR 0: network transfers stage through host memory instead of GPUDirect RDMA',
          evidence: evidenceAt(capture, off, text.slice(text.indexOf('NCCL INFO'))),
          remediation:
            'Load nvidia-peermem (or use a DMA-BUF capable driver and kernel), check the GPU/NIC PCIe distance and NCCL_NET_GDR_LEVEL; NCCL_DEBUG_SUBSYS=INIT,NET says why.',
        }),
      );
    } else if (on !== null) {
      findings.push(
        makeFinding('gdr.log', {
          family: 'gdr',
          severity: 'pass',
          host: host.host,
          message: 'NCCL used GPUDirect RDMA',
          evidence: evidenceAt(capture, on, 'GDRDMA'),
        }),
      );
    }
  }
  return findings;
}

function run(context: CheckContext): RuleOutput {
  const findings: CheckFinding[] = [];
  const notes: string[] = [];
  for (const host of context.hosts) {
    findings.push(...checkLog(context, host));
    const topos = capturesOf(host, 'nvidia-smi-topo');
    if (topos.length === 0) continue;
    if (context.fabric?.transport === 'tcp') {
      notes.push(
        `gdr.nic-distance: ${host.host}: fabric ${context.fabric.id} uses sockets, GPUDirect RDMA does not apply`,
      );
      continue;
    }
    for (const capture of topos) {
      const paths = gpuPaths(host, capture);
      if (paths.length === 0) {
        notes.push(
          `gdr.nic-distance: ${host.host}: ${capture.source} shows no NIC${capture.facts.nics.length > 0 ? ' selected by NCCL_IB_HCA' : ''}; GPU/NIC distance not checked`,
        );
        continue;
      }
      findings.push(...checkDistance(host, capture, paths), ...checkLevel(host, paths));
    }
  }
  return { findings, notes };
}

export const gdrRules: RuleFamily = { id: 'gdr', title: 'GPUDirect RDMA path', run };
