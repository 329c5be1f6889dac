/**
 * The generator's two outputs agree: its Kineto JSON files, read back by src/parse's readTraceFiles,
 * give the facts it wrote directly, and the analysis of either names the delayed rank and recovers
 * the delay and the clock offset.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTraceFiles } from '../../src/parse/index.js';
import type { TraceRankFacts } from '../../src/parse/trace-types.js';
import { analyseTrace } from '../../src/trace/index.js';
import { generateRun, type GenOptions } from './generate.js';

const options: GenOptions = {
  ranks: 4,
  hosts: 2,
  clockOffsetsUs: [0, 7_777.5],
  steps: 2,
  firstStep: 11,
  collectivesPerStep: 3,
  ops: [
    { op: 'all_reduce', sizeBytes: 4 << 20 },
    { op: 'all_gather', sizeBytes: 1 << 20 },
    { op: 'reduce_scatter', sizeBytes: 2 << 20 },
  ],
  delays: [{ rank: 3, collective: 4, us: 321, where: 'compute' }],
};

describe('generated Kineto traces', () => {
  const run = generateRun(options);
  let dir = '';
  let read: TraceRankFacts[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'aifabric-trace-gen-'));
    const files = run.map((r, i) => {
      const file = path.join(dir, `rank${i}.json`);
      writeFileSync(file, r.kineto);
      return file;
    });
    read = await readTraceFiles(files);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('have the Chrome-trace layout of PyTorch with the comms args', () => {
    const trace = JSON.parse(run[0]?.kineto ?? '{}') as {
      traceEvents: { ph: string; cat: string; name: string; args: Record<string, unknown> }[];
      distributedInfo: { rank: number; world_size: number };
    };
    expect(trace.distributedInfo).toMatchObject({ backend: 'nccl', rank: 0, world_size: 4 });
    const nccl = trace.traceEvents.filter((e) => e.cat === 'kernel' && e.name.startsWith('ncclDevKernel_'));
    expect(nccl).toHaveLength(6);
    expect(nccl[0]?.ph).toBe('X');
    expect(nccl[0]?.args).toMatchObject({
      'Collective name': 'allreduce',
      'In msg nelems': (4 << 20) / 4,
      'Group size': 4,
      'Process Group Name': '0',
      dtype: 'Float',
    });
  });

  it('read back as the facts written directly', () => {
    expect(read.map((f) => [f.rank, f.host, f.hasGpu])).toEqual(
      run.map((r) => [r.facts.rank, r.facts.host, true]),
    );
    for (const [i, f] of read.entries()) {
      const want = run[i]!.facts;
      expect(f.collectives.map((c) => [c.group, c.seq, c.op, c.sizeBytes, c.groupSize, c.step])).toEqual(
        want.collectives.map((c) => [c.group, c.seq, c.op, c.sizeBytes, c.groupSize, c.step]),
      );
      f.collectives.forEach((c, k) => {
        expect(c.startUs).toBeCloseTo(want.collectives[k]!.startUs, 6);
        expect(c.durUs).toBeCloseTo(want.collectives[k]!.durUs, 6);
      });
      expect(f.steps.map((s) => s.step)).toEqual([11, 12]);
      expect(f.computeBusy).toHaveLength(want.computeBusy.length);
    }
  });

  it('analyse the same either way: rank 3 late by 321 us at collective 4, host1 offset recovered', () => {
    for (const facts of [read, run.map((r) => r.facts)]) {
      const m = analyseTrace(facts).metrics;
      expect(Math.abs(m.clockOffsetsUs.host1! + 7_777.5)).toBeLessThan(1e-6);
      const row = m.collectives.find((c) => c.seq === 4);
      expect(row?.lastRank).toBe(3);
      expect(Math.abs(row!.startSkewUs - 321)).toBeLessThan(1);
      expect(m.stragglers[0]).toMatchObject({ rank: 3, lastCount: 1, cause: 'compute' });
      expect(m.iterations.map((it) => it.step)).toEqual([11, 12]);
    }
  });
});
