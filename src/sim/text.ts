/** Human summary of a simulation result (the `--json` envelope holds everything). */
import Table from 'cli-table3';
import type { ResultEnvelope } from '../core/envelope.js';

const fmt = (value: unknown, digits = 2): string => (typeof value === 'number' ? Number(value.toFixed(digits)).toLocaleString('en-US') : text(value));

function text(value: unknown): string {
  if (value === undefined || value === null) return '-';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

export function renderSimText(result: ResultEnvelope): string {
  const m = result.metrics;
  const inputs = result.inputs;
  const lines: string[] = [];
  lines.push(`scenario ${String(inputs.scenario)} (${String(inputs.mode)} mode, seed ${String(inputs.seed)}, ${String(inputs.hosts)} hosts, ${String(inputs.transport)})`);
  const summary = new Table({ head: ['metric', 'value'], style: { head: [], border: [] } });
  const rows: [string, unknown][] = [
    ['status', m.status],
    ['goodput (Gb/s)', fmt(m.goodputGbps, 3)],
    ['completion time (us)', fmt(m.completionTimeUs, 1)],
    ['drops', m.drops],
    ['lossless drops', m.losslessDrops],
    ['retransmitted packets', m.retransmittedPackets],
    ['timeouts', m.timeouts],
    ['ECN marks / CNPs', `${fmt(m.ecnMarks, 0)} / ${fmt(m.cnps, 0)}`],
    ['PFC pause frames / paused time (us)', `${fmt(m.pauseFrames, 0)} / ${fmt(m.pausedTimeUs, 1)}`],
    ['peak queue (bytes)', fmt(m.peakQueueBytes, 0)],
    ['events', fmt(m.events, 0)],
  ];
  for (const [name, value] of rows) if (value !== undefined) summary.push([name, text(value)]);
  lines.push(summary.toString());
  const workloads = (m.workloads as Record<string, unknown>[] | undefined) ?? [];
  if (workloads.length > 0) {
    const table = new Table({ head: ['workload', 'kind', 'goodput (Gb/s)', 'detail'], style: { head: [], border: [] } });
    for (const w of workloads) {
      const detail =
        w.iterationTimeUs !== undefined
          ? `iteration ${fmt((w.iterationTimeUs as number[])[0], 1)} us, busbw ${fmt(w.busbwGBps)} GB/s, straggler ${fmt(w.stragglerPenaltyUs, 1)} us`
          : w.roundsCompleted !== undefined
            ? `${text(w.senders)} senders, ${text(w.roundsCompleted)} rounds, ${text(w.timeouts)} timeouts`
            : `${text(w.flowsCompleted)}/${text(w.flows)} flows done`;
      table.push([text(w.name), text(w.kind), fmt(w.goodputGbps, 3), detail]);
    }
    lines.push(table.toString());
  }
  const ports = ((m.ports as Record<string, unknown>[] | undefined) ?? []).slice(0, 6);
  if (ports.length > 0) {
    const table = new Table({ head: ['port', 'peak queue (bytes)', 'paused (us)', 'PFC frames received', 'drops'], style: { head: [], border: [] } });
    for (const port of ports) {
      table.push([text(port.link), fmt(port.peakQueueBytes, 0), fmt(port.pausedTimeUs, 1), fmt(port.pauseFramesReceived, 0), fmt(port.drops, 0)]);
    }
    lines.push(table.toString());
  }
  for (const finding of result.findings ?? []) lines.push(`${finding.severity}: ${finding.message}`);
  for (const warning of result.warnings ?? []) lines.push(`warning: ${warning}`);
  if (result.timing) {
    const t = result.timing;
    lines.push(`wall ${fmt(t.wallSeconds, 3)} s${t.eventsPerSecond ? `, ${fmt((t.eventsPerSecond) / 1e6, 2)} M events/s` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}
