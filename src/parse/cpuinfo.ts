/**
 * /proc/cpuinfo: the processor count, the model name and the `hypervisor` CPU flag, which Linux
 * sets when CPUID leaf 1 ECX bit 31 is on (arch/x86/kernel/cpu; `Features` on arm64).
 */
import { NotThisKindError, type Parser, type ParseResult } from './types.js';

export interface CpuinfoFacts {
  processors: number;
  hypervisorFlag: boolean;
  /** First `flags` line, where the hypervisor flag is (or is not) listed. */
  flagsLine: number | null;
  modelName: string | null;
}

const DETECT_PREFIX_CHARS = 16 * 1024;

function readCpuinfo(text: string): CpuinfoFacts | null {
  let processors = 0;
  let flagsLine: number | null = null;
  let hypervisorFlag = false;
  let modelName: string | null = null;
  text.split(/\r?\n/).forEach((line, index) => {
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

function detectCpuinfo(text: string): number {
  const head = text.slice(0, DETECT_PREFIX_CHARS);
  if (!/^processor\s*:\s*\d+\s*$/m.test(head)) return 0;
  return /^(?:flags|Features)\s*:/m.test(head) ? 0.96 : 0;
}

export function parseCpuinfo(text: string): ParseResult<CpuinfoFacts> {
  const facts = readCpuinfo(text);
  if (!facts) {
    throw NotThisKindError.atFirstLine('cpuinfo', text);
  }
  return { kind: 'cpuinfo', facts, warnings: [] };
}

export const cpuinfoParser: Parser<CpuinfoFacts> = {
  kind: 'cpuinfo',
  description: '/proc/cpuinfo: processor count, model name and the hypervisor flag',
  detect: detectCpuinfo,
  parse: parseCpuinfo,
};
