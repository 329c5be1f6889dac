/** Reading result JSON files given on the command line (`report --input`, `runs import`). */
import { readFileSync, statSync } from 'node:fs';
import type { ResultEnvelope } from '../core/envelope.js';
import { InputError } from '../core/errors.js';

const SEVERITIES = ['error', 'warn', 'info', 'pass'];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function findingProblem(finding: unknown, index: number): string | null {
  const where = `findings[${index}]`;
  if (!isRecord(finding)) return `${where}: expected an object`;
  if (typeof finding.severity !== 'string' || !SEVERITIES.includes(finding.severity))
    return `${where}.severity: expected ${SEVERITIES.join(', ')}`;
  if (typeof finding.ruleId !== 'string' || finding.ruleId === '')
    return `${where}.ruleId: expected a rule id`;
  if (typeof finding.message !== 'string') return `${where}.message: expected a string`;
  return null;
}

/**
 * What makes `value` not a result envelope (ARCHITECTURE.md: kind, schemaVersion, tool, createdAt,
 * inputs, metrics, and optional series, findings, warnings), as `field: expected ...`; null when it is one.
 */
export function envelopeProblem(value: unknown): string | null {
  if (!isRecord(value)) return 'expected a JSON object';
  if (typeof value.kind !== 'string' || value.kind === '') return 'kind: expected a non-empty string';
  if (
    typeof value.schemaVersion !== 'number' ||
    !Number.isInteger(value.schemaVersion) ||
    value.schemaVersion < 1
  )
    return 'schemaVersion: expected a whole number from 1';
  if (!isRecord(value.tool) || typeof value.tool.name !== 'string' || typeof value.tool.version !== 'string')
    return 'tool: expected {name, version}';
  if (typeof value.createdAt !== 'string' || Number.isNaN(Date.parse(value.createdAt)))
    return 'createdAt: expected an ISO 8601 time';
  if (!isRecord(value.inputs)) return 'inputs: expected an object';
  if (!isRecord(value.metrics)) return 'metrics: expected an object';
  if (value.series !== undefined) {
    if (!Array.isArray(value.series)) return 'series: expected an array';
    const bad = value.series.findIndex(
      (series) => !isRecord(series) || typeof series.name !== 'string' || !Array.isArray(series.points),
    );
    if (bad !== -1) return `series[${bad}]: expected {name, points[]}`;
  }
  if (value.findings !== undefined) {
    if (!Array.isArray(value.findings)) return 'findings: expected an array';
    for (const [index, finding] of value.findings.entries()) {
      const problem = findingProblem(finding, index);
      if (problem) return problem;
    }
  }
  if (
    value.warnings !== undefined &&
    (!Array.isArray(value.warnings) || value.warnings.some((warning) => typeof warning !== 'string'))
  )
    return 'warnings: expected an array of strings';
  return null;
}

/** Each envelope of a result JSON file with how to name it: `FILE`, or `FILE [i]` inside an array. */
export function readEnvelopeRefs(file: string): { envelope: ResultEnvelope; ref: string }[] {
  let parsed: unknown;
  try {
    // A FIFO or a device would block or never end: only regular files are read.
    if (!statSync(file).isFile())
      throw new InputError(`${file}: not a regular file (expected a result JSON file)`);
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    if (error instanceof InputError) throw error;
    const reason =
      (error as { code?: string }).code === 'ENOENT'
        ? 'no such file'
        : error instanceof Error
          ? error.message
          : String(error);
    throw new InputError(`${file}: cannot read result JSON (${reason})`);
  }
  const list = Array.isArray(parsed) ? (parsed as unknown[]) : [parsed];
  return list.map((entry, index) => {
    const ref = Array.isArray(parsed) && list.length > 1 ? `${file} [${index}]` : file;
    const problem = envelopeProblem(entry);
    if (problem)
      throw new InputError(
        `${Array.isArray(parsed) ? `${file} [${index}]` : file}: not an aifabric result envelope (${problem})`,
      );
    return { envelope: entry as ResultEnvelope, ref };
  });
}

/** A result JSON file: one envelope or an array of them (what `--json` and `--out` write). */
export function readEnvelopes(file: string): ResultEnvelope[] {
  return readEnvelopeRefs(file).map((entry) => entry.envelope);
}
