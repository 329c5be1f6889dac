/**
 * The report's one gate for untrusted shapes: an envelope whose series, findings or warnings are
 * not what the contract says (hand-edited JSON, an older engine) is coerced into the contract's
 * shape here, so no renderer downstream has to guess, and nothing can throw while printing.
 */
import type { Finding, ResultEnvelope, Series } from '../../core/envelope.js';
import { isRecord, records } from '../../result/index.js';

/** Any value as text; never throws (objects without a prototype cannot be String()-ed). */
export function safeText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined)
    return String(value);
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '[unprintable value]';
  }
}

function normaliseSeries(value: unknown): Series[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter(isRecord).map((entry) => ({
    name: safeText(entry.name ?? 'series'),
    ...(typeof entry.unit === 'string' ? { unit: entry.unit } : {}),
    points: records(entry.points) as Series['points'],
  }));
}

function normaliseFindings(value: unknown): Finding[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter(isRecord).map((finding) => ({
    ...finding,
    severity: (['error', 'warn', 'info', 'pass'].includes(finding.severity as string)
      ? finding.severity
      : 'info') as Finding['severity'],
    ruleId: safeText(finding.ruleId ?? ''),
    message: safeText(finding.message ?? ''),
    ...(finding.host !== undefined ? { host: safeText(finding.host) } : {}),
    ...(finding.evidence !== undefined ? { evidence: safeText(finding.evidence) } : {}),
    ...(finding.remediation !== undefined ? { remediation: safeText(finding.remediation) } : {}),
  }));
}

export function normaliseEnvelope(envelope: ResultEnvelope<unknown>): ResultEnvelope<unknown> {
  const raw = envelope as unknown as Record<string, unknown>;
  const tool = isRecord(raw.tool) ? raw.tool : {};
  const normalised: ResultEnvelope<unknown> = {
    ...envelope,
    kind: safeText(raw.kind ?? 'unknown'),
    createdAt: safeText(raw.createdAt ?? ''),
    tool: { name: safeText(tool.name ?? ''), version: safeText(tool.version ?? '') },
    inputs: isRecord(raw.inputs) ? raw.inputs : {},
  };
  const series = normaliseSeries(raw.series);
  const findings = normaliseFindings(raw.findings);
  const warnings = Array.isArray(raw.warnings) ? raw.warnings.map(safeText) : undefined;
  if (series) normalised.series = series;
  else delete normalised.series;
  if (findings) normalised.findings = findings;
  else delete normalised.findings;
  if (warnings) normalised.warnings = warnings;
  else delete normalised.warnings;
  return normalised;
}
