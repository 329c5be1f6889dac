/**
 * Property: whatever the fabric, buffers and transport, every byte the application offers is
 * delivered exactly once, in order, and the run ends by itself (no stall, no deadlock), even with
 * heavy loss in lossy classes (TCP timeouts, RoCE go-back-N).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CC_NAMES } from '../../src/sim/transport/cc/types.js';
import { simulate } from './helpers.js';

describe('conservation over random scenarios', () => {
  it('delivered == offered and status done, lossy and lossless', () => {
    let lossy = 0;
    fc.assert(
      fc.property(
        fc.record({
          topology: fc.constantFrom('star', 'leaf-spine', 'rail', 'fat-tree'),
          transport: fc.constantFrom('tcp', 'roce'),
          cc: fc.constantFrom(...CC_NAMES),
          rack: fc.boolean(),
          quickAcks: fc.constantFrom(0, 16),
          pfc: fc.boolean(),
          bufferKiB: fc.integer({ min: 8, max: 128 }),
          sharing: fc.constantFrom('static', 'dynamic'),
          workload: fc.constantFrom('incast', 'permutation', 'allreduce', 'alltoall'),
          sizeKiB: fc.integer({ min: 1, max: 256 }),
          ackEvery: fc.constantFrom(1, 2, 4),
          seed: fc.integer({ min: 1, max: 10_000 }),
        }),
        (p) => {
          const link = { linkRate: '25Gbps', linkDelay: '500ns' };
          const topology = {
            star: { kind: 'star', hosts: 6, ...link },
            'leaf-spine': {
              kind: 'leaf-spine',
              hosts: 6,
              hostsPerLeaf: 3,
              spines: 2,
              oversubscription: 3,
              ...link,
            },
            rail: { kind: 'rail', servers: 3, gpusPerServer: 2, spines: 1, ...link },
            'fat-tree': { kind: 'fat-tree', k: 4, ...link },
          }[p.topology];
          const size = `${p.sizeKiB}KiB`;
          const workload = {
            incast: { kind: 'incast', senders: 5, blockSize: size, rounds: 2 },
            permutation: { kind: 'permutation', size },
            allreduce: { kind: 'allreduce', ranks: 5, size, iterations: 2 },
            alltoall: { kind: 'alltoall', ranks: 4, size, iterations: 2 },
          }[p.workload];
          // RoCE without PFC is lossy; its headroom needs room, so PFC gets a larger buffer.
          const { run } = simulate(
            {
              topology,
              switch: {
                buffer: `${p.pfc ? p.bufferKiB + 64 : p.bufferKiB}KiB`,
                sharing: p.sharing,
                ecn: { kmin: '5KB', kmax: '50KB', pmax: 0.2 },
                ...(p.pfc ? { pfc: {} } : {}),
              },
              transport: {
                kind: p.transport,
                tcp: { cc: p.cc, rack: p.rack, quickAcks: p.quickAcks, minRto: '1ms', ackEvery: p.ackEvery },
                roce: { mtu: 1024 },
              },
              workloads: [workload],
              sim: { maxTime: '30s' },
            },
            p.seed,
          );
          expect(run.status).toBe('done');
          expect(run.sim.deliveredBytes).toBe(run.sim.offeredBytes);
          for (const conn of run.sim.connections) expect(conn.delivered).toBe(conn.appLimit);
          if (run.sim.drops > 0) lossy++;
          if (p.pfc && p.transport === 'roce') expect(run.sim.drops).toBe(0);
        },
      ),
      { numRuns: 60, seed: 7 },
    );
    // Losses did happen in a good share of the cases, so recovery paths were exercised.
    expect(lossy).toBeGreaterThan(5);
  });
});
