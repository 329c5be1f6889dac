/**
 * DMI identity as `grep . /sys/class/dmi/id/sys_vendor /sys/class/dmi/id/product_name` prints it
 * (`/sys/class/dmi/id/sys_vendor:QEMU`), or `sys_vendor: QEMU` lines as `check --live` writes them.
 */
import { NotThisKindError, type Parser, type ParseResult } from './types.js';

export interface DmiFacts {
  sysVendor: string | null;
  productName: string | null;
  sysVendorLine: number | null;
  productNameLine: number | null;
}

const DMI_LINE =
  /^\s*(?:\/sys\/(?:devices\/virtual\/dmi|class\/dmi)\/id\/)?(sys_vendor|product_name)\s*:\s*(.*?)\s*$/;
/** Two short lines: a larger text that mentions sys_vendor is something else (a script, a log). */
const MAX_TEXT_CHARS = 4096;

function readDmi(text: string): DmiFacts | null {
  if (text.length >= MAX_TEXT_CHARS) return null;
  const facts: DmiFacts = { sysVendor: null, productName: null, sysVendorLine: null, productNameLine: null };
  let seen = 0;
  text.split(/\r?\n/).forEach((line, index) => {
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

export function parseDmi(text: string): ParseResult<DmiFacts> {
  const facts = readDmi(text);
  if (!facts) {
    throw NotThisKindError.atFirstLine('dmi', text);
  }
  return { kind: 'dmi', facts, warnings: [] };
}

export const dmiParser: Parser<DmiFacts> = {
  kind: 'dmi',
  description: 'DMI identity (/sys/class/dmi/id sys_vendor, product_name): the machine or hypervisor vendor',
  detect: (text) => (readDmi(text) ? 0.96 : 0),
  parse: parseDmi,
};
