/**
 * The star as the namespace testbed builds it (src/testbed): hosts' links towards the switch at
 * their own rate (`uplinkRate`, a veth's speed), and the switch's ports towards the hosts as htb
 * token buckets (`ports: htb`): a packet after idle crosses without its serialisation time, the
 * rate still holds over a long transfer.
 */
import { describe, expect, it } from 'vitest';
import { tcpWireBytes } from '../../src/sim/net/wire.js';
import { buildTopology } from '../../src/sim/topo/index.js';
import { simulate } from './helpers.js';

const RATE = 100e6;
const DELAY_S = 2e-6;
/** Three hosts as the testbed wires them: veth speed towards the switch, htb ports at RATE from it. */
const TESTBED_STAR = {
  kind: 'star',
  hosts: 3,
  linkRateBps: RATE,
  linkDelayNs: 2000,
  uplinkRateBps: 10e9,
  ports: 'htb',
} as const;
/** Two hosts of the testbed's ports in a scenario, with `extra` topology fields. */
const testbedTopology = (extra: Record<string, unknown> = {}) => ({
  kind: 'star',
  hosts: 2,
  linkRate: '100Mbps',
  uplinkRate: '10Gbps',
  linkDelay: '2us',
  ports: 'htb',
  ...extra,
});

function oneSegment(ports: 'wire' | 'htb') {
  return simulate({
    topology: { kind: 'star', hosts: 2, linkRate: '100Mbps', uplinkRate: '10Gbps', linkDelay: '2us', ports },
    switch: { buffer: '128KiB', sharing: 'static' },
    transport: { kind: 'tcp', tcp: { cc: 'reno', mss: 1448 } },
    workloads: [{ kind: 'flow', src: 0, dst: 1, size: 1000 }],
  }).run;
}

describe("star with the testbed's ports", () => {
  it("uplinkRate sets the host-to-switch direction only; htb marks only the switch's ports", () => {
    const topology = buildTopology(TESTBED_STAR);
    for (const link of topology.links) {
      const fromHost = link.from < topology.hostCount;
      expect(link.rateBps).toBe(fromHost ? 10e9 : RATE);
      expect(link.chargedAfter === true).toBe(!fromHost);
    }
    const plain = buildTopology({ kind: 'star', hosts: 3, linkRateBps: RATE, linkDelayNs: 2000 });
    for (const link of plain.links) {
      expect(link.rateBps).toBe(RATE);
      expect(link.chargedAfter).toBeUndefined();
    }
  });

  it('a lone packet crosses an idle htb port without its serialisation time, and a wire port with it', () => {
    const uplinkS = (tcpWireBytes(1000) * 8) / 10e9;
    const portS = (tcpWireBytes(1000) * 8) / RATE;
    const htb = oneSegment('htb').sim.connections[0]!.lastDeliveryPs / 1e12;
    const wire = oneSegment('wire').sim.connections[0]!.lastDeliveryPs / 1e12;
    expect(htb).toBeCloseTo(uplinkS + 2 * DELAY_S, 9);
    expect(wire).toBeCloseTo(uplinkS + portS + 2 * DELAY_S, 9);
  });

  it('an htb port still holds its rate: 4 MiB take at least size / payload rate', () => {
    const size = 4 * 1024 * 1024;
    const { run } = simulate({
      topology: testbedTopology(),
      switch: { buffer: '128KiB', sharing: 'static' },
      transport: { kind: 'tcp', tcp: { cc: 'reno', mss: 1448 } },
      workloads: [{ kind: 'flow', src: 0, dst: 1, size }],
    });
    const payloadBps = (RATE * 1448) / tcpWireBytes(1448);
    const seconds = run.sim.connections[0]!.lastDeliveryPs / 1e12;
    expect(run.status).toBe('done');
    expect(seconds).toBeGreaterThanOrEqual(((size - 1448) * 8) / payloadBps);
    expect(seconds).toBeLessThan(((size * 8) / payloadBps) * 1.1);
  });

  it("faultHops: the testbed's fault hop, a switch whose egresses towards the host and towards sw0 are both ports", () => {
    const topology = buildTopology({ ...TESTBED_STAR, faultHops: [1] });
    const name = (node: number): string => topology.nodes[node]!.name;
    const hop = (src: number, dst: number): string[] =>
      topology
        .route(src, dst, 0)
        .map((l) => `${name(topology.links[l]!.from)}>${name(topology.links[l]!.to)}`);
    expect(hop(0, 2)).toEqual(['h0>sw0', 'sw0>h2']);
    expect(hop(1, 2)).toEqual(['h1>q1', 'q1>sw0', 'sw0>h2']);
    expect(hop(0, 1)).toEqual(['h0>sw0', 'sw0>q1', 'q1>h1']);
    const link = (from: string, to: string) =>
      topology.links.find((l) => name(l.from) === from && name(l.to) === to)!;
    // Shaped at the port rate, as htb ports: the hop's egress towards sw0 and towards the host.
    for (const [from, to] of [
      ['q1', 'sw0'],
      ['q1', 'h1'],
      ['sw0', 'h0'],
    ] as const) {
      expect(link(from, to).rateBps).toBe(RATE);
      expect(link(from, to).chargedAfter).toBe(true);
    }
    // Unshaped: the host's veth and the main bridge's side of the hop.
    for (const [from, to] of [
      ['h1', 'q1'],
      ['sw0', 'q1'],
    ] as const) {
      expect(link(from, to).rateBps).toBe(10e9);
      expect(link(from, to).chargedAfter).toBeUndefined();
    }
    // The host's cable keeps the delay, the hop's inner pair adds none.
    expect(link('h1', 'q1').delayNs).toBe(2000);
    expect(link('q1', 'sw0').delayNs).toBe(0);
  });

  it("a host's traffic through its fault hop queues in the hop's buffer, and overflows it", () => {
    // Two senders at 10G into one 100 Mbit/s port would queue at sw0's port to h2; through h0's hop
    // the queue of h0's own traffic is q0's port towards sw0 (128 KiB): Reno's slow start overflows it.
    const { run } = simulate({
      topology: testbedTopology({ faultHops: [0] }),
      switch: { buffer: '128KiB', sharing: 'static' },
      transport: { kind: 'tcp', tcp: { cc: 'reno', mss: 1448 } },
      workloads: [{ kind: 'flow', src: 0, dst: 1, size: 4 * 1024 * 1024 }],
    });
    expect(run.status).toBe('done');
    const hopToSwitch = run.sim.topology.links.findIndex(
      (l) => run.sim.topology.nodes[l.from]!.name === 'q0' && run.sim.topology.nodes[l.to]!.name === 'sw0',
    );
    expect(run.sim.dropsByLink[hopToSwitch]).toBeGreaterThan(0);
  });
});
