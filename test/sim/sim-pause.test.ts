/**
 * Defect 12 of issue 9, through the built CLI: pause time is a duration where it is printed as one
 * (per flow: time during its life when at least one link of its path was paused, a union, never
 * longer than the flow; for the run: time when any link was paused, never longer than the run),
 * and the sum over links is labelled as link-microseconds. pfc-victim.yaml used to print "its path
 * paused 4259.3 us" for a flow that lived 2048.9 us.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

type Json = Record<string, unknown>;
const SCENARIO = 'examples/scenarios/pfc-victim.yaml';

describe('sim: PFC pause time', () => {
  it('per flow and for the run, pause time is a union of intervals, bounded by the time it is over', async () => {
    const run = await runCli(['sim', SCENARIO, '--json']);
    expect(run.code).toBe(0);
    const envelope = JSON.parse(run.stdout) as Json;
    const m = envelope.metrics as Json;
    const simulated = m.simulatedTimeUs as number;
    const union = m.pausedTimeUs as number;
    const linkSum = m.pausedLinkUs as number;
    expect(union).toBeGreaterThan(0);
    expect(union).toBeLessThanOrEqual(simulated);
    // Several links pause at once here, so the link-microsecond sum is well above the duration.
    expect(linkSum).toBeGreaterThan(simulated);
    const ports = m.ports as Json[];
    for (const port of ports) expect(port.pausedTimeUs as number).toBeLessThanOrEqual(union + 1e-9);
    expect(linkSum).toBeCloseTo(
      ports.reduce((a, p) => a + (p.pausedTimeUs as number), 0),
      6,
    );
    const flows = m.flows as Json[];
    for (const flow of flows) {
      expect(flow).not.toHaveProperty('pausedExposureUs');
      expect(flow.pathPausedUs as number).toBeLessThanOrEqual((flow.durationUs as number) + 1e-9);
    }
    const victim = ((envelope.findings as Json[]) ?? []).find((f) => f.ruleId === 'sim.pfc-victim');
    expect(victim?.flowId).toBe(5);
    const said = /its path paused ([\d.]+) us of its ([\d.]+) us$/.exec(victim?.message as string);
    expect(said).not.toBeNull();
    expect(Number(said?.[1])).toBeLessThanOrEqual(Number(said?.[2]));
    expect(Number(said?.[2])).toBeCloseTo(flows[5]!.durationUs as number, 1);
    expect(victim?.pathPausedUs as number).toBeLessThanOrEqual(victim?.durationUs as number);
  });

  it('the text table names the sum over links as link-us and the duration as time any link was paused', async () => {
    const run = await runCli(['sim', SCENARIO]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/│ time any link was paused \(us\)\s+│ [\d,.]+ +│/);
    expect(run.stdout).toMatch(/│ paused time summed over links \(link-us\)\s+│ [\d,.]+ +│/);
    expect(run.stdout).not.toMatch(/paused time \(us\)/);
    expect(run.stdout).toMatch(
      /warn: flow 5 \(h0 -> h7\) is a PFC victim: .* its path paused [\d.]+ us of its 2048\.9 us/,
    );
  });
});
