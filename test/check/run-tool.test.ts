import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { runTool } from '../../src/check/collect/run-tool.js';
import { recogniseText } from '../../src/check/collect/recognise.js';
import { runCheck } from '../../src/check/run-check.js';
import { getFabricPreset } from '../../src/spec/index.js';
import type { Capture, HostCaptures } from '../../src/check/types.js';
import { fixture } from './helpers.js';

describe('runTool (check --live)', () => {
  it('returns stdout of a tool that exists, with an argument array (no shell: `;` stays an argument)', async () => {
    const outcome = await runTool(process.execPath, [
      '-e',
      'process.stdout.write(process.argv[1])',
      'a; echo injected',
    ]);
    expect(outcome).toEqual({ status: 'ok', stdout: 'a; echo injected', exitCode: 0 });
  });

  it('a missing tool is an outcome, not an exception', async () => {
    expect(await runTool('aifabric-no-such-tool-xyz', ['--version'])).toEqual({ status: 'missing' });
  });

  it('times out, reports non-zero exits, and accepts exit codes a tool uses to report (systemd-detect-virt exits 1 for none)', async () => {
    expect(
      await runTool(process.execPath, ['-e', 'setTimeout(() => {}, 10000)'], { timeoutMs: 300 }),
    ).toEqual({ status: 'failed', reason: 'timed out after 0.3 s' });
    expect(
      await runTool(process.execPath, [
        '-e',
        'console.error("Failed to open NETLINK_RDMA socket"); process.exit(1)',
      ]),
    ).toEqual({ status: 'failed', reason: 'exit 1: Failed to open NETLINK_RDMA socket' });
    expect(
      await runTool(process.execPath, ['-e', 'console.log("none"); process.exit(1)'], {
        acceptExitCodes: [1],
      }),
    ).toEqual({ status: 'ok', stdout: 'none\n', exitCode: 1 });
  });
});

describe('runCheck never throws', () => {
  const samples = [
    fixture('check', 'healthy-roce', 'devinfo-v.out'),
    fixture('check', 'healthy-roce', 'gids'),
    fixture('check', 'healthy-roce', 'topo-m.txt'),
    fixture('check', 'healthy-roce', 'all_reduce_2node.log'),
    fixture('check', 'healthy-roce', 'counters', 'ens108np0.t1'),
    fixture('check', 'healthy-roce', 'job.env.sh'),
    fixture('check', 'qos', 'sonic-rest-test-qos-config-azure-lossless.json'),
    fixture('check', 'qos', 'mellanox-doc2792-mlnx_qos-pfc-0267.txt'),
  ];
  it('on truncated and mutated real captures, for every fabric kind', () => {
    const fabrics = [
      getFabricPreset('roce-400g'),
      getFabricPreset('ib-ndr-400g'),
      getFabricPreset('tcp-100g'),
    ];
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            sample: fc.integer({ min: 0, max: samples.length - 1 }),
            cut: fc.double({ min: 0, max: 1, noNaN: true }),
            noise: fc.string({ maxLength: 20 }),
            at: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.integer({ min: 0, max: 3 }),
        (edits, fabricIndex) => {
          const captures: Capture[] = [];
          edits.forEach((edit, index) => {
            const base = samples[edit.sample]!;
            const cut = base.slice(0, Math.floor(base.length * edit.cut));
            const position = Math.floor(cut.length * edit.at);
            const text = cut.slice(0, position) + edit.noise + cut.slice(position);
            const recognised = recogniseText(text);
            if (recognised)
              captures.push({
                source: `f${index}`,
                kind: recognised.kind,
                facts: recognised.facts,
                text,
                warnings: recognised.warnings,
              });
          });
          const hosts: HostCaptures[] = [
            { host: 'a', captures },
            { host: 'b', captures: captures.slice(1) },
            { host: 'c', captures },
          ];
          const fabric = fabrics[fabricIndex];
          const result = runCheck(hosts, fabric ? { fabric } : {});
          expect(
            result.metrics.counts.error +
              result.metrics.counts.warn +
              result.metrics.counts.info +
              result.metrics.counts.pass,
          ).toBe(result.findings?.length);
        },
      ),
      { numRuns: 150 },
    );
  });
});
