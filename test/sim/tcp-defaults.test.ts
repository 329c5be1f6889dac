/**
 * An unconfigured TCP scenario runs this kernel's TCP (Linux 6.18, issue 13): BBR v1, RACK-TLP,
 * delayed ACKs with quick-ACK mode, initial window 10, minimum RTO 200 ms. Keys a scenario sets
 * keep their value, and DCTCP keeps an ACK per segment without RACK.
 */
import { describe, expect, it } from 'vitest';
import { BbrCc } from '../../src/sim/transport/cc/bbr.js';
import { RenoCc } from '../../src/sim/transport/cc/reno.js';
import { TcpConnection } from '../../src/sim/transport/tcp.js';
import { RackTcpConnection } from '../../src/sim/transport/tcp-rack.js';
import { scenarioOf, simulate } from './helpers.js';

const MSS = 1460;
const base = {
  // Two 1 ms cables each way: a 4 ms round trip, long against the 1.2 us of a segment at 10 Gb/s.
  topology: { kind: 'star', hosts: 2, linkRate: '10Gbps', linkDelay: '1ms' },
  switch: { buffer: '1MiB' },
};
const flow = (segments: number, tcp: Record<string, unknown> = {}) =>
  simulate({
    ...base,
    transport: { kind: 'tcp', tcp },
    workloads: [{ kind: 'flow', src: 0, dst: 1, size: segments * MSS }],
  }).run;

describe("an unconfigured scenario runs this kernel's TCP", () => {
  it('resolves to bbr, RACK-TLP, ACK every 2nd segment, 16 quick ACKs, IW10, 200 ms minimum RTO', () => {
    expect(
      scenarioOf({
        ...base,
        transport: { kind: 'tcp' },
        workloads: [{ kind: 'flow', src: 0, dst: 1, size: 1 }],
      }).transport.tcp,
    ).toMatchObject({
      cc: 'bbr',
      rack: true,
      sack: true,
      ackEvery: 2,
      quickAcks: 16,
      delayedAckTimeout: 0.04,
      initialCwnd: 10,
      minRto: 0.2,
      tsoSegments: 1,
    });
  });

  it('the connection is a RACK-TLP sender with BBR, and 10 segments go out in the first round trip, not 11', () => {
    const ten = flow(10);
    const conn = ten.sim.connections[0]!;
    expect(conn).toBeInstanceOf(RackTcpConnection);
    expect((conn as TcpConnection).cc).toBeInstanceOf(BbrCc);
    // Ten segments arrive within one round trip (BBR paces them at 2/ln2 x IW / RTT); the 11th waits for the first ACK.
    expect(conn.lastDeliveryPs).toBeLessThan(4e9);
    expect(flow(11).sim.connections[0]!.lastDeliveryPs).toBeGreaterThan(6e9);
  });

  it('keys a scenario sets keep their value; dctcp keeps an ACK per segment without RACK', () => {
    const set = flow(10, { cc: 'reno', rack: false }).sim.connections[0]!;
    expect(set).not.toBeInstanceOf(RackTcpConnection);
    expect((set as TcpConnection).cc).toBeInstanceOf(RenoCc);
    const tcpOf = (tcp: Record<string, unknown>) =>
      scenarioOf({
        ...base,
        transport: { kind: 'tcp', tcp },
        workloads: [{ kind: 'flow', src: 0, dst: 1, size: 1 }],
      }).transport.tcp;
    expect(tcpOf({ cc: 'dctcp' })).toMatchObject({ ackEvery: 1, quickAcks: 0, rack: false });
    expect(tcpOf({ cc: 'dctcp', rack: true, ackEvery: 2 })).toMatchObject({
      ackEvery: 2,
      quickAcks: 0,
      rack: true,
    });
    expect(tcpOf({ cc: 'cubic', ackEvery: 1, quickAcks: 0 })).toMatchObject({
      cc: 'cubic',
      ackEvery: 1,
      quickAcks: 0,
      rack: true,
      minRto: 0.2,
    });
    expect(tcpOf({ minRto: '1ms' }).minRto).toBe(0.001);
  });
});
