/** Human summary of a simulation result (the `--json` envelope holds everything). */
import type { ResultEnvelope } from '../../core/envelope.js';
import { renderTable } from './table.js';

const boxed = (headers: readonly string[], rows: readonly (readonly string[])[]): string =>
  renderTable(
    headers.map((header) => ({ header })),
    rows,
    { layout: 'boxed' },
  );

const fmt = (value: unknown, digits = 2): string =>
  typeof value === 'number' ? Number(value.toFixed(digits)).toLocaleString('en-US') : text(value);

function text(value: unknown): string {
  if (value === undefined || value === null) return '-';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  return JSON.stringify(value);
}

/** Only finished iterations have times: a cut-short collective says how many finished. */
function collectiveDetail(w: Record<string, unknown>): string {
  const times = w.iterationTimeUs as number[];
  const progress =
    w.completed === false
      ? `${text(w.iterationsCompleted)} of ${text(w.iterations)} iterations finished`
      : '';
  if (times.length === 0) return progress;
  const figures = `iteration ${fmt(times[0], 1)} us, busbw ${fmt(w.busbwGBps)} GB/s, straggler ${fmt(w.stragglerPenaltyUs, 1)} us`;
  return progress ? `${progress}; ${figures}` : figures;
}

interface PropagationStep {
  link: string;
  firstPausedUs: number;
  parent: number;
}

/** The pause storm's spread as a tree: each port under the port whose pause caused it. */
export function drawPropagation(steps: readonly PropagationStep[], source: string): string[] {
  const children = steps.map(() => [] as number[]);
  steps.forEach((s, i) => {
    if (s.parent >= 0) children[s.parent]?.push(i);
  });
  const out = [`  pause propagation from ${source} (port, first paused):`];
  const walk = (i: number, prefix: string, last: boolean, root: boolean): void => {
    const step = steps[i]!;
    out.push(`  ${prefix}${root ? '' : last ? '└─ ' : '├─ '}${step.link}  ${fmt(step.firstPausedUs, 1)} us`);
    const kids = children[i] ?? [];
    kids.forEach((k, j) =>
      walk(k, root ? prefix : prefix + (last ? '   ' : '│  '), j === kids.length - 1, false),
    );
  };
  steps.forEach((s, i) => {
    if (s.parent < 0) walk(i, '  ', true, true);
  });
  return out;
}

export function renderSimText(result: ResultEnvelope): string {
  const m = result.metrics;
  const inputs = result.inputs;
  const lines: string[] = [];
  lines.push(
    `scenario ${String(inputs.scenario)} (${String(inputs.mode)} mode, seed ${String(inputs.seed)}, ${String(inputs.hosts)} hosts, ${String(inputs.transport)})`,
  );
  const summary: string[][] = [];
  const rows: [string, unknown][] = [
    ['status', m.status],
    ['goodput (Gb/s)', fmt(m.goodputGbps, 3)],
    [
      'completion time (us)',
      m.completed === false
        ? `not finished (stopped at ${fmt(m.simulatedTimeUs, 1)} us)`
        : fmt(m.completionTimeUs, 1),
    ],
    ['drops', m.drops],
    ['lossless drops', m.losslessDrops],
    ['retransmitted packets', m.retransmittedPackets],
    ['timeouts', m.timeouts],
    ['ECN marks / CNPs', `${fmt(m.ecnMarks, 0)} / ${fmt(m.cnps, 0)}`],
    ['PFC pause frames', fmt(m.pauseFrames, 0)],
    ['time any link was paused (us)', fmt(m.pausedTimeUs, 1)],
    ['paused time summed over links (link-us)', fmt(m.pausedLinkUs, 1)],
    ['peak queue (bytes)', fmt(m.peakQueueBytes, 0)],
    ['events', fmt(m.events, 0)],
  ];
  for (const [name, value] of rows) if (value !== undefined) summary.push([name, text(value)]);
  lines.push(boxed(['metric', 'value'], summary));
  const workloads = (m.workloads as Record<string, unknown>[] | undefined) ?? [];
  if (workloads.length > 0) {
    const table: string[][] = [];
    for (const w of workloads) {
      const detail =
        w.iterationTimeUs !== undefined
          ? collectiveDetail(w)
          : w.roundsCompleted !== undefined
            ? `${text(w.senders)} senders, ${w.completed === false ? `${text(w.roundsCompleted)} of ${text(w.rounds)}` : text(w.roundsCompleted)} rounds, ${text(w.timeouts)} timeouts`
            : w.flowsCompleted !== undefined
              ? `${text(w.flowsCompleted)}/${text(w.flows)} flows done`
              : // Fluid mode: every transfer ends (the engine fails otherwise); when the last did.
                `${fmt(w.flows, 0)} transfers, the last done at ${fmt(w.completionTimeUs, 1)} us`;
      table.push([text(w.name), text(w.kind), fmt(w.goodputGbps, 3), detail]);
    }
    lines.push(boxed(['workload', 'kind', 'goodput (Gb/s)', 'detail'], table));
  }
  const ports = ((m.ports as Record<string, unknown>[] | undefined) ?? []).slice(0, 6);
  if (ports.length > 0) {
    const table: string[][] = [];
    for (const port of ports) {
      table.push([
        text(port.link),
        fmt(port.peakQueueBytes, 0),
        fmt(port.pausedTimeUs, 1),
        fmt(port.pauseFramesReceived, 0),
        fmt(port.drops, 0),
      ]);
    }
    lines.push(boxed(['port', 'peak queue (bytes)', 'paused (us)', 'PFC frames received', 'drops'], table));
  }
  for (const finding of result.findings ?? []) {
    lines.push(`${finding.severity}: ${finding.message}`);
    if (Array.isArray(finding.propagation))
      lines.push(...drawPropagation(finding.propagation as PropagationStep[], text(finding.source)));
  }
  for (const warning of result.warnings ?? []) lines.push(`warning: ${warning}`);
  if (result.timing) {
    const t = result.timing;
    lines.push(
      `wall ${fmt(t.wallSeconds, 3)} s${t.eventsPerSecond ? `, ${fmt(t.eventsPerSecond / 1e6, 2)} M events/s` : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
