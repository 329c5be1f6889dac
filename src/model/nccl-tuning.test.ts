import { describe, expect, it } from 'vitest';
import { DEFAULT_NCCL_VERSION, NCCL_VERSIONS, tuningFor } from './nccl-tuning.js';

describe('DEFAULT_NCCL_VERSION (declared in core, import-free for the CLI)', () => {
  it('names an encoded version, the tuning used when none is given', () => {
    expect(NCCL_VERSIONS.map((entry) => entry.version)).toContain(DEFAULT_NCCL_VERSION);
    expect(tuningFor(undefined)).toBe(tuningFor(DEFAULT_NCCL_VERSION));
  });
});
