/**
 * The check engine: captures in, one `check` envelope out. Pure apart from what the collectors
 * already read; the CLI decides exit codes from the findings.
 */
import { makeResult, type ResultEnvelope } from '../core/envelope.js';
import type { Cluster, FabricSpec } from '../spec/index.js';
import { inferFabric } from './infer-fabric.js';
import { ruleFamilies } from './rules/index.js';
import { screenRanges } from './rules/ranges.js';
import type { CheckContext, CheckFinding, FabricSource, HostCaptures } from './types.js';

export interface CheckOptions {
  fabric?: FabricSpec;
  cluster?: Cluster;
  /** Notes from collection (skipped files, missing tools), reported with the rules' own. */
  collectionNotes?: string[];
  inputs?: Record<string, unknown>;
  createdAt?: Date;
}

export interface CheckMetrics {
  hosts: { name: string; captures: { source: string; kind: string }[] }[];
  fabric: { id: string; transport: string; lineRateGbps: number; source: FabricSource } | null;
  counts: { error: number; warn: number; info: number; pass: number };
  /** Rule ids that produced at least one finding. */
  rules: string[];
  notes: string[];
}

export type CheckResult = ResultEnvelope<CheckMetrics>;

const SEVERITY_RANK = { error: 0, warn: 1, info: 2, pass: 3 } as const;

export function runCheck(capturedHosts: HostCaptures[], options: CheckOptions = {}): CheckResult {
  // Values no measurement gives are reported once here and kept away from every rule family.
  const { hosts, findings: rangeFindings } = screenRanges(capturedHosts);
  const notes = [...(options.collectionNotes ?? [])];
  // --fabric wins over the cluster file's fabric (the CLI allows only one of them anyway).
  let fabric: FabricSpec | null = options.fabric ?? options.cluster?.fabric ?? null;
  let fabricSource: FabricSource = options.fabric ? 'flag' : options.cluster ? 'cluster' : 'none';
  if (!fabric) {
    const inferred = inferFabric(hosts);
    if (inferred) {
      fabric = inferred.fabric;
      fabricSource = 'inferred';
      notes.push(inferred.reason);
    } else {
      notes.push(
        'no fabric declared (--fabric or --cluster) and none could be inferred from the captures: fabric-dependent rules skipped',
      );
    }
  }
  const context: CheckContext = { hosts, fabric, fabricSource, cluster: options.cluster ?? null };
  const findings: CheckFinding[] = [...rangeFindings];
  for (const family of ruleFamilies) {
    const output = family.run(context);
    findings.push(...output.findings);
    notes.push(...output.notes);
  }
  // Worst first by host, keeping each family's order within a severity.
  const hostOrder = new Map(hosts.map((host, index) => [host.host, index]));
  const ordered = findings
    .map((finding, index) => ({ finding, index }))
    .sort(
      (a, b) =>
        (hostOrder.get(a.finding.host ?? '') ?? 1e9) - (hostOrder.get(b.finding.host ?? '') ?? 1e9) ||
        SEVERITY_RANK[a.finding.severity] - SEVERITY_RANK[b.finding.severity] ||
        a.index - b.index,
    )
    .map(({ finding }) => finding);
  const counts = { error: 0, warn: 0, info: 0, pass: 0 };
  for (const finding of ordered) counts[finding.severity]++;
  const metrics: CheckMetrics = {
    hosts: hosts.map((host) => ({
      name: host.host,
      captures: host.captures.map((capture) => ({ source: capture.source, kind: capture.kind })),
    })),
    fabric: fabric
      ? {
          id: fabric.id,
          transport: fabric.transport,
          lineRateGbps: fabric.lineRateGbps,
          source: fabricSource,
        }
      : null,
    counts,
    rules: [...new Set(ordered.map((finding) => finding.ruleId))].sort(),
    notes,
  };
  return makeResult('check', options.inputs ?? {}, metrics, {
    findings: ordered,
    ...(options.createdAt ? { createdAt: options.createdAt } : {}),
  });
}

export function hasErrors(result: CheckResult): boolean {
  return result.metrics.counts.error > 0;
}
