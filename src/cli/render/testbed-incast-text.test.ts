import { describe, expect, it } from 'vitest';
import { shareText } from './testbed-incast-text.js';

describe("testbed incast text: the single sender's share of the port", () => {
  it('a miss never reads as the threshold itself', () => {
    expect(shareText(0.89968, 0.9)).toBe('89.97%');
    expect(shareText(0.8896, 0.9)).toBe('89.0%');
    expect(shareText(0.9004, 0.9)).toBe('90.0%');
    expect(shareText(0.95, 0.9)).toBe('95.0%');
  });
});
