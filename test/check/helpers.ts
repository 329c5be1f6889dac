/** Builds hosts from in-memory captures, recognised by content exactly as `check --from` does. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { recogniseText } from '../../src/check/collect/recognise.js';
import { runCheck, type CheckOptions, type CheckResult } from '../../src/check/run-check.js';
import type { HostCaptures } from '../../src/check/types.js';
import type { Finding } from '../../src/core/envelope.js';

export const fixturesDir = fileURLToPath(new URL('../fixtures', import.meta.url));

export function fixture(...parts: string[]): string {
  return readFileSync(join(fixturesDir, ...parts), 'utf8');
}

export function host(name: string, files: Record<string, string>): HostCaptures {
  const captures = Object.entries(files).map(([source, text]) => {
    const recognised = recogniseText(text);
    if (!recognised) throw new Error(`${source}: not recognised`);
    return { source, kind: recognised.kind, facts: recognised.facts, text, warnings: recognised.warnings };
  });
  return { host: name, captures };
}

export function check(hosts: HostCaptures[], options: CheckOptions = {}): CheckResult {
  return runCheck(hosts, options);
}

/** `severity ruleId host` of every finding that is not a pass, sorted: the exact set a scenario must give. */
export function nonPass(result: { findings?: Finding[] }): string[] {
  return (result.findings ?? [])
    .filter((finding) => finding.severity !== 'pass')
    .map((finding) => `${finding.severity} ${finding.ruleId} ${finding.host ?? ''}`.trim())
    .sort();
}

export function findingsOf(result: { findings?: Finding[] }, ruleId: string): Finding[] {
  return (result.findings ?? []).filter((finding) => finding.ruleId === ruleId);
}

/** Multiplies both busbw columns of every 2.13+ all_reduce row (float, sum, root -1) by `factor`. */
export function scaleBusbw(log: string, factor: number): string {
  return log.replace(
    /^(\s+\d+\s+\d+\s+float\s+sum\s+-1\s+)(\S+)\s+(\S+)\s+(\S+)(\s+0\s+)(\S+)\s+(\S+)\s+(\S+)/gm,
    (_m, head: string, t1: string, a1: string, b1: string, mid: string, t2: string, a2: string, b2: string) =>
      `${head}${t1}  ${a1}  ${(Number(b1) * factor).toFixed(4)}${mid}${t2}  ${a2}  ${(Number(b2) * factor).toFixed(4)}`,
  );
}
