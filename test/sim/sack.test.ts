/** SACK (RFC 2018) and RFC 6675 recovery: the scoreboard, and what it buys over NewReno. */
import { describe, expect, it } from 'vitest';
import { firstEnding, SackScoreboard } from '../../src/sim/transport/sack.js';
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

describe('firstEnding', () => {
  it('finds the first range ending after a point (or at it), as a scan from the start would', () => {
    const ranges = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
    const scan = (x: number, orAt: boolean): number => {
      let i = 0;
      while (i < ranges.length && (ranges[i + 1]! < x || (ranges[i + 1] === x && !orAt))) i += 2;
      return i;
    };
    for (let x = 0; x <= 110; x += 5) {
      for (const orAt of [false, true]) expect(firstEnding(ranges, x, orAt)).toBe(scan(x, orAt));
    }
    expect(firstEnding(ranges, 40, false)).toBe(4);
    expect(firstEnding(ranges, 40, true)).toBe(2);
    expect(firstEnding([], 5, true)).toBe(0);
  });

  it('gives a scoreboard of many ranges the same holes and SACKed bytes as a few', () => {
    const b = new SackScoreboard();
    // Every other 1000 B SACKed from 2000 to 200,000: 100 ranges.
    for (let s = 2000; s < 200_000; s += 2000) b.add(s, s + 1000, 1000);
    expect(b.nextHole(51_000, 300_000)).toBe(51_000);
    expect(b.holeEnd).toBe(52_000);
    expect(b.nextHole(52_000, 300_000)).toBe(53_000);
    expect(b.nextHole(52_500, 52_900)).toBe(-1);
    expect(b.sackedBetween(52_500, 56_500)).toBe(500 + 1000 + 500);
    expect(b.sackedBetween(0, 1_000_000)).toBe(b.bytes);
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
