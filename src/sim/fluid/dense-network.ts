/**
 * Checks the links and turns the workload's paths (link ids) into dense link indices, so the
 * engine works on plain typed arrays. Costs one pass over the interned paths, not over flows.
 */
import { InputError } from '../../core/errors.js';
import type { DenseNetwork } from './engine.js';
import type { FluidLink, FluidWorkload } from './types.js';

const MAX_LINK_ID = 2 ** 31 - 1;

/** Map from link id to dense index, after checking ids and capacities. */
export function indexLinks(links: readonly FluidLink[]): Map<number, number> {
  const index = new Map<number, number>();
  links.forEach((link, i) => {
    if (!Number.isInteger(link.id) || link.id < 0 || link.id > MAX_LINK_ID) {
      throw new InputError(
        `links[${i}].id: ${link.id} is not a link id (expected an integer from 0 to ${MAX_LINK_ID})`,
      );
    }
    if (index.has(link.id)) throw new InputError(`links[${i}].id: duplicate link id ${link.id}`);
    if (!(Number.isFinite(link.capacityBps) && link.capacityBps > 0)) {
      throw new InputError(
        `link ${link.id}: capacityBps ${link.capacityBps} is not a positive finite rate in bits per second`,
      );
    }
    index.set(link.id, i);
  });
  return index;
}

export function buildDenseNetwork(links: readonly FluidLink[], workload: FluidWorkload): DenseNetwork {
  const index = indexLinks(links);
  const capacityBytesPerNs = new Float64Array(links.length);
  // bits/s to bytes/ns: / 8 bits per byte, / 1e9 ns per s.
  links.forEach((link, i) => (capacityBytesPerNs[i] = link.capacityBps / 8e9));

  const { pathOffsets, pathLinkIds } = workload;
  const pathLinks = new Int32Array(pathLinkIds.length);
  const seenStamp = new Int32Array(links.length).fill(-1);
  for (let p = 0; p + 1 < pathOffsets.length; p++) {
    for (let q = pathOffsets[p]!; q < pathOffsets[p + 1]!; q++) {
      const id = pathLinkIds[q]!;
      const dense = index.get(id);
      if (dense === undefined)
        throw new InputError(`path ${describePath(workload, p)} uses unknown link id ${id}`);
      // A flow crossing one link twice would be counted twice in that link's share.
      if (seenStamp[dense] === p)
        throw new InputError(`path ${describePath(workload, p)} crosses link ${id} twice`);
      seenStamp[dense] = p;
      pathLinks[q] = dense;
    }
  }
  return { capacityBytesPerNs, pathOffsets, pathLinks };
}

function describePath(workload: FluidWorkload, path: number): string {
  const ids = Array.from(
    workload.pathLinkIds.subarray(workload.pathOffsets[path], workload.pathOffsets[path + 1]),
  );
  return `[${ids.join(', ')}]`;
}
