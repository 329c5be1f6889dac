/** SACK (RFC 2018) and RFC 6675 recovery: the scoreboard, and what it buys over NewReno. */
import { describe, expect, it } from 'vitest';
import { SackScoreboard } from '../../src/sim/transport/sack.js';
import { simulate } from './helpers.js';

describe('SackScoreboard', () => {
  it('merges blocks, prunes below snd_una and finds holes', () => {
    const b = new SackScoreboard();
    b.add(3000, 4000, 1000);
    b.add(6000, 7000, 1000);
    b.add(3500, 6500, 1000);
    expect(b.bytes).toBe(4000);
    expect(b.highest(1000)).toBe(7000);
    expect(b.nextHole(1000, 9000)).toBe(1000);
    expect(b.holeEnd).toBe(3000);
    expect(b.nextHole(3000, 9000)).toBe(7000);
    expect(b.holeEnd).toBe(9000);
    expect(b.sackedBetween(0, 5000)).toBe(2000);
    // 3000 B SACKed above a hole make it lost: counting down from the top, the block that reaches 3000 B starts at 3000.
    expect(b.lostBelow(1000, 3000)).toBe(3000);
    expect(b.lostBelow(1000, 5000)).toBe(1000);
    b.prune(3500);
    expect(b.bytes).toBe(3500);
    b.prune(8000);
    expect(b.bytes).toBe(0);
  });
});

describe('TCP with SACK against NewReno', () => {
  // RFC 6675 recovery itself: Reno with an ACK per segment, without RACK-TLP and without the restart
  // after idle (the defaults before issue 13), so that every retransmission answers a drop of a round.
  const incast = (sack: boolean) =>
    simulate({
      topology: { kind: 'star', hosts: 13, linkRate: '1Gbps', linkDelay: '10us' },
      switch: { buffer: '128KiB', sharing: 'static' },
      transport: {
        kind: 'tcp',
        tcp: {
          minRto: '1ms',
          sack,
          cc: 'reno',
          rack: false,
          ackEvery: 1,
          quickAcks: 0,
          slowStartAfterIdle: false,
        },
      },
      workloads: [{ kind: 'incast', senders: 12, blockSize: '256KiB', rounds: 10 }],
    }).run;

  it('repairs several losses per window without timeouts and without spurious retransmissions', () => {
    const withSack = incast(true);
    const newReno = incast(false);
    expect(withSack.sim.drops).toBeGreaterThan(0);
    expect(withSack.sim.counters.timeouts).toBeLessThan(newReno.sim.counters.timeouts);
    // Every retransmission answers a drop (go-back-N after a timeout may resend a little more).
    expect(withSack.sim.counters.retransmittedPackets).toBeLessThanOrEqual(1.2 * withSack.sim.drops);
    expect(withSack.sim.deliveredBytes).toBe(withSack.sim.offeredBytes);
  });
});
