/**
 * A one-line label for a run, so `runs list` tells runs of the same kind apart without opening
 * them. Built from the envelope's inputs: the fields people filter by first, then any other scalars.
 */
const PREFERRED_KEYS = [
  'op',
  'fabric',
  'fabrics',
  'model',
  'nodes',
  'gpusPerNode',
  'workload',
  'files',
  'file',
  'host',
];
const MAX_LABEL_LENGTH = 80;

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((item) => typeof item === 'string' || typeof item === 'number')
  ) {
    return value.join(',');
  }
  // Nested objects contribute their `kind` or `name` (a workload, a preset) when they have one.
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const name =
      typeof record.kind === 'string'
        ? record.kind
        : typeof record.name === 'string'
          ? record.name
          : undefined;
    if (name === undefined) return undefined;
    // A workload's size is what tells two incast runs apart: `incast(senders=16)`.
    const numbers = Object.entries(record)
      .filter(([, field]) => typeof field === 'number')
      .slice(0, 2)
      .map(([key, field]) => `${key}=${String(field)}`);
    return numbers.length > 0 ? `${name}(${numbers.join(',')})` : name;
  }
  return undefined;
}

/**
 * A `trace` run (src/trace): how many ranks, from which paths, which ProfilerSteps, and the model's
 * fabric when one was asked for: `8 ranks steps=3-5 fabric=roce-400g paths=dlrm_kineto.tar.gz`.
 */
function describeTrace(envelope: Record<string, unknown>, record: Record<string, unknown>): string {
  const metrics = envelope.metrics;
  const ranks =
    typeof metrics === 'object' &&
    metrics !== null &&
    Array.isArray((metrics as Record<string, unknown>).ranks)
      ? ((metrics as Record<string, unknown>).ranks as unknown[]).length
      : undefined;
  const steps =
    typeof record.steps === 'object' && record.steps !== null
      ? (record.steps as Record<string, unknown>)
      : undefined;
  const parts = [
    ranks === undefined ? undefined : `${ranks} rank${ranks === 1 ? '' : 's'}`,
    steps && typeof steps.from === 'number'
      ? `steps=${steps.from === steps.to ? String(steps.from) : `${String(steps.from)}-${String(steps.to)}`}`
      : undefined,
    typeof record.fabric === 'string' ? `fabric=${record.fabric}` : undefined,
    typeof record.job === 'string' ? `job=${record.job.split('/').pop() ?? record.job}` : undefined,
    Array.isArray(record.paths)
      ? `paths=${record.paths.map((path) => String(path).split('/').pop()).join(',')}`
      : undefined,
  ];
  return parts.filter((part) => part !== undefined).join(' ');
}

export function describeRun(envelope: Record<string, unknown>): string {
  const inputs = envelope.inputs;
  if (typeof inputs !== 'object' || inputs === null) return '';
  const record = inputs as Record<string, unknown>;
  if (envelope.kind === 'trace') {
    const label = describeTrace(envelope, record);
    return label.length > MAX_LABEL_LENGTH ? `${label.slice(0, MAX_LABEL_LENGTH - 1)}…` : label;
  }
  const keys = [
    ...PREFERRED_KEYS.filter((key) => key in record),
    ...Object.keys(record).filter((key) => !PREFERRED_KEYS.includes(key)),
  ];
  const parts: string[] = [];
  for (const key of keys) {
    const text = scalarText(record[key]);
    if (text === undefined || text === '') continue;
    parts.push(`${key}=${text}`);
    if (parts.join(' ').length >= MAX_LABEL_LENGTH) break;
  }
  const label = parts.join(' ');
  return label.length > MAX_LABEL_LENGTH ? `${label.slice(0, MAX_LABEL_LENGTH - 1)}…` : label;
}
