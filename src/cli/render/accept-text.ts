/** The text table of `aifabric accept`: stages and their runs, every run that did not pass, the culprits. */
import type { ResultEnvelope } from '../../core/envelope.js';
import type { AcceptMetrics } from '../../accept/index.js';
import { renderTable } from './table.js';

const figure = (value: number | null, unit: string): string =>
  value === null ? '-' : `${value.toFixed(unit === 'busbwGBps' ? 4 : 3)}`;

export function renderAcceptText(result: ResultEnvelope<AcceptMetrics>): string {
  const { runs, stages, culprits } = result.metrics;
  const inputs = result.inputs as { hosts?: string; hostNames?: string[] };
  const lines: string[] = [];
  lines.push(
    `aifabric accept: ${inputs.hosts ?? ''}, ${inputs.hostNames?.length ?? 0} hosts; ${stages.map((s) => `${s.name} ${s.runs} runs`).join(', ')}`,
  );
  const notPassing = runs.filter((run) => run.verdict !== 'pass');
  lines.push(`${runs.length} runs, ${notPassing.length} not passing`);
  if (notPassing.length > 0) {
    lines.push('');
    lines.push(
      renderTable(
        [
          { header: 'stage', align: 'left' },
          { header: 'tool', align: 'left' },
          { header: 'hosts', align: 'left' },
          { header: 'measured' },
          { header: 'expected' },
          { header: 'unit', align: 'left' },
          { header: 'retrans' },
          { header: 'verdict', align: 'left' },
        ],
        notPassing.map((run) => [
          run.stage,
          run.tool,
          run.hosts.join(','),
          figure(run.measured, run.unit),
          figure(run.expected, run.unit),
          run.unit === 'busbwGBps' ? 'GB/s' : run.stage === 'preflight' ? 'MTU' : 'Gb/s',
          run.retransmits === undefined || run.retransmits === null ? '-' : String(run.retransmits),
          run.verdict,
        ]),
      ),
    );
  }
  lines.push('');
  if (culprits.length === 0) lines.push('no culprit');
  for (const [rank, culprit] of culprits.entries()) {
    lines.push(
      `${rank + 1}. ${culprit.severity} ${culprit.kind} ${culprit.id} (score ${culprit.score.toFixed(2)})`,
    );
    for (const line of culprit.evidence) lines.push(`   ${line}`);
    lines.push(`   reproduce: ${culprit.reproduce}`);
  }
  for (const warning of result.warnings ?? []) lines.push(`warning: ${warning}`);
  return `${lines.join('\n')}\n`;
}
