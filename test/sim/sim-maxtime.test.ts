/**
 * Defect 2 of issue 9, through the built CLI: a run that maxTime cuts short says so
 * (`completed: false`, a `stopped at maxTime` warning, exit 0) and reports times, busbw, FCTs and
 * goodput only for what finished — never negative iteration times or a completion time of 0.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

let scratch = '';
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'aifabric-sim-maxtime-'));
});

function scenarioFile(name: string, body: string): string {
  const file = join(scratch, `${name}.yaml`);
  writeFileSync(file, `name: ${name}\n${body}`);
  return file;
}

const star = (hosts: number, rate: string, kind: string): string =>
  `topology:\n  kind: star\n  hosts: ${hosts}\n  linkRate: ${rate}\nswitch:\n  buffer: 512KiB\ntransport:\n  kind: ${kind}\n`;

type Json = Record<string, unknown>;

async function simJson(
  file: string,
): Promise<{ code: number | null; stderr: string; envelope: Json; metrics: Json; workload: Json }> {
  const run = await runCli(['sim', file, '--json']);
  const envelope = JSON.parse(run.stdout) as Json;
  const metrics = envelope.metrics as Json;
  return {
    code: run.code,
    stderr: run.stderr,
    envelope,
    metrics,
    workload: (metrics.workloads as Json[])[0]!,
  };
}

describe('sim: a run cut short by maxTime', () => {
  it('an all_reduce: completed false, the warning, and times and busbw of finished iterations only', async () => {
    // 4 MiB ring all_reduce over 4 hosts at 10 Gb/s takes about 5.2 ms an iteration: 10 ms holds one.
    const file = scenarioFile(
      'cut',
      `${star(4, '10Gbps', 'roce')}workloads:\n  - { kind: allreduce, size: 4MiB, iterations: 10 }\nsim:\n  maxTime: 10ms\n`,
    );
    const { code, stderr, envelope, metrics, workload } = await simJson(file);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(metrics.status).toBe('time-limit');
    expect(metrics.completed).toBe(false);
    expect(metrics.completionTimeUs).toBeNull();
    expect(metrics.simulatedTimeUs).toBe(10_000);
    expect((envelope.warnings as string[])[0]).toBe(
      'stopped at maxTime 10ms: 1 of 10 iterations finished (allreduce#0)',
    );
    expect(workload.completed).toBe(false);
    expect(workload.iterationsCompleted).toBe(1);
    const times = workload.iterationTimeUs as number[];
    expect(times).toHaveLength(1);
    expect(times[0]).toBeGreaterThan(4000);
    expect(times[0]).toBeLessThan(10_000);
    // busbw of the finished iteration: below the 10 Gb/s link (1.25 GB/s), and as nccl-tests defines it.
    const busbw = workload.busbwGBps as number;
    expect(busbw).toBeGreaterThan(1);
    expect(busbw).toBeLessThan(1.25);
    expect(busbw).toBeCloseTo(((4 * 2 ** 20) / (times[0]! * 1e3)) * 1.5, 9);
    // Goodput over the 10 ms the run lasted, not over a "completion time" of 0.
    expect(metrics.goodputGbps as number).toBeGreaterThan(5);
    expect(metrics.goodputGbps as number).toBeLessThanOrEqual(4 * 10);
    const steps =
      (envelope.series as { name: string; points: Json[] }[]).find((s) =>
        s.name.endsWith('per-rank step time'),
      )?.points ?? [];
    expect(steps.length).toBeGreaterThan(0);
    for (const p of steps) expect(p.stepTimeUs as number).toBeGreaterThan(0);
  });

  it('no iteration finished: no times, no busbw, and the text says so', async () => {
    const file = scenarioFile(
      'cut-early',
      `${star(4, '10Gbps', 'roce')}workloads:\n  - { kind: allreduce, size: 4MiB, iterations: 10 }\nsim:\n  maxTime: 1ms\n`,
    );
    const { code, envelope, workload } = await simJson(file);
    expect(code).toBe(0);
    expect(envelope.warnings as string[]).toContain(
      'stopped at maxTime 1ms: 0 of 10 iterations finished (allreduce#0)',
    );
    expect(workload.iterationTimeUs).toEqual([]);
    expect(workload.busbwGBps).toBeNull();
    expect(workload.algbwGBps).toBeNull();
    const text = await runCli(['sim', file]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/completion time \(us\)\s*│ not finished \(stopped at 1,000 us\)/);
    expect(text.stdout).toMatch(/0 of 10 iterations finished/);
    expect(text.stdout).toMatch(
      /warning: stopped at maxTime 1ms: 0 of 10 iterations finished \(allreduce#0\)/,
    );
    expect(text.stdout).not.toMatch(/completion time \(us\)\s*│ 0 /);
  });

  it('an incast: round times only of finished rounds, and the warning counts them', async () => {
    // 4 x 256 KiB per round through one 1 Gb/s port: about 8.5 ms a round, so 20 ms holds two.
    const file = scenarioFile(
      'incast-cut',
      `${star(5, '1Gbps', 'tcp')}workloads:\n  - { kind: incast, senders: 4, blockSize: 256KiB, rounds: 10 }\nsim:\n  maxTime: 20ms\n`,
    );
    const { code, envelope, metrics, workload } = await simJson(file);
    expect(code).toBe(0);
    expect(metrics.completed).toBe(false);
    const rounds = workload.roundsCompleted as number;
    expect(rounds).toBeGreaterThan(0);
    expect(rounds).toBeLessThan(10);
    expect(workload.rounds).toBe(10);
    expect(envelope.warnings as string[]).toContain(
      `stopped at maxTime 20ms: ${rounds} of 10 rounds finished (incast#0)`,
    );
    const times = workload.roundTimeUs as number[];
    expect(times).toHaveLength(rounds);
    for (const t of times) expect(t).toBeGreaterThan(0);
    expect(workload.goodputGbps as number).toBeLessThanOrEqual(1);
    expect(workload.goodputGbps as number).toBeGreaterThan(0.5);
  });

  it('flows: FCTs of finished flows only, goodput over the time the run lasted, per-flow completed flags', async () => {
    const file = scenarioFile(
      'flows-cut',
      `${star(4, '10Gbps', 'roce')}workloads:\n  - { kind: flow, name: short, src: 0, dst: 1, size: 1MiB }\n  - { kind: flow, name: long, src: 2, dst: 3, size: 1GiB }\nsim:\n  maxTime: 2ms\n`,
    );
    const { code, envelope, metrics } = await simJson(file);
    expect(code).toBe(0);
    const [short, long] = metrics.workloads as Json[];
    expect(short).toMatchObject({ name: 'short', completed: true, flows: 1, flowsCompleted: 1 });
    expect((short?.fctUs as number[])[0]).toBeGreaterThan(800);
    expect(long).toMatchObject({ name: 'long', completed: false, flows: 1, flowsCompleted: 0, fctUs: [] });
    // The long flow moved about 2 ms x 10 Gb/s: its goodput is near the line rate, not 0 and not more.
    expect(long?.goodputGbps as number).toBeGreaterThan(8);
    expect(long?.goodputGbps as number).toBeLessThanOrEqual(10);
    expect(envelope.warnings as string[]).toEqual([
      'stopped at maxTime 2ms: 0 of 1 flows finished (long)',
      expect.stringMatching(/^delivered \d+ B of \d+ B offered$/),
    ]);
    const flows = metrics.flows as Json[];
    expect(flows.map((f) => f.completed)).toEqual([true, false]);
    for (const f of flows)
      expect(f.durationUs as number).toBeLessThanOrEqual(metrics.simulatedTimeUs as number);
    expect((metrics.fctUs as Json).messages).toBe(1);
    expect(metrics.unfinishedMessages).toBe(1);
  });
});
