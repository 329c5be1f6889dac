/**
 * rdma.perftest-bw: point-to-point RDMA bandwidth from perftest (ib_write_bw, ib_read_bw,
 * ib_send_bw), the usual pairwise acceptance test. The best average bandwidth of the sweep must reach
 * 90% of the port's line rate: perftest on a healthy link reaches 95-98%, the remainder being packet
 * headers. Bidirectional (-b) runs are noted, not judged: how their figure adds the two directions
 * has differed between perftest versions, and a wrong guess would halve or double the verdict.
 */
import { makeFinding } from '../../core/rules.js';
import { evidenceAt } from '../evidence.js';
import type { PerftestRun } from '../../parse/index.js';
import { capturesOf, type Capture, type CheckContext, type RuleOutput } from '../types.js';

export const PERFTEST_MIN_RATIO = 0.9;
/** Below this message size perftest has not reached line rate on any current NIC: such sweeps are not judged. */
const MIN_PLATEAU_BYTES = 64 * 1024;

export function perftestLabel(run: PerftestRun): string {
  const verb = run.verb ?? 'rdma';
  return `ib_${verb}_bw${run.bidirectional ? ' -b' : ''}${run.header.device ? ` on ${run.header.device}` : ''}`;
}

function judge(
  context: CheckContext,
  host: string,
  capture: Capture<'perftest'>,
  run: PerftestRun,
): RuleOutput {
  const fabric = context.fabric!;
  const rows = run.bandwidthRows.filter((row) => row.sizeBytes >= MIN_PLATEAU_BYTES);
  if (rows.length === 0 || run.peakBwAverageGbps === null) {
    return {
      findings: [],
      notes: [
        `rdma.perftest-bw: ${capture.source}: ${perftestLabel(run)} has no message of ${MIN_PLATEAU_BYTES / 1024} KiB or more; not judged`,
      ],
    };
  }
  const best = rows.reduce((a, b) => (b.bwAverageGbps > a.bwAverageGbps ? b : a));
  if (run.bidirectional) {
    return {
      findings: [],
      notes: [
        `rdma.perftest-bw: ${capture.source}: ${perftestLabel(run)} is bidirectional; judged only unidirectional runs (rerun without -b)`,
      ],
    };
  }
  const expected = fabric.lineRateGbps;
  const ratio = best.bwAverageGbps / expected;
  const ok = ratio >= PERFTEST_MIN_RATIO;
  const line = capture.text
    ? capture.text
        .split('\n')
        .findIndex((text) => new RegExp(`^\\s*${best.sizeBytes}\\s+${best.iterations}\\s`).test(text)) + 1
    : 0;
  const finding = makeFinding('rdma.perftest-bw', {
    family: 'rdma',
    severity: ok ? 'pass' : 'error',
    host,
    message: `${perftestLabel(run)}: ${best.bwAverageGbps.toFixed(2)} Gb/s average is ${(ratio * 100).toFixed(1)}% of ${expected} Gb/s${ok ? '' : ` (below ${PERFTEST_MIN_RATIO * 100}%)`}`,
    evidence: evidenceAt(
      capture,
      line || null,
      `${best.sizeBytes} B: BW average ${best.bwAverage} ${run.bandwidthUnit ?? ''}`.trim(),
    ),
    ...(ok
      ? {}
      : {
          remediation:
            'Check the port rate and errors on both ends (mlxlink -d DEV, ethtool -S), PCIe width and speed of the NIC (lspci -vv: LnkSta), and repeat with -q 4 to rule out a single-QP limit.',
        }),
    measuredGbps: best.bwAverageGbps,
    expectedGbps: expected,
    ratio,
  });
  return { findings: [finding], notes: [] };
}

export function checkPerftest(context: CheckContext): RuleOutput {
  const output: RuleOutput = { findings: [], notes: [] };
  if (!context.fabric || context.fabric.transport === 'tcp') return output;
  for (const host of context.hosts) {
    for (const capture of capturesOf(host, 'perftest')) {
      for (const run of capture.facts.runs) {
        if (run.measure !== 'bandwidth' || run.bandwidthRows.length === 0) continue;
        const judged = judge(context, host.host, capture, run);
        output.findings.push(...judged.findings);
        output.notes.push(...judged.notes);
      }
    }
  }
  return output;
}
