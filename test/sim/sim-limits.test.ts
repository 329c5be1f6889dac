/**
 * Defect 5 of issue 9, through the built CLI: a scenario that asks for more work or memory than the
 * limits in `sim --help` is refused before anything is built, exit 2, one line
 * `FILE:LINE:COL field: asks for about X; the limit is Y` at the field that drives it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/sim/scenario.js';
import { estimateWork, WORK_LIMITS } from '../../src/sim/work-estimate.js';
import { runCli } from '../helpers/run-cli.js';

let scratch = '';
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'aifabric-sim-limits-'));
});

function write(name: string, text: string): string {
  const file = join(scratch, name);
  writeFileSync(file, text);
  return file;
}

const hugeStar = (kind: string): string =>
  `name: hosts\ntopology:\n  kind: star\n  hosts: 1000000000\n  linkRate: 100Gbps\nswitch:\n  buffer: 512KiB\ntransport:\n  kind: roce\nworkloads:\n  - { kind: ${kind}, src: 0, dst: 1, size: 1MiB }\n`;

describe('sim: work and memory limits', () => {
  it('iterations: 100000000 is refused at its line (it used to die of heap exhaustion after 49 s)', async () => {
    const example = readFileSync('examples/scenarios/allreduce-leafspine-roce.yaml', 'utf8');
    const file = write('iterations.yaml', example.replace('iterations: 4', 'iterations: 100000000'));
    const run = await runCli(['sim', file]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    const line = example.split('\n').findIndex((l) => l.includes('iterations: 4')) + 1;
    expect(run.stderr.split('\n')[0]).toMatch(
      new RegExp(
        `^aifabric: ${file.replace(/[.]/g, '\\.')}:${line}:17 workloads\\[0\\]\\.iterations: asks for about \\d(\\.\\d)?e\\d+ events; the limit is 1e9 events$`,
      ),
    );
    // The same file with its 4 iterations is within every limit.
    expect(
      estimateWork(loadScenario('examples/scenarios/allreduce-leafspine-roce.yaml'), 'packet').work,
    ).toBeLessThan(WORK_LIMITS.events);
  });

  it('hosts: 1000000000 is refused at topology.hosts for its memory, in packet and fluid mode', async () => {
    const file = write('hosts.yaml', hugeStar('flow'));
    for (const mode of ['packet', 'fluid']) {
      const run = await runCli(['sim', file, '--mode', mode]);
      expect(run.code).toBe(2);
      expect(run.stderr.split('\n')[0]).toMatch(
        new RegExp(
          `^aifabric: ${file.replace(/[.]/g, '\\.')}:4:10 topology\\.hosts: asks for about [\\d.]+ (TiB|GiB) of memory; the limit is 16 GiB$`,
        ),
      );
    }
  });

  it('a 1 TiB flow is refused at its size in packet mode and runs in fluid mode', async () => {
    const file = write(
      'tib.yaml',
      'name: tib\ntopology:\n  kind: star\n  hosts: 2\n  linkRate: 100Gbps\nswitch:\n  buffer: 512KiB\ntransport:\n  kind: tcp\nworkloads:\n  - kind: flow\n    src: 0\n    dst: 1\n    size: 1TiB\n',
    );
    const packet = await runCli(['sim', file]);
    expect(packet.code).toBe(2);
    expect(packet.stderr.split('\n')[0]).toMatch(
      /:14:11 workloads\[0\]\.size: asks for about [\d.]+e\d+ events; the limit is 1e9 events$/,
    );
    const fluid = await runCli(['sim', file, '--mode', 'fluid', '--json']);
    expect(fluid.code).toBe(0);
    expect(JSON.parse(fluid.stdout).metrics.bytesDelivered).toBe(2 ** 40);
  });

  it('a short maxTime bounds the estimate: many iterations that maxTime cuts short are allowed', () => {
    const example = readFileSync('examples/scenarios/allreduce-leafspine-roce.yaml', 'utf8');
    const text = `${example.replace('iterations: 4', 'iterations: 100000000')}sim:\n  maxTime: 1ms\n`;
    const file = write('bounded.yaml', text);
    const estimate = estimateWork(loadScenario(file), 'packet');
    expect(estimate.work).toBeLessThan(WORK_LIMITS.events);
    expect(estimate.memoryBytes).toBeLessThan(WORK_LIMITS.memoryBytes);
  });

  it('estimates the example scenarios within a small factor of the events they take', () => {
    // Events measured by running them (examples.test.ts runs them all); the estimate is an upper-ish "about".
    const measured: [string, number][] = [
      ['pfc-victim.yaml', 51_181],
      ['incast-tcp.yaml', 207_654],
      ['allreduce-leafspine-roce.yaml', 978_832],
    ];
    for (const [file, events] of measured) {
      const estimate = estimateWork(loadScenario(join('examples/scenarios', file)), 'packet').work;
      expect(estimate / events).toBeGreaterThan(0.5);
      expect(estimate / events).toBeLessThan(4);
    }
  });

  it('sim --help prints the limits the check uses', async () => {
    const help = await runCli(['sim', '--help']);
    expect(help.code).toBe(0);
    expect(WORK_LIMITS).toEqual({ events: 1e9, fluidTransfers: 1e9, memoryBytes: 16 * 2 ** 30 });
    expect(help.stdout).toMatch(/packet mode\s+about 1e9 events/);
    expect(help.stdout).toMatch(/fluid mode\s+about 1e9 chunk transfers/);
    expect(help.stdout).toMatch(/memory\s+16 GiB in all, and the JavaScript heap limit/);
  });
});
