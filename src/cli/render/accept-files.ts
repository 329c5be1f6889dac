/**
 * Two files an acceptance run can leave for the tools an SRE already runs (issue 11, "Outputs"):
 * - `--drain-list FILE`: the `scontrol update` lines that drain each node blamed with an error (Slurm),
 *   and the `kubectl cordon` lines (Kubernetes), written for a person to read and run, never run here;
 * - `--prometheus FILE`: node-exporter textfile-collector metrics (the Prometheus text exposition
 *   format, version 0.0.4), so an alert can fire on a host the last acceptance blamed.
 */
import type { AcceptCulprit, AcceptMetrics } from '../../accept/index.js';

/** A host name a shell line may carry unquoted (RFC 1123 labels, dots, underscores as Slurm allows). */
const SAFE_HOST = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Single-quoted for a POSIX shell: every ' closes the quote, is escaped, and reopens it. */
const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** The first evidence line, as a one-line reason of at most 120 characters. */
function reasonOf(culprit: AcceptCulprit): string {
  const first = (
    culprit.evidence.find((line) => line.startsWith('host ')) ??
    culprit.evidence[0] ??
    'failed acceptance'
  )
    .replace(/\s+/g, ' ')
    .trim();
  const text = `aifabric accept: ${first}`;
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

export function renderDrainList(metrics: AcceptMetrics, when: Date): string {
  const lines = [
    `# aifabric accept, ${when.toISOString()}: the nodes blamed with an error, to drain (Slurm) or cordon (Kubernetes).`,
    '# Written for a person to review and run; aifabric runs none of it. Links, rails and the fabric are listed as comments.',
  ];
  const nodes = metrics.culprits.filter((culprit) => culprit.kind === 'node' && culprit.severity === 'error');
  if (nodes.length === 0) lines.push('# no node to drain');
  for (const culprit of nodes) {
    if (!SAFE_HOST.test(culprit.id)) {
      lines.push(
        `# node ${JSON.stringify(culprit.id)}: not a plain host name, left for you to drain by hand`,
      );
      continue;
    }
    lines.push(`scontrol update NodeName=${culprit.id} State=DRAIN Reason=${shellQuote(reasonOf(culprit))}`);
    lines.push(`kubectl cordon ${culprit.id}`);
  }
  for (const culprit of metrics.culprits.filter((c) => c.kind !== 'node' || c.severity !== 'error')) {
    lines.push(
      `# ${culprit.severity} ${culprit.kind} ${culprit.id.replace(/[\r\n]/g, ' ')}: ${reasonOf(culprit).replace(/[\r\n]/g, ' ')}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** A label value escaped as the text format asks: backslash, double quote and line feed. */
const labelValue = (text: string): string =>
  text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labels = (pairs: Record<string, string>): string =>
  `{${Object.entries(pairs)
    .map(([k, v]) => `${k}="${labelValue(v)}"`)
    .join(',')}}`;

export function renderPrometheus(metrics: AcceptMetrics, hosts: readonly string[], when: Date): string {
  const out: string[] = [];
  const family = (name: string, help: string, samples: [Record<string, string>, number][]): void => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`);
    for (const [pairs, value] of samples)
      out.push(
        `${name}${Object.keys(pairs).length > 0 ? labels(pairs) : ''} ${Number.isFinite(value) ? value : 'NaN'}`,
      );
  };
  const blamed = new Set(
    metrics.culprits.filter((c) => c.kind === 'node' && c.severity === 'error').map((c) => c.id),
  );
  family('aifabric_accept_timestamp_seconds', 'When the acceptance run ended (Unix time).', [
    [{}, Math.round(when.getTime() / 1000)],
  ]);
  family(
    'aifabric_accept_host_healthy',
    '1 unless the last acceptance run blamed this host with an error.',
    hosts.map((host) => [{ host }, blamed.has(host) ? 0 : 1]),
  );
  family(
    'aifabric_accept_culprit_score',
    'Share of the failing results each culprit explains, most likely first.',
    metrics.culprits.map((c) => [{ kind: c.kind, id: c.id, severity: c.severity }, c.score]),
  );
  family(
    'aifabric_accept_stage_runs',
    'Runs each stage used.',
    metrics.stages.map((s) => [{ stage: s.name }, s.runs]),
  );
  const verdicts = new Map<string, number>();
  for (const run of metrics.runs) verdicts.set(run.verdict, (verdicts.get(run.verdict) ?? 0) + 1);
  family(
    'aifabric_accept_runs',
    'Runs by verdict.',
    [...verdicts].sort(([a], [b]) => a.localeCompare(b)).map(([verdict, n]) => [{ verdict }, n]),
  );
  return `${out.join('\n')}\n`;
}
