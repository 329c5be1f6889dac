/**
 * `analyseTrace`: per-rank trace facts in, the `trace` result out. Ranks are numbered and split
 * (GPU / not), collectives matched by (group, seq), host clocks aligned from collective end times,
 * then rows, iterations, stragglers and findings; `steps` keeps ProfilerStep A..B inclusive.
 */
import { makeResult, type Finding, type ResultEnvelope } from '../core/envelope.js';
import { UsageError } from '../core/errors.js';
import type { TraceRankFacts } from '../parse/index.js';
import { applyClockOffsets, estimateClockOffsets } from './clock.js';
import { collectiveRow, groupShape } from './collective-row.js';
import {
  belowModelFindings,
  clockAlignedFinding,
  rankList,
  rankMissingFinding,
  stragglerFindings,
  unfinishedFindings,
} from './findings.js';
import { iterationTerms, rankBusy, type RankBusy } from './iterations.js';
import { groupMembers, matchCollectives, sortByTime } from './match.js';
import type { TraceModel } from './model-types.js';
import { rankTraces, statedWorldSize } from './ranks.js';
import { lateArrival, rankStragglers, type LateArrival } from './stragglers.js';
import type { TraceCollectiveRow, TraceMetrics } from './types.js';

export interface AnalyseOptions {
  /** ProfilerStep range to keep, inclusive. */
  steps?: { from: number; to: number };
  model?: TraceModel;
  /** Recorded in the envelope's inputs as given (files, flags). */
  inputs?: Record<string, unknown>;
}

export function analyseTrace(
  traces: TraceRankFacts[],
  options: AnalyseOptions = {},
): ResultEnvelope<TraceMetrics> {
  const { steps, model } = options;
  if (steps && !(Number.isInteger(steps.from) && Number.isInteger(steps.to) && steps.from <= steps.to)) {
    throw new UsageError(
      `invalid --steps ${steps.from}-${steps.to} (expected A-B, whole numbers with A <= B)`,
    );
  }
  const keep = (step: number | null): boolean =>
    !steps || (step !== null && step >= steps.from && step <= steps.to);
  const ranked = rankTraces(traces);
  const warnings = [...ranked.warnings, ...(model?.notes ?? [])];
  const findings: Finding[] = [];
  const gpu = ranked.gpu;

  for (const r of ranked.nonGpu) {
    const message = `rank ${r.rank} (${r.facts.file}) has no GPU kernels: left out of matching`;
    warnings.push(message);
    findings.push(rankMissingFinding(message));
  }
  const worldSize = statedWorldSize(traces);
  const traced = new Set(ranked.summaries.map((s) => s.rank));
  if (worldSize !== null && traced.size < worldSize) {
    const absent = Array.from({ length: worldSize }, (_, i) => i).filter((r) => !traced.has(r));
    if (absent.length > 0) {
      const message = `world size ${worldSize} but ${traced.size} rank traces given: no trace for rank${absent.length > 1 ? 's' : ''} ${rankList(absent)}`;
      warnings.push(message);
      findings.push(rankMissingFinding(message));
    }
  }

  // Hosts: the reference is the lowest GPU rank's; null-host ranks are one host (ranks.ts).
  const hostOf = new Map(gpu.map((r) => [r.rank, r.hostKey]));
  const hosts = [...new Set(gpu.map((r) => r.hostKey))];
  const perHost = new Map<string, number>();
  for (const r of gpu) perHost.set(r.hostKey, (perHost.get(r.hostKey) ?? 0) + 1);
  const gpusPerNode = Math.max(0, ...perHost.values());

  const members = groupMembers(gpu);
  const matched = matchCollectives(gpu, members);
  const reference = gpu[0]?.hostKey ?? '';
  const clock = estimateClockOffsets(matched, hosts, reference);
  const clockAligned = Object.values(clock.offsetsUs).some((o) => o !== 0);
  if (hosts.length > 1) {
    applyClockOffsets(matched, clock.offsetsUs);
    if (clockAligned) {
      warnings.push(
        `ranks on ${hosts.length} hosts: clocks aligned to ${reference} from collective end times; skews and waits are after alignment`,
      );
      findings.push(clockAlignedFinding(clock.offsetsUs, reference));
    }
    for (const host of clock.unaligned)
      warnings.push(`host ${host} shares no collective with the others: its clock is not aligned`);
  }
  sortByTime(matched);

  const busy = new Map<number, RankBusy>(
    gpu.map((r) => [r.rank, rankBusy(r, clock.offsetsUs[r.hostKey] ?? 0)]),
  );
  const rows: TraceCollectiveRow[] = [];
  const arrivals: LateArrival[] = [];
  const missingByRank = new Map<number, number>();
  for (const m of matched) {
    const row = collectiveRow(
      m,
      groupShape(m, members.get(m.group)?.members.length ?? m.entries.length, hostOf, gpusPerNode),
      model,
    );
    if (!keep(row.step)) continue;
    rows.push(row);
    for (const r of row.ranksMissing)
      if (hostOf.has(r)) missingByRank.set(r, (missingByRank.get(r) ?? 0) + 1);
    const late = lateArrival(m, row, busy);
    if (late) arrivals.push(late);
  }
  for (const [rank, count] of [...missingByRank].sort((a, b) => a[0] - b[0])) {
    const message = `rank ${rank}'s trace lacks ${count} collective${count > 1 ? 's' : ''} that other ranks of its group have (a desynchronised or cut-short trace)`;
    warnings.push(message);
    findings.push(rankMissingFinding(message));
  }
  for (const g of members.values()) {
    const untraced = g.members.filter((r) => !hostOf.has(r) && !traced.has(r));
    if (g.named && untraced.length > 0) {
      warnings.push(
        `group ${g.group} has ${g.members.length} ranks; no trace for ${untraced.length} of them (${rankList(untraced)}): their collectives count as missing`,
      );
    }
  }

  findings.push(...unfinishedFindings(rows));
  const stragglers = rankStragglers(arrivals);
  findings.push(...stragglerFindings(stragglers, rows.filter((r) => r.ranksSeen.length >= 2).length));
  if (model) findings.push(...belowModelFindings(rows, model.fabric));

  const iterations = iterationTerms(gpu, busy, keep);
  if (model) for (const it of iterations) it.predictedStepUs = model.stepUs ?? null;
  if (steps && rows.length === 0 && iterations.length === 0)
    warnings.push(`no collectives or iterations in ProfilerStep ${steps.from}-${steps.to}`);

  const metrics: TraceMetrics = {
    ranks: ranked.summaries,
    worldSize,
    nodes: hosts.length,
    gpusPerNode,
    clockOffsetsUs: hosts.length > 0 ? clock.offsetsUs : {},
    clockAligned,
    collectives: rows,
    iterations,
    stragglers,
  };
  const inputs: Record<string, unknown> = { ...(options.inputs ?? {}) };
  if (steps) inputs.steps = { ...steps };
  if (model) inputs.model = { fabric: model.fabric, gpu: model.gpu };
  return makeResult('trace', inputs, metrics, { findings, warnings });
}
