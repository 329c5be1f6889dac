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
    const topology = buildTopology({
      kind: 'star',
      hosts: 3,
      linkRateBps: RATE,
      linkDelayNs: 2000,
      uplinkRateBps: 10e9,
      ports: 'htb',
    });
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
      topology: {
        kind: 'star',
        hosts: 2,
        linkRate: '100Mbps',
        uplinkRate: '10Gbps',
        linkDelay: '2us',
        ports: 'htb',
      },
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
});
