/**
 * Recognise a captured text by content, whatever its file name: first the kinds only `check`
 * reads (they have narrow signatures and must win over looser sniffers), then the parse registry.
 */
import { detectKind, parseAs, NotThisKindError, type ParseWarning } from '../../parse/index.js';
import type { CaptureFactsByKind, CaptureKind } from '../types.js';
import { parseCpuinfo, parseDmi, parseVirt } from './host-identity.js';
import { looksLikeSonicConfigDb, parseSonicConfigDb } from '../qos/sonic-config-db.js';
import { looksLikeMlnxQos, parseMlnxQos } from '../qos/mlnx-qos.js';

export interface Recognised {
  kind: CaptureKind;
  facts: CaptureFactsByKind[CaptureKind];
  warnings: ParseWarning[];
}

function checkOnlyKind(text: string): Recognised | null {
  if (looksLikeSonicConfigDb(text)) {
    const facts = parseSonicConfigDb(text);
    if (facts) return { kind: 'sonic-config-db', facts, warnings: [] };
  }
  if (looksLikeMlnxQos(text)) {
    const facts = parseMlnxQos(text);
    if (facts) return { kind: 'mlnx-qos', facts, warnings: [] };
  }
  const virt = parseVirt(text);
  if (virt) return { kind: 'virt', facts: virt, warnings: [] };
  if (/^processor\s*:\s*\d+\s*$/m.test(text.slice(0, 16 * 1024))) {
    const cpuinfo = parseCpuinfo(text);
    if (cpuinfo) return { kind: 'cpuinfo', facts: cpuinfo, warnings: [] };
  }
  if (text.length < 4096) {
    const dmi = parseDmi(text);
    if (dmi) return { kind: 'dmi', facts: dmi, warnings: [] };
  }
  return null;
}

/** The parsed text, or null when no kind recognises it. Never throws on content. */
export function recogniseText(text: string, kind?: CaptureKind): Recognised | null {
  if (kind === undefined) {
    const own = checkOnlyKind(text);
    if (own) return own;
  }
  const detected = kind ?? detectKind(text)?.kind;
  if (detected === undefined) return null;
  if (detected === 'virt' || detected === 'dmi' || detected === 'cpuinfo' || detected === 'sonic-config-db' || detected === 'mlnx-qos') {
    const own = checkOnlyKind(text);
    return own?.kind === detected ? own : null;
  }
  try {
    const result = parseAs(detected, text);
    return { kind: detected, facts: result.facts as CaptureFactsByKind[CaptureKind], warnings: result.warnings };
  } catch (error) {
    if (error instanceof NotThisKindError) return null;
    throw error;
  }
}
