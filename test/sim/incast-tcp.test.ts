/**
 * Acceptance: TCP incast collapse in the setting of Chen et al. (WREN 2009): 1 Gb/s links, 128 KB
 * of buffer per port, 256 KB blocks, synchronised rounds. Runs the example scenario files and
 * varies only the sender count. The collapse is Reno's with an ACK per segment and without
 * RACK-TLP (the simulator's defaults before issue 13), so those options are pinned here; the
 * last test runs the files as they are, with this kernel's loss detection and delayed ACKs.
 */
import { describe, expect, it } from 'vitest';
import { loadScenario, validateScenario } from '../../src/sim/scenario.js';
import { runPacket } from '../../src/sim/packet-run.js';
import type { Scenario } from '../../src/sim/scenario-schema.js';

const LINK_BPS = 1e9;
/** The loss detection and receiver of Chen et al.'s era, as the simulator's defaults were before issue 13. */
const OLD_RENO = { cc: 'reno', ackEvery: 1, quickAcks: 0, rack: false } as const;

function incastRun(
  file: string,
  senders: number,
  rounds = 6,
  pinOld = true,
): { goodputBps: number; timeouts: number } {
  const loaded = loadScenario(file);
  const base: Scenario = pinOld
    ? { ...loaded, transport: { ...loaded.transport, tcp: { ...loaded.transport.tcp, ...OLD_RENO } } }
    : loaded;
  const workload = base.workloads[0];
  if (workload?.kind !== 'incast') throw new Error('expected an incast workload');
  const scenario: Scenario = {
    ...base,
    topology: { ...base.topology, hosts: senders + 1 } as Scenario['topology'],
    workloads: [{ ...workload, senders, rounds }],
  };
  const run = runPacket(scenario, validateScenario(scenario), 1);
  expect(run.status).toBe('done');
  expect(run.sim.deliveredBytes).toBe(run.sim.offeredBytes);
  return {
    goodputBps: (run.workloads[0]!.report().metrics.goodputGbps as number) * 1e9,
    timeouts: run.sim.counters.timeouts,
  };
}

const incastGoodput = (file: string, senders: number): number => incastRun(file, senders).goodputBps;

describe('TCP incast (Chen et al. setting)', () => {
  const rto200 = 'examples/scenarios/incast-tcp.yaml';
  const rto1 = 'examples/scenarios/incast-tcp-rto1ms.yaml';

  it('the two example files differ only in the minimum RTO', () => {
    const a = loadScenario(rto200);
    const b = loadScenario(rto1);
    expect(a.transport.tcp.minRto).toBe(0.2);
    expect(b.transport.tcp.minRto).toBe(0.001);
    expect({ ...b, name: a.name, description: a.description, transport: a.transport }).toEqual(a);
  });

  it('with a 200 ms minimum RTO goodput collapses below 30% of the link by 16 senders, then plateaus', () => {
    const senders = [1, 16, 24, 32];
    const goodput = senders.map((s) => incastGoodput(rto200, s) / LINK_BPS);
    // Before collapse: a single sender fills the link (less headers).
    expect(goodput[0]).toBeGreaterThan(0.9);
    // Collapse: by 16 senders below 30%.
    expect(goodput[1]).toBeLessThan(0.3);
    // Plateau: past the collapse it stays within a band instead of falling towards zero (Chen's
    // model: the timeouts of a round dominate, and more senders mostly add transfer time).
    const tail = goodput.slice(1);
    expect(Math.max(...tail) / Math.min(...tail)).toBeLessThan(2);
    expect(Math.min(...tail)).toBeGreaterThan(0.05);
  });

  it('with a 1 ms minimum RTO, 16 senders get at least twice the 200 ms goodput and 40% of the link', () => {
    const slow = incastGoodput(rto200, 16);
    const fast = incastGoodput(rto1, 16);
    expect(fast).toBeGreaterThanOrEqual(2 * slow);
    expect(fast / LINK_BPS).toBeGreaterThanOrEqual(0.4);
  });

  it('with the files as they are (RACK-TLP, delayed and quick ACKs), 16 senders time out far less than under old Reno', () => {
    // Measured (seed 1, Reno halving cwnd as Linux does): 36 timeouts and 153 Mb/s under old Reno, 6 and 170 Mb/s
    // with RACK-TLP (58 and 157, 2 and 254 while Reno halved the flight).
    const old = incastRun(rto200, 16);
    const kernel = incastRun(rto200, 16, 6, false);
    expect(kernel.timeouts).toBeLessThan(old.timeouts / 4);
    expect(kernel.goodputBps).toBeGreaterThan(old.goodputBps);
  });
});
