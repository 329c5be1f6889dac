/**
 * `aifabric sim --mode fluid --time-quantum D` (issue 13, part 5): the fluid engine's opt-in time
 * grid, through the built CLI. The run says it was approximate (inputs and a warning), finishes no
 * sooner than the exact run and within two quanta per dependent step of it; the flag is refused
 * outside fluid mode and without a positive duration.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

const EXAMPLE = 'examples/scenarios/allreduce-leafspine-roce.yaml';

describe('sim --time-quantum', () => {
  it('runs fluid mode on a grid, says so, and stays within its bound of the exact run', async () => {
    const exact = await runCli(['sim', EXAMPLE, '--mode', 'fluid', '--json']);
    const gridded = await runCli(['sim', EXAMPLE, '--mode', 'fluid', '--time-quantum', '1us', '--json']);
    expect(exact.code).toBe(0);
    expect(gridded.code).toBe(0);
    const a = JSON.parse(exact.stdout);
    const b = JSON.parse(gridded.stdout);
    expect(a.inputs.timeQuantumNs).toBeUndefined();
    expect(b.inputs.timeQuantumNs).toBe(1000);
    expect(b.warnings.some((w: string) => w.startsWith('time quantum 1us:'))).toBe(true);
    expect(b.metrics.bytesDelivered).toBe(a.metrics.bytesDelivered);
    // The example: 4 iterations of an 8-rank ring all_reduce, 14 dependent steps each, plus compute.
    const late = b.metrics.completionTimeUs - a.metrics.completionTimeUs;
    expect(late).toBeGreaterThan(0);
    expect(late).toBeLessThanOrEqual(4 * (2 * 14 + 2) * 1);
  });

  it('is refused in packet mode, at 0 and without a unit: one line, exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['--time-quantum', '1us'], /--time-quantum applies to --mode fluid only/],
      [
        ['--mode', 'fluid', '--time-quantum', '0s'],
        /invalid duration for --time-quantum: 0s \(expected more than 0\)/,
      ],
      [['--mode', 'fluid', '--time-quantum', '5'], /invalid duration for --time-quantum: "5"/],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(['sim', EXAMPLE, ...args]);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(message);
    }
  });
});
