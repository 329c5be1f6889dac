/**
 * Whether a host is a virtual machine, from three small captures whose parsers live in the parse
 * room (kinds `virt`, `dmi`, `cpuinfo`): this keeps check's older call shape (facts or null) and
 * the DMI vendor table the virtualisation rule judges with.
 */
import {
  NotThisKindError,
  parseCpuinfo as cpuinfoResult,
  parseDmi as dmiResult,
  parseVirt as virtResult,
  type CpuinfoFacts,
  type DmiFacts,
  type ParseResult,
  type VirtFacts,
} from '../../parse/index.js';

export type { CpuinfoFacts, DmiFacts, VirtFacts } from '../../parse/index.js';

function factsOrNull<F>(parse: (text: string) => ParseResult<F>, text: string): F | null {
  try {
    return parse(text).facts;
  } catch (error) {
    if (error instanceof NotThisKindError) return null;
    throw error;
  }
}

export function parseVirt(text: string): VirtFacts | null {
  return factsOrNull(virtResult, text);
}

export function parseDmi(text: string): DmiFacts | null {
  return factsOrNull(dmiResult, text);
}

export function parseCpuinfo(text: string): CpuinfoFacts | null {
  return factsOrNull(cpuinfoResult, text);
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
