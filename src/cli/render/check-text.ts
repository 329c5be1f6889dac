/**
 * Human output of `check`: per host, a table of what needs attention (error, warn, info) with
 * evidence and remediation, the count of checks that passed, then the notes and a summary line.
 */
import type { CheckFinding, CheckResult } from '../../check/index.js';

function wrap(text: string, width: number, indent: string): string {
  const words = text.split(/\s+/);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line.length > 0 && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line.length === 0 ? word : `${line} ${word}`;
  }
  if (line) lines.push(line);
  return lines.map((entry) => `${indent}${entry}`).join('\n');
}

function renderFinding(finding: CheckFinding): string {
  const head = `  ${finding.severity.toUpperCase().padEnd(5)} ${finding.ruleId.padEnd(24)} ${finding.message}`;
  const parts = [head];
  if (finding.evidence) parts.push(wrap(`evidence: ${finding.evidence}`, 100, '        '));
  if (finding.remediation) parts.push(wrap(`fix: ${finding.remediation}`, 100, '        '));
  return parts.join('\n');
}

export function renderCheckText(result: CheckResult): string {
  const findings = (result.findings ?? []) as CheckFinding[];
  const out: string[] = [];
  const fabric = result.metrics.fabric;
  out.push(
    `aifabric check: ${result.metrics.hosts.length} host(s), fabric ${fabric ? `${fabric.id} (${fabric.source})` : 'not declared'}`,
  );
  const hosts = [
    ...new Set([
      ...result.metrics.hosts.map((host) => host.name),
      ...findings.map((finding) => finding.host ?? '(cluster)'),
    ]),
  ];
  for (const host of hosts) {
    const mine = findings.filter((finding) => (finding.host ?? '(cluster)') === host);
    const captures = result.metrics.hosts.find((entry) => entry.name === host)?.captures.length ?? 0;
    const passed = mine.filter((finding) => finding.severity === 'pass');
    const attention = mine.filter((finding) => finding.severity !== 'pass');
    out.push(
      '',
      `${host} (${captures} capture(s)): ${attention.length === 0 ? 'nothing to report' : `${attention.length} finding(s)`}, ${passed.length} check(s) passed`,
    );
    for (const finding of attention) out.push(renderFinding(finding));
    if (passed.length > 0)
      out.push(
        wrap(`passed: ${[...new Set(passed.map((finding) => finding.ruleId))].join(', ')}`, 110, '  '),
      );
  }
  if (result.metrics.notes.length > 0) {
    out.push('', 'notes:');
    for (const note of result.metrics.notes) out.push(`  - ${wrap(note, 106, '    ').trimStart()}`);
  }
  const { error, warn, info, pass } = result.metrics.counts;
  out.push(
    '',
    `${error} error(s), ${warn} warning(s), ${info} info, ${pass} passed: ${error > 0 ? 'FAILED' : 'OK'}`,
  );
  return `${out.join('\n')}\n`;
}
