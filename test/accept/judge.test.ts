import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CV_THRESHOLD,
  DEFAULT_SLOW_FRACTION,
  DEFAULT_Z_THRESHOLD,
  hardFailureOf,
  judgeResults,
  robustSpread,
  type JudgeInput,
} from '../../src/accept/judge.js';

const fleet = (values: number[], expected: number | null = null): JudgeInput[] =>
  values.map((measured, i) => ({ id: `h${i}`, measured, expected }));

describe('judgeResults', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_SLOW_FRACTION).toBe(0.8);
    expect(DEFAULT_Z_THRESHOLD).toBe(3.5);
    expect(DEFAULT_CV_THRESHOLD).toBe(0.15);
  });

  it('passes a healthy fleet near its expectation', () => {
    const verdicts = judgeResults(fleet([9.6, 9.8, 9.7, 9.5, 9.9, 9.6, 9.7, 9.8], 10));
    expect(verdicts.map((v) => v.verdict)).toEqual(Array(8).fill('pass'));
    expect(verdicts[0]?.ofExpected).toBeCloseTo(0.96);
  });

  it('finds the host at a quarter of the others as slow, with both kinds of evidence', () => {
    const values = [190, 192, 188, 191, 189, 48, 190, 193, 187, 191, 190, 189];
    const verdicts = judgeResults(fleet(values, 200));
    const slow = verdicts.filter((v) => v.verdict === 'slow');
    expect(slow.map((v) => v.id)).toEqual(['h5']);
    expect(slow[0]?.zScore).toBeLessThan(-3.5);
    expect(slow[0]?.reasons.join('; ')).toMatch(/24% of the expected 200.*robust z-score/);
  });

  it('does not call a uniformly low fleet slow, but flags it as below expectation', () => {
    const verdicts = judgeResults(fleet([50, 51, 49, 50, 52, 48], 100));
    expect(verdicts.every((v) => v.verdict === 'pass')).toBe(true);
    expect(verdicts.every((v) => v.belowExpectation)).toBe(true);
  });

  it('needs the z-score too: a low figure within a widely spread fleet is not slow', () => {
    const verdicts = judgeResults(fleet([100, 60, 140, 70, 130, 65, 135], 100));
    expect(verdicts.find((v) => v.id === 'h1')?.verdict).toBe('pass');
  });

  it('floors the spread at 1% of the median when the MAD is zero', () => {
    const verdicts = judgeResults(fleet([10, 10, 10, 10, 10, 10, 10, 5]));
    expect(verdicts[7]?.verdict).toBe('slow');
    expect(verdicts[7]?.zScore).toBeCloseTo(-50);
    expect(verdicts.slice(0, 7).every((v) => v.verdict === 'pass')).toBe(true);
    expect(robustSpread([10, 10, 10, 10, 10, 10, 10, 5])).toBeCloseTo(0.1);
    expect(robustSpread([1, 2, 3, 4, 100])).toBeCloseTo(1.4826);
  });

  it('finds a bad host among identical pair figures (MAD zero, a quarter of the pairs low)', () => {
    const values = [...Array<number>(21).fill(190), ...Array<number>(7).fill(48)];
    const verdicts = judgeResults(fleet(values, 200));
    expect(verdicts.filter((v) => v.verdict === 'slow')).toHaveLength(7);
  });

  it('needs a fleet of three for a z-score, so two results are never slow', () => {
    const verdicts = judgeResults(fleet([10, 2], 10));
    expect(verdicts.map((v) => v.verdict)).toEqual(['pass', 'pass']);
    expect(verdicts[1]?.zScore).toBeNull();
    expect(verdicts[1]?.belowExpectation).toBe(true);
  });

  it('reports hard failures and timeouts, and keeps them out of the fleet', () => {
    const inputs: JudgeInput[] = [
      ...fleet([10, 10.1, 9.9, 10.2]),
      { id: 'wrong', measured: 10, hardFailure: '#wrong 3' },
      { id: 'hung', measured: null, timedOut: true, hardFailure: 'exit 137' },
      { id: 'none', measured: null },
    ];
    const verdicts = judgeResults(inputs);
    expect(verdicts.slice(4).map((v) => [v.verdict, v.reasons[0]])).toEqual([
      ['fail', '#wrong 3'],
      ['hung', 'timed out'],
      ['fail', 'no figure measured'],
    ]);
    expect(verdicts[0]?.fleetMedian).toBeCloseTo(10.05);
  });

  it('calls a result with widely varying repeats unstable', () => {
    const inputs: JudgeInput[] = [
      ...fleet([10, 10, 10]),
      { id: 'flaky', measured: 10, repeats: [6, 10, 14] },
      { id: 'steady', measured: 10, repeats: [9.9, 10, 10.1] },
    ];
    const verdicts = judgeResults(inputs);
    expect(verdicts[3]?.verdict).toBe('unstable');
    expect(verdicts[3]?.cv).toBeCloseTo(0.4);
    expect(verdicts[4]?.verdict).toBe('pass');
  });

  it('takes its thresholds from options', () => {
    const values = [10, 10.2, 9.8, 10.1, 9.9, 8.5];
    expect(judgeResults(fleet(values))[5]?.verdict).toBe('pass');
    expect(judgeResults(fleet(values), { slowFraction: 0.9, zThreshold: 3 })[5]?.verdict).toBe('slow');
  });
});

describe('hardFailureOf', () => {
  it('names every hard failure in one line, and none for a clean run', () => {
    expect(
      hardFailureOf({
        exitCode: 0,
        wrong: 0,
        missingRows: 0,
        transport: { expected: 'NET/IB', used: 'NET/IB' },
      }),
    ).toBeNull();
    expect(hardFailureOf({})).toBeNull();
    expect(
      hardFailureOf({
        exitCode: 1,
        wrong: 3,
        missingRows: 2,
        transport: { expected: 'NET/IB', used: 'NET/Socket' },
      }),
    ).toBe('exit code 1; #wrong 3; 2 rows missing; transport NET/Socket, expected NET/IB');
  });

  it('feeds the judgement: a fall-back to sockets fails even at full speed', () => {
    const failure = hardFailureOf({ exitCode: 0, transport: { expected: 'NET/IB', used: 'NET/Socket' } });
    const [verdict] = judgeResults([{ id: 'h1~h2', measured: 48, expected: 48, hardFailure: failure }]);
    expect(verdict?.verdict).toBe('fail');
    expect(verdict?.reasons).toEqual(['transport NET/Socket, expected NET/IB']);
  });
});
