/**
 * Result kinds as filters see them. `aifabric bench tcp` saves `bench.tcp` while help texts and
 * results saved by others say `bench-tcp`: a filter matches a stored kind in either spelling, and a
 * kind that no command emits and no saved run has is a mistake to name, not an empty list.
 */
import { normaliseKind, sameKind } from '../core/envelope.js';
import { InputError } from '../core/errors.js';

export { normaliseKind, sameKind };

/** Every kind an aifabric command writes (src/ `makeResult` calls); saved kinds are added at run time. */
export const KNOWN_RESULT_KINDS: readonly string[] = [
  'accept',
  'bench.tcp',
  'check',
  'collective',
  'compare',
  'explain',
  'parse',
  'plan',
  'presets',
  'report',
  'runs-diff',
  'runs-import',
  'runs-list',
  'scale',
  'sim',
  'testbed.down',
  'testbed.fault',
  'testbed.incast',
  'testbed.status',
  'testbed.up',
  'trace',
];

/** Throws exit 2 listing the known kinds when `kind` matches neither an emitted kind nor a stored one. */
export function checkKindFilter(kind: string, storedKinds: readonly string[]): void {
  const known = [...new Set([...KNOWN_RESULT_KINDS, ...storedKinds])].sort();
  if (known.some((candidate) => sameKind(candidate, kind))) return;
  throw new InputError(`unknown kind "${kind}" (known kinds: ${known.join(', ')})`);
}
