/**
 * Family `virt`: a hypervisor between the job and the hardware (systemd-detect-virt, DMI vendor,
 * the cpuinfo `hypervisor` flag). Multi-node training on VMs loses bandwidth and adds latency
 * unless the NICs are passed through (SR-IOV, PCIe passthrough) and the vCPU/NUMA layout matches
 * the host; a warning says to verify that, not that it is wrong. Containers are reported as info.
 */
import { makeFinding } from '../../core/rules.js';
import { evidenceAt } from '../evidence.js';
import { DMI_HYPERVISOR_PATTERNS } from '../collect/host-identity.js';
import {
  capturesOf,
  type CheckContext,
  type CheckFinding,
  type HostCaptures,
  type RuleFamily,
  type RuleOutput,
} from '../types.js';

interface Signal {
  vm: boolean;
  container: boolean;
  what: string;
  evidence: string;
}

function signals(host: HostCaptures): Signal[] {
  const found: Signal[] = [];
  for (const capture of capturesOf(host, 'virt')) {
    const { technology, category, line } = capture.facts;
    found.push({
      vm: category === 'vm',
      container: category === 'container',
      what: `systemd-detect-virt: ${technology}`,
      evidence: evidenceAt(capture, line, technology),
    });
  }
  for (const capture of capturesOf(host, 'dmi')) {
    const { sysVendor, productName } = capture.facts;
    const named = [sysVendor, productName]
      .map((value) =>
        value ? DMI_HYPERVISOR_PATTERNS.find((entry) => entry.pattern.test(value))?.name : undefined,
      )
      .find((name) => name !== undefined);
    // Amazon EC2 names both VMs and bare-metal instances; metal ones say so in the product name.
    const amazonVm =
      sysVendor !== null && /^Amazon EC2/i.test(sysVendor) && !(productName ?? '').includes('metal');
    const vm = named !== undefined || amazonVm;
    const line =
      vm && named === undefined
        ? capture.facts.sysVendorLine
        : (capture.facts.sysVendorLine ?? capture.facts.productNameLine);
    found.push({
      vm,
      container: false,
      what: `DMI: ${sysVendor ?? '?'} / ${productName ?? '?'}${vm ? ` (${named ?? 'Amazon EC2 virtual instance'})` : ''}`,
      evidence: evidenceAt(capture, line, `${sysVendor ?? ''} ${productName ?? ''}`.trim()),
    });
  }
  for (const capture of capturesOf(host, 'cpuinfo')) {
    found.push({
      vm: capture.facts.hypervisorFlag,
      container: false,
      what: `cpuinfo: ${capture.facts.hypervisorFlag ? 'hypervisor flag set' : 'no hypervisor flag'}`,
      evidence: evidenceAt(
        capture,
        capture.facts.flagsLine,
        capture.facts.hypervisorFlag ? 'flags: ... hypervisor ...' : 'flags without hypervisor',
      ),
    });
  }
  return found;
}

function run(context: CheckContext): RuleOutput {
  const findings: CheckFinding[] = [];
  for (const host of context.hosts) {
    const found = signals(host);
    if (found.length === 0) continue;
    const vm = found.filter((signal) => signal.vm);
    const container = found.filter((signal) => signal.container);
    const base = { family: 'virt' as const, host: host.host };
    if (vm.length > 0) {
      findings.push(
        makeFinding('virt.hypervisor', {
          ...base,
          severity: 'warn',
          message: `running under a hypervisor (${vm.map((signal) => signal.what).join('; ')}): multi-node training needs the NICs passed through and the vCPU/NUMA layout pinned`,
          evidence: vm[0]!.evidence,
          remediation:
            'Confirm the RDMA NICs are SR-IOV VFs or passthrough devices (ibv_devinfo lists them), GPUDirect RDMA works (gdr checks), and compare busbw with a bare-metal node.',
        }),
      );
    } else if (container.length > 0) {
      findings.push(
        makeFinding('virt.hypervisor', {
          ...base,
          severity: 'info',
          message: `running in a container (${container.map((signal) => signal.what).join('; ')}); no hypervisor detected`,
          evidence: container[0]!.evidence,
        }),
      );
    } else {
      findings.push(
        makeFinding('virt.hypervisor', {
          ...base,
          severity: 'pass',
          message: `no hypervisor detected (${found.map((signal) => signal.what).join('; ')})`,
          evidence: found[0]!.evidence,
        }),
      );
    }
  }
  return { findings, notes: [] };
}

export const virtualisationRules: RuleFamily = { id: 'virt', title: 'Virtualisation', run };
