/** The overrides header of `plan`, `compare` and `scale` text: which flags and `--set` fields changed the presets. */
import type { ResultEnvelope } from '../../core/envelope.js';

/** `gpu.pcieGen=3`, `fabric.tcp.rttUs=30`, `--bandwidth 100Gbps`: what the inputs' `overrides` record, as the flags spell it. */
function overrideTexts(record: unknown, scopes: readonly string[]): string[] {
  if (record === null || typeof record !== 'object') return [];
  const texts: string[] = [];
  const walk = (prefix: string, value: unknown): void => {
    if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value as Record<string, unknown>))
        walk(`${prefix}.${key}`, inner);
    } else {
      texts.push(`${prefix}=${String(value)}`);
    }
  };
  const fields = record as Record<string, unknown>;
  for (const scope of scopes) walk(scope, fields[scope]);
  return texts;
}

/**
 * The header line(s) naming the overrides: on compare and scale the fabric ones are said to apply to
 * every fabric, since each row's fabric is a preset with them on.
 */
export function overridesHeader(inputs: Record<string, unknown>, everyFabric: boolean): string {
  const record = (inputs.overrides ?? {}) as Record<string, unknown>;
  const fabric = overrideTexts(record, ['fabric']);
  if (typeof record.bandwidthGbps === 'number')
    fabric.push(`--bandwidth ${String(record.bandwidthGbps)}Gbps`);
  const other = overrideTexts(record, ['gpu', 'cluster']);
  if (typeof record.gdr === 'boolean') other.push(`--gdr ${record.gdr ? 'on' : 'off'}`);
  if (typeof record.ncclVersion === 'string') other.push(`--nccl-version ${record.ncclVersion}`);
  let header = '';
  if (everyFabric && fabric.length > 0)
    header += `(fabric overrides applied to every fabric: ${fabric.join(', ')})\n`;
  else other.unshift(...fabric);
  if (other.length > 0) header += `(overrides: ${other.join(', ')})\n`;
  return header;
}

export function withHeader<M>(render: (result: ResultEnvelope<M>) => string, everyFabric: boolean) {
  return (result: ResultEnvelope<M>): string => overridesHeader(result.inputs, everyFabric) + render(result);
}
