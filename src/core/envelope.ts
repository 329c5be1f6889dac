/**
 * The one Result envelope every engine returns (ARCHITECTURE.md). JSON-serialisable and versioned:
 * `--json` prints exactly this. Numbers stay unrounded; `timing` holds the only wall-clock figures.
 */
import { TOOL_NAME, VERSION } from './version.js';

export const SCHEMA_VERSION = 1;

export type Severity = 'error' | 'warn' | 'info' | 'pass';

export interface Finding {
  severity: Severity;
  ruleId: string;
  message: string;
  host?: string;
  evidence?: string;
  remediation?: string;
  [key: string]: unknown;
}

export interface Series {
  name: string;
  unit?: string;
  points: Record<string, number | string | null>[];
}

export interface ResultEnvelope<M = Record<string, unknown>> {
  kind: string;
  schemaVersion: number;
  tool: { name: string; version: string };
  createdAt: string;
  inputs: Record<string, unknown>;
  metrics: M;
  series?: Series[];
  findings?: Finding[];
  warnings?: string[];
  timing?: Record<string, number>;
}

/**
 * The separator-free form of a result kind, for lookups: stored kinds keep their names
 * (`bench.tcp`, `runs-diff`), new kinds use the dot form, and `bench-tcp` and `bench.tcp` are one kind.
 */
export function normaliseKind(kind: string): string {
  return kind.trim().toLowerCase().replace(/-/g, '.');
}

export function sameKind(a: string, b: string): boolean {
  return normaliseKind(a) === normaliseKind(b);
}

export interface EnvelopeExtras {
  series?: Series[];
  findings?: Finding[];
  warnings?: string[];
  timing?: Record<string, number>;
  createdAt?: Date;
}

export function makeResult<M>(
  kind: string,
  inputs: Record<string, unknown>,
  metrics: M,
  extras: EnvelopeExtras = {},
): ResultEnvelope<M> {
  const result: ResultEnvelope<M> = {
    kind,
    schemaVersion: SCHEMA_VERSION,
    tool: { name: TOOL_NAME, version: VERSION },
    createdAt: (extras.createdAt ?? new Date()).toISOString(),
    inputs,
    metrics,
  };
  if (extras.series) result.series = extras.series;
  if (extras.findings) result.findings = extras.findings;
  if (extras.warnings && extras.warnings.length > 0) result.warnings = extras.warnings;
  if (extras.timing) result.timing = extras.timing;
  return result;
}
