/**
 * Three small captures that say whether a host is a virtual machine, read by content:
 * - `systemd-detect-virt` output: one word (`none`, `kvm`, `microsoft`, `docker`...), per its man page.
 * - DMI identity as `grep . /sys/class/dmi/id/sys_vendor /sys/class/dmi/id/product_name` prints it
 *   (`/sys/class/dmi/id/sys_vendor:QEMU`), or `sys_vendor: QEMU` lines as `check --live` writes them.
 * - /proc/cpuinfo: the `hypervisor` CPU flag, which Linux sets when CPUID leaf 1 ECX bit 31 is on.
 */

export interface VirtFacts {
  /** systemd-detect-virt's identifier, lower case. */
  technology: string;
  /** VM, container, or none, from the identifier lists in systemd-detect-virt(1). */
  category: 'vm' | 'container' | 'none';
  line: number;
}

export interface DmiFacts {
  sysVendor: string | null;
  productName: string | null;
  sysVendorLine: number | null;
  productNameLine: number | null;
}

export interface CpuinfoFacts {
  processors: number;
  hypervisorFlag: boolean;
  /** First `flags` line, where the hypervisor flag is (or is not) listed. */
  flagsLine: number | null;
  modelName: string | null;
}

// systemd-detect-virt(1), "Recognized virtualization technologies".
const VM_IDS = new Set(['qemu', 'kvm', 'amazon', 'zvm', 'vmware', 'microsoft', 'oracle', 'powervm', 'xen', 'bochs', 'uml', 'parallels', 'bhyve', 'qnx', 'acrn', 'apple', 'sre', 'google', 'vm-other']);
const CONTAINER_IDS = new Set(['openvz', 'lxc', 'lxc-libvirt', 'systemd-nspawn', 'docker', 'podman', 'rkt', 'wsl', 'proot', 'pouch', 'container-other']);

export function parseVirt(text: string): VirtFacts | null {
  const lines = text.split('\n');
  const content = lines.map((line, index) => ({ line: index + 1, value: line.trim() })).filter((entry) => entry.value !== '' && !entry.value.startsWith('$ ') && !entry.value.startsWith('# '));
  if (content.length !== 1) return null;
  const only = content[0]!;
  const technology = only.value.toLowerCase();
  if (technology === 'none') return { technology, category: 'none', line: only.line };
  if (VM_IDS.has(technology)) return { technology, category: 'vm', line: only.line };
  if (CONTAINER_IDS.has(technology)) return { technology, category: 'container', line: only.line };
  return null;
}

const DMI_LINE = /^\s*(?:\/sys\/(?:devices\/virtual\/dmi|class\/dmi)\/id\/)?(sys_vendor|product_name)\s*:\s*(.*?)\s*$/;

export function parseDmi(text: string): DmiFacts | null {
  const facts: DmiFacts = { sysVendor: null, productName: null, sysVendorLine: null, productNameLine: null };
  let seen = 0;
  text.split('\n').forEach((line, index) => {
    const match = DMI_LINE.exec(line);
    if (!match) return;
    seen++;
    if (match[1] === 'sys_vendor') {
      facts.sysVendor = match[2] ?? '';
      facts.sysVendorLine = index + 1;
    } else {
      facts.productName = match[2] ?? '';
      facts.productNameLine = index + 1;
    }
  });
  return seen > 0 ? facts : null;
}

export function parseCpuinfo(text: string): CpuinfoFacts | null {
  const lines = text.split('\n');
  let processors = 0;
  let flagsLine: number | null = null;
  let hypervisorFlag = false;
  let modelName: string | null = null;
  lines.forEach((line, index) => {
    const match = /^([a-z][a-z _]*?)\s*:\s?(.*)$/i.exec(line);
    if (!match) return;
    const key = match[1]!.trim();
    if (key === 'processor') processors++;
    else if (key === 'model name' && modelName === null) modelName = match[2]!.trim();
    else if ((key === 'flags' || key === 'Features') && flagsLine === null) {
      flagsLine = index + 1;
      hypervisorFlag = match[2]!.split(/\s+/).includes('hypervisor');
    }
  });
  return processors > 0 && flagsLine !== null ? { processors, hypervisorFlag, flagsLine, modelName } : null;
}

/** Hypervisor vendors as they appear in DMI sys_vendor / product_name (as systemd's detect-virt table lists them). */
export const DMI_HYPERVISOR_PATTERNS: readonly { pattern: RegExp; name: string }[] = [
  { pattern: /^QEMU/i, name: 'QEMU' },
  { pattern: /^KVM/i, name: 'KVM' },
  { pattern: /^VMware/i, name: 'VMware' },
  { pattern: /^VMW/i, name: 'VMware' },
  { pattern: /^innotek GmbH/i, name: 'VirtualBox' },
  { pattern: /^VirtualBox/i, name: 'VirtualBox' },
  { pattern: /^Xen/i, name: 'Xen' },
  { pattern: /^Bochs/i, name: 'Bochs' },
  { pattern: /^Parallels/i, name: 'Parallels' },
  { pattern: /^BHYVE/i, name: 'bhyve' },
  { pattern: /^Google Compute Engine/i, name: 'Google Compute Engine' },
  { pattern: /^OpenStack/i, name: 'OpenStack' },
  { pattern: /^Virtual Machine$/i, name: 'Hyper-V' },
];
