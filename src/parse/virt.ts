/**
 * `systemd-detect-virt` output: one word (`none`, `kvm`, `microsoft`, `docker`...), per its man page.
 * A shell prompt line (`$ systemd-detect-virt`) may stand above it.
 */
import { NotThisKindError, type Parser, type ParseResult } from './types.js';

export interface VirtFacts {
  /** systemd-detect-virt's identifier, lower case. */
  technology: string;
  /** VM, container, or none, from the identifier lists in systemd-detect-virt(1). */
  category: 'vm' | 'container' | 'none';
  line: number;
}

// systemd-detect-virt(1), "Recognized virtualization technologies".
const VM_IDS = new Set([
  'qemu',
  'kvm',
  'amazon',
  'zvm',
  'vmware',
  'microsoft',
  'oracle',
  'powervm',
  'xen',
  'bochs',
  'uml',
  'parallels',
  'bhyve',
  'qnx',
  'acrn',
  'apple',
  'sre',
  'google',
  'vm-other',
]);
const CONTAINER_IDS = new Set([
  'openvz',
  'lxc',
  'lxc-libvirt',
  'systemd-nspawn',
  'docker',
  'podman',
  'rkt',
  'wsl',
  'proot',
  'pouch',
  'container-other',
]);
/** The output is one word: anything longer is not it. */
const MAX_TEXT_CHARS = 4096;

function readVirt(text: string): VirtFacts | null {
  if (text.length > MAX_TEXT_CHARS) return null;
  const lines = text.split(/\r?\n/);
  const content = lines
    .map((line, index) => ({ line: index + 1, value: line.trim() }))
    .filter((entry) => entry.value !== '' && !entry.value.startsWith('$ ') && !entry.value.startsWith('# '));
  if (content.length !== 1) return null;
  const only = content[0]!;
  const technology = only.value.toLowerCase();
  if (technology === 'none') return { technology, category: 'none', line: only.line };
  if (VM_IDS.has(technology)) return { technology, category: 'vm', line: only.line };
  if (CONTAINER_IDS.has(technology)) return { technology, category: 'container', line: only.line };
  return null;
}

export function parseVirt(text: string): ParseResult<VirtFacts> {
  const facts = readVirt(text);
  if (!facts) {
    throw NotThisKindError.atFirstLine('virt', text);
  }
  return { kind: 'virt', facts, warnings: [] };
}

export const virtParser: Parser<VirtFacts> = {
  kind: 'virt',
  description: 'systemd-detect-virt: the virtualisation or container technology, or none',
  detect: (text) => (readVirt(text) ? 0.96 : 0),
  parse: parseVirt,
};
