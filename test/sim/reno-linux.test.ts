/**
 * Reno as the Linux kernel runs it, where it departs from RFC 5681: a loss halves cwnd, not the
 * flight (net/ipv4/tcp_cong.c tcp_reno_ssthresh: max(snd_cwnd >> 1, 2)), and cwnd grows only
 * while it is the limit (include/net/tcp.h tcp_is_cwnd_limited, checked first by
 * tcp_reno_cong_avoid; tcp_cwnd_validate in tcp_output.c keeps its state). DCTCP keeps Reno's
 * halving on a loss (tcp_dctcp.c dctcp_react_to_loss) and CUBIC its beta (cubictcp_recalc_ssthresh).
 */
import { describe, expect, it } from 'vitest';
import { CUBIC_BETA, CubicCc } from '../../src/sim/transport/cc/cubic.js';
import { DctcpCc } from '../../src/sim/transport/cc/dctcp.js';
import { RenoCc } from '../../src/sim/transport/cc/reno.js';
import { Harness, MSS } from './tcp-harness.js';
import { simulate } from './helpers.js';

const MS = 1e9;

describe('ssthresh after a loss (tcp_reno_ssthresh)', () => {
  it('is half of cwnd in whole segments, at least 2, whatever the flight', () => {
    const reno = new RenoCc();
    expect(reno.ssthresh({ cwnd: 80 * MSS, ssthresh: Infinity, mss: MSS })).toBe(40 * MSS);
    // snd_cwnd >> 1 on whole segments: 21 (or 21.7, Linux's 21 and a fraction) gives 10.
    expect(reno.ssthresh({ cwnd: 21 * MSS, ssthresh: Infinity, mss: MSS })).toBe(10 * MSS);
    expect(reno.ssthresh({ cwnd: 21.7 * MSS, ssthresh: Infinity, mss: MSS })).toBe(10 * MSS);
    expect(reno.ssthresh({ cwnd: 3 * MSS, ssthresh: Infinity, mss: MSS })).toBe(2 * MSS);
    // DCTCP on a loss: dctcp_react_to_loss, the same max(cwnd >> 1, 2); CUBIC: cwnd x 717 / 1024.
    expect(new DctcpCc().ssthresh({ cwnd: 80 * MSS, ssthresh: Infinity, mss: MSS })).toBe(40 * MSS);
    expect(new CubicCc().ssthresh({ cwnd: 1000 * MSS, ssthresh: Infinity, mss: MSS })).toBeCloseTo(
      1000 * CUBIC_BETA * MSS,
      6,
    );
  });

  // IW10 with only 4 segments to send: the first is lost, the other three SACKed (DupThresh).
  for (const rack of [true, false]) {
    it(`a sender with 4 segments out under a cwnd of 10 comes out of recovery at cwnd 5, not 2 (${rack ? 'RACK-TLP' : 'RFC 6675'})`, () => {
      const h = new Harness({ rack });
      h.conn.appLimit = 4 * MSS;
      expect(h.send()).toHaveLength(4);
      h.advance(10 * MS);
      h.ack(0, [[MSS, 4 * MSS]], 0);
      expect(h.send().map((s) => s.seq)).toEqual([0]);
      h.advance(20 * MS);
      h.ack(4 * MSS, [], 10 * MS);
      expect(h.conn.cwndBytes).toBe(5 * MSS);
      expect(h.counters.timeouts).toBe(0);
    });
  }
});

describe('cwnd grows only while it is the limit (tcp_is_cwnd_limited)', () => {
  /** One round trip: offer `segments` more, send them, and acknowledge them one by one 10 ms later. */
  const round = (h: Harness, segments: number): void => {
    h.conn.appLimit += segments * MSS;
    const sent = h.send();
    expect(sent.length).toBeGreaterThan(0);
    h.advance(h.now + 10 * MS);
    for (const s of sent) h.ack(s.seq + s.len, [], h.now - 10 * MS);
  };

  it('in slow start, up to twice the most segments out in the window, then no further', () => {
    const h = new Harness({ rack: true });
    h.conn.appLimit = 0;
    for (let i = 0; i < 6; i++) round(h, 6);
    // 6 segments out each round: cwnd 10 grows to 2 x 6 and stays (RFC 5681 alone: 10 + 6 x 6 = 46).
    expect(h.conn.cwndBytes).toBe(12 * MSS);
    // A full window each round: slow start doubles it.
    round(h, 100);
    expect(h.conn.cwndBytes).toBe(24 * MSS);
  });

  it('in congestion avoidance, not at all while the flight stays below cwnd; one segment per round once it fills cwnd', () => {
    const h = new Harness({ rack: true });
    // A loss (as above) leaves cwnd = ssthresh = 5 segments: congestion avoidance.
    h.conn.appLimit = 4 * MSS;
    h.send();
    h.advance(10 * MS);
    h.ack(0, [[MSS, 4 * MSS]], 0);
    h.send();
    h.advance(20 * MS);
    h.ack(4 * MSS, [], 10 * MS);
    expect(h.conn.cwndBytes).toBe(5 * MSS);
    // 30 rounds of 2 segments (application-limited): without the check, 60 ACKs of MSS^2 / cwnd each add 8 segments.
    for (let i = 0; i < 30; i++) round(h, 2);
    expect(h.conn.cwndBytes).toBe(5 * MSS);
    // Five rounds that fill cwnd: about one segment each (RFC 5681 equation (3)).
    for (let i = 0; i < 5; i++) round(h, 100);
    expect(h.conn.cwndBytes / MSS).toBeGreaterThan(9);
    expect(h.conn.cwndBytes / MSS).toBeLessThan(11);
  });
});

describe('one 8 MiB Reno flow with 1% random loss both ways (issue 13: the simulated Reno was 3x slower than the kernel)', () => {
  const size = 8 * 1024 * 1024;
  const rateBps = 200e6;
  const mss = 1448;
  // The wire time of the whole flow at the port's rate: payload plus 78 B of headers and framing per segment.
  const lineS = (Math.ceil(size / mss) * (mss + 78) * 8) / rateBps;

  it('finishes with few RTOs and within 2.5 times its line time on average over three seeds', () => {
    let timeouts = 0;
    let totalS = 0;
    for (const seed of [1, 2, 3]) {
      const { run } = simulate(
        {
          topology: { kind: 'star', hosts: 2, linkRate: '200Mbps', linkDelay: '25us' },
          switch: { buffer: '1MiB', sharing: 'static' },
          transport: { kind: 'tcp', tcp: { cc: 'reno', mss } },
          workloads: [{ kind: 'flow', src: 0, dst: 1, size }],
          faults: [
            { host: 0, loss: 0.01 },
            { host: 1, loss: 0.01 },
          ],
          sim: { maxTime: '60s' },
        },
        seed,
      );
      expect(run.status).toBe('done');
      const c = run.sim.connections[0]!;
      expect(c.delivered).toBe(size);
      timeouts += c.timeouts;
      totalS += (c.lastDeliveryPs - c.firstSendPs) / 1e12;
    }
    // Halving the flight (RFC 5681) gave 6, 6 and 8 RTOs (1.91, 1.95, 2.09 s); halving cwnd, 2, 1 and 0.
    expect(timeouts).toBeLessThanOrEqual(4);
    // Before: 5.6 line times on average, most of it in RTOs of at least 200 ms each; now about 2.
    expect(totalS / 3).toBeLessThan(2.5 * lineS);
  });
});
