/**
 * The findings of a check as a table, worst first: severity, rule, host, what is wrong, the
 * evidence, and what to do about it. A check result with no findings says so rather than showing
 * an empty table that could be mistaken for a rendering failure.
 */
import type { Finding } from '../core/envelope.js';
import { escapeHtml } from './html.js';

const SEVERITY_ORDER: Record<string, number> = { error: 0, warn: 1, info: 2, pass: 3 };

function severityRank(severity: unknown): number {
  return typeof severity === 'string' ? (SEVERITY_ORDER[severity] ?? 4) : 4;
}

function cell(value: unknown): string {
  return typeof value === 'string'
    ? escapeHtml(value)
    : value === undefined || value === null
      ? ''
      : escapeHtml(JSON.stringify(value));
}

export function findingsSummary(findings: readonly Finding[]): string {
  const counts = new Map<string, number>();
  for (const finding of findings)
    counts.set(String(finding.severity), (counts.get(String(finding.severity)) ?? 0) + 1);
  return ['error', 'warn', 'info', 'pass']
    .filter((severity) => counts.has(severity))
    .map((severity) => `${counts.get(severity) ?? 0} ${severity}`)
    .join(', ');
}

export function renderFindingsTable(findings: readonly Finding[]): string {
  if (findings.length === 0) return '<p class="muted">No findings.</p>';
  // Stable sort: within one severity, findings keep the order the check reported them in.
  const sorted = findings
    .map((finding, index) => ({ finding, index }))
    .sort((a, b) => severityRank(a.finding.severity) - severityRank(b.finding.severity) || a.index - b.index);
  const rows = sorted
    .map(({ finding }) => {
      const severity = String(finding.severity);
      return `<tr><td><span class="sev sev-${escapeHtml(severity)}">${escapeHtml(severity)}</span></td><td><code>${cell(finding.ruleId)}</code></td><td>${cell(finding.host)}</td><td>${cell(finding.message)}</td><td>${cell(finding.evidence)}</td><td>${cell(finding.remediation)}</td></tr>`;
    })
    .join('\n');
  return `<p>${escapeHtml(findingsSummary(findings))}</p>
<div class="scroll"><table class="findings">
<thead><tr><th>severity</th><th>rule</th><th>host</th><th>finding</th><th>evidence</th><th>remediation</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`;
}
