/**
 * Linux TCP mechanisms one at a time, driven packet by packet (tcp-harness.ts): tail loss probe
 * (RFC 8985 section 7), RACK's time-based loss detection (section 6), the RTO's floor and
 * exponential back-off (RFC 6298 5.5, Linux tcp_retransmit_timer), delayed and quick ACKs.
 */
import { describe, expect, it } from 'vitest';
import { RackTcpConnection } from '../../src/sim/transport/tcp-rack.js';
import { Harness, MSS } from './tcp-harness.js';

const MS = 1e9;

describe('tail loss probe (RACK-TLP)', () => {
  // IW10 leaves at t = 0; one RTT (10 ms) later the first eight are acknowledged; 9 and 10 are lost.
  const tail = (rack: boolean): Harness => {
    const h = new Harness({ rack });
    expect(h.send()).toHaveLength(10);
    h.advance(10 * MS);
    h.ack(8 * MSS, [], 0);
    expect(h.send()).toHaveLength(0);
    return h;
  };

  it('probes the last segment at PTO = 2 SRTT + 2 ms, and RACK repairs the rest one RTT later, with no RTO', () => {
    const h = tail(true);
    const conn = h.conn as RackTcpConnection;
    // srtt = 10 ms; two segments out: PTO = 2 x 10 ms + TCP_TIMEOUT_MIN (2 ms) after the ACK.
    h.advance(32 * MS - 1);
    expect(h.send()).toHaveLength(0);
    expect(conn.lossProbes).toBe(0);
    h.advance(32 * MS);
    expect(h.send().map((s) => s.seq)).toEqual([9 * MSS]);
    expect(conn.lossProbes).toBe(1);
    // The probe's SACK one RTT later: segment 9 was sent long before it, so RACK deems it lost at once.
    h.advance(42 * MS);
    h.ack(8 * MSS, [[9 * MSS, 10 * MSS]], 32 * MS);
    expect(h.send().map((s) => s.seq)).toEqual([8 * MSS]);
    h.advance(52 * MS);
    h.ack(10 * MSS, [], 42 * MS);
    // Everything is acknowledged: no RTO ever fires.
    h.advance(2000 * MS);
    expect(h.send()).toHaveLength(0);
    expect(h.counters.timeouts).toBe(0);
    expect(h.counters.retransmittedPackets).toBe(2);
  });

  it('without RACK-TLP the same tail waits for the RTO (srtt + 200 ms)', () => {
    const h = tail(false);
    h.advance(200 * MS);
    expect(h.send()).toHaveLength(0);
    h.advance(230 * MS);
    expect(h.counters.timeouts).toBe(1);
    expect(h.send()[0]?.seq).toBe(8 * MSS);
  });
});

describe('RACK loss detection by time', () => {
  it('one SACKed segment above a hole (below DupThresh) marks it lost after RACK.rtt + min_rtt / 4 (+ 2 ms timer slack)', () => {
    const h = new Harness({ rack: true });
    h.send();
    h.advance(10 * MS);
    // Segment 9 is missing, 10 arrived: one SACKed segment, so reo_wnd = min_rtt / 4 = 2.5 ms.
    h.ack(8 * MSS, [[9 * MSS, 10 * MSS]], 0);
    expect(h.send()).toHaveLength(0);
    h.advance(14.5 * MS - 1);
    expect(h.send()).toHaveLength(0);
    h.advance(14.5 * MS);
    expect(h.send().map((s) => s.seq)).toEqual([8 * MSS]);
    expect(h.counters.timeouts).toBe(0);
  });

  it('three SACKed segments (DupThresh) set reo_wnd to 0: the hole is retransmitted on that ACK', () => {
    const h = new Harness({ rack: true });
    h.send();
    h.advance(10 * MS);
    h.ack(6 * MSS, [[7 * MSS, 10 * MSS]], 0);
    expect(h.send().map((s) => s.seq)).toEqual([6 * MSS]);
  });

  it('resending the head in recovery replaces the pending loss probe with an RTO from now (tcp_xmit_retransmit_queue)', () => {
    const h = new Harness({ rack: true });
    h.send();
    // Sent at 0: the loss probe is due at 2 SRTT + 2 ms = 22 ms. At 10 ms a SACK of three segments above the
    // head starts recovery without moving snd_una, and the head goes again.
    expect(h.nextTimerPs()).toBe(22 * MS);
    h.advance(10 * MS);
    h.ack(0, [[MSS, 4 * MSS]], 0);
    expect(h.send()[0]?.seq).toBe(0);
    const conn = h.conn as RackTcpConnection;
    // No probe at 22 ms; the RTO, 10 ms + max(4 x 5 ms, 200 ms) after the resend, at 220 ms.
    h.advance(220 * MS - 1);
    expect(h.send()).toHaveLength(0);
    expect(conn.lossProbes).toBe(0);
    expect(h.counters.timeouts).toBe(0);
    h.advance(220 * MS);
    expect(h.counters.timeouts).toBe(1);
  });

  it('in recovery, new data does not postpone the RTO (tcp_event_new_data_sent rearms it only with nothing out)', () => {
    const h = new Harness({ rack: true });
    expect(h.send()).toHaveLength(10);
    h.advance(10 * MS);
    // Seven segments SACKed above the head: recovery; PRR would let three go, but only the head is there to send.
    h.ack(0, [[MSS, 8 * MSS]], 0);
    expect(h.send().map((x) => x.seq)).toEqual([0]);
    // At 15 ms the application writes more: new data leaves, and the RTO stays 210 ms after the head's resend.
    h.advance(15 * MS);
    h.conn.onAppWrite(h.now);
    h.conn.appLimit += 10 * MSS;
    expect(h.send().length).toBeGreaterThan(0);
    h.advance(220 * MS - 1);
    expect(h.counters.timeouts).toBe(0);
    h.advance(220 * MS);
    expect(h.counters.timeouts).toBe(1);
  });

  it('a SACK of data sent before the head was resent rearms the RTO from now, with an RTT sample from it', () => {
    const h = new Harness({ rack: true });
    expect(h.send()).toHaveLength(10);
    h.advance(10 * MS);
    h.ack(0, [[MSS, 4 * MSS]], 0);
    expect(h.send()[0]?.seq).toBe(0);
    // At 30 ms segments 4 and 5, sent at 0, are SACKed: nothing to send, but the RTO restarts, and the
    // sample (30 ms, from the first of them) moves srtt to 10 x 7/8 + 30 / 8 = 12.5 ms.
    h.advance(30 * MS);
    h.ack(0, [[MSS, 6 * MSS]], 0);
    expect(h.send()).toHaveLength(0);
    const srtt = (h.conn as unknown as { srtt: number }).srtt;
    expect(srtt).toBeCloseTo(12.5 * MS, -3);
    const rto = (h.conn as unknown as { rto: number }).rto;
    h.advance(30 * MS + rto - 1);
    expect(h.counters.timeouts).toBe(0);
    h.advance(30 * MS + rto);
    expect(h.counters.timeouts).toBe(1);
  });

  it('a lost retransmission is found again by RACK, not by the RTO', () => {
    const h = new Harness({ rack: true, initialCwndSegments: 20 });
    h.conn.appLimit = 40 * MSS;
    h.send();
    h.advance(10 * MS);
    h.ack(0, [[MSS, 4 * MSS]], 0);
    expect(h.send()[0]?.seq).toBe(0);
    // The retransmission is lost too; segments sent after it get SACKed a while later.
    h.advance(11 * MS);
    h.ack(0, [[MSS, 20 * MSS]], 1 * MS);
    h.send();
    h.advance(25 * MS);
    h.ack(0, [[MSS, 24 * MSS]], 11 * MS);
    expect(h.send().some((s) => s.seq === 0)).toBe(true);
    expect(h.counters.timeouts).toBe(0);
  });
});

describe('retransmission timeout', () => {
  it('RTO = srtt + max(4 rttvar, rto_min), doubled at each timeout, capped at rto_max', () => {
    const h = new Harness({ maxRtoPs: 1000 * MS });
    h.send();
    // Handshake sample 10 ms: rttvar 5 ms, so RTO = 10 ms + max(20 ms, 200 ms) = 210 ms.
    const fired: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = h.nextTimerPs();
      h.advance(t);
      fired.push(t / MS);
      h.send();
    }
    expect(fired).toEqual([210, 210 + 420, 630 + 840, 1470 + 1000, 2470 + 1000]);
    expect(h.counters.timeouts).toBe(5);
  });

  it('the minimum RTO holds on a microsecond path', () => {
    const h = new Harness({ minRtoPs: 1 * MS }, 20e6);
    h.send();
    expect(h.nextTimerPs()).toBeCloseTo(1 * MS + 20e6, -3);
  });
});

describe('slow start after idle (net.ipv4.tcp_slow_start_after_idle)', () => {
  // 20 segments sent at t = 0 and acknowledged at 10 ms (RTO then 10 ms + 200 ms), then idle; cwnd set to 20.
  type Inside = { s: { cwnd: number; ssthresh: number }; cwndRestarts: number };
  const idleAfter = (config: ConstructorParameters<typeof Harness>[0] = {}): Harness => {
    const h = new Harness({ initialCwndSegments: 4, slowStartAfterIdle: true, ...config });
    const inside = h.conn as unknown as Inside;
    inside.s.cwnd = 20 * MSS;
    h.conn.appLimit = 20 * MSS;
    expect(h.send()).toHaveLength(20);
    h.advance(10 * MS);
    h.ack(20 * MSS, [], 0);
    inside.s.cwnd = 20 * MSS;
    inside.s.ssthresh = 8 * MSS;
    return h;
  };
  const write = (h: Harness, atPs: number): number => {
    h.advance(atPs);
    h.conn.onAppWrite(h.now);
    h.conn.appLimit += 40 * MSS;
    return h.send().length;
  };

  it('idle for 2.5 RTOs: cwnd 20 halves once per RTO beyond the first, to 5 (tcp_cwnd_restart), ssthresh raised to 3/4 of the old cwnd', () => {
    const h = idleAfter();
    expect(write(h, 10 * MS + 2.5 * 210 * MS)).toBe(5);
    const inside = h.conn as unknown as Inside;
    expect(inside.cwndRestarts).toBe(1);
    expect(inside.s.ssthresh).toBe(15 * MSS);
    // Never below the initial window: after ten RTOs idle, cwnd 20 restarts at IW 4.
    expect(write(idleAfter(), 10 * MS + 10 * 210 * MS)).toBe(4);
  });

  it('idle for less than the RTO: the window stays', () => {
    expect(write(idleAfter(), 10 * MS + 200 * MS)).toBe(20);
  });

  it('off (sysctl 0), or under bbr (its own cong_control): the window stays after a long idle', () => {
    expect(write(idleAfter({ slowStartAfterIdle: false }), 2000 * MS)).toBe(20);
    // bbr paces: one segment out and acknowledged is enough to have sent.
    const bbr = new Harness({ cc: 'bbr', initialCwndSegments: 4, slowStartAfterIdle: true });
    bbr.conn.appLimit = MSS;
    expect(bbr.send()).toHaveLength(1);
    bbr.advance(10 * MS);
    bbr.ack(MSS, [], 0);
    const before = bbr.conn.cwndBytes;
    bbr.advance(2000 * MS);
    bbr.conn.onAppWrite(bbr.now);
    expect(bbr.conn.cwndBytes).toBe(before);
    expect((bbr.conn as unknown as Inside).cwndRestarts).toBe(0);
  });
});

describe('delayed ACK', () => {
  const acksFor = (config: Record<string, number>, segments: number): number => {
    const h = new Harness(config);
    for (let i = 0; i < segments; i++) h.data(i * MSS, MSS);
    return h.takeAcks().length;
  };

  it('acknowledging every second full segment halves the ACK count', () => {
    expect(acksFor({ ackEvery: 1 }, 40)).toBe(40);
    expect(acksFor({ ackEvery: 2 }, 40)).toBe(20);
  });

  it('quick-ACK mode acknowledges the first 16 segments at once (Linux TCP_MAX_QUICKACKS), then every second', () => {
    expect(acksFor({ ackEvery: 2, quickAcks: 16 }, 40)).toBe(16 + 12);
  });

  it('a lone segment is acknowledged by the 40 ms delayed-ACK timer', () => {
    const h = new Harness({ ackEvery: 2 });
    h.data(0, MSS);
    expect(h.takeAcks()).toHaveLength(0);
    h.advance(40 * MS - 1);
    expect(h.takeAcks()).toHaveLength(0);
    h.advance(40 * MS);
    expect(h.takeAcks().map((a) => a.ack)).toEqual([MSS]);
  });

  it('the segment that fills the last gap is acknowledged at once (RFC 5681 4.2), not after 40 ms', () => {
    const h = new Harness({ ackEvery: 2 });
    h.data(MSS, MSS);
    expect(h.takeAcks().map((a) => a.ack)).toEqual([0]);
    h.data(0, MSS);
    expect(h.takeAcks().map((a) => a.ack)).toEqual([2 * MSS]);
  });

  it('a retransmission the receiver already holds restarts quick-ACK mode (Linux tcp_data_queue)', () => {
    const h = new Harness({ ackEvery: 2, quickAcks: 3 });
    for (let i = 0; i < 6; i++) h.data(i * MSS, MSS);
    // Three quick ACKs, then one per two segments (the sixth waits for its pair).
    expect(h.takeAcks()).toHaveLength(3 + 1);
    h.data(0, MSS);
    h.takeAcks();
    h.data(6 * MSS, MSS);
    h.data(7 * MSS, MSS);
    expect(h.takeAcks()).toHaveLength(2);
  });

  it('with RACK-TLP on, a duplicate segment is reported as a DSACK block (RFC 2883)', () => {
    const h = new Harness({ rack: true });
    h.data(0, MSS);
    h.data(0, MSS);
    const acks = h.takeAcks();
    expect(acks[1]?.ack).toBe(MSS);
    expect(acks[1]?.sack.slice(0, 2)).toEqual([0, MSS]);
  });
});

describe('TSO-like batching', () => {
  it('new data leaves in packets of up to tsoSegments whole segments, as cwnd allows; each counts as that many segments for delayed ACKs', () => {
    const h = new Harness({ tsoSegments: 4 });
    expect(h.send().map((s) => s.len / MSS)).toEqual([4, 4, 2]);
    const r = new Harness({ ackEvery: 2, tsoSegments: 4 });
    r.data(0, 4 * MSS);
    expect(r.takeAcks().map((a) => a.ack)).toEqual([4 * MSS]);
  });

  // The application offers `segments`; the first packet (4 segments) is acknowledged after one 10 ms RTT.
  const loneTail = (segments: number, packets: number[]): { h: Harness; conn: RackTcpConnection } => {
    const h = new Harness({ tsoSegments: 4, rack: true });
    h.conn.appLimit = segments * MSS;
    expect(h.send().map((s) => s.len / MSS)).toEqual(packets);
    h.advance(10 * MS);
    h.ack(4 * MSS, [], 0);
    return { h, conn: h.conn as RackTcpConnection };
  };

  it('a lone TSO packet of 4 segments is 4 packets out for the loss probe (tcp_skb_pcount): PTO = 2 SRTT + 2 ms, not + rto_min', () => {
    const { h, conn } = loneTail(8, [4, 4]);
    h.advance(32 * MS - 1);
    expect(conn.lossProbes).toBe(0);
    h.advance(32 * MS);
    expect(conn.lossProbes).toBe(1);
    // The probe resends the packet's last segment only (tcp_send_loss_probe fragments it).
    expect(h.send().map((s) => [s.seq, s.len])).toEqual([[7 * MSS, MSS]]);
    expect(h.counters.timeouts).toBe(0);
  });

  it('a lone packet of one segment waits 2 SRTT + rto_min for its probe, capped by the RTO', () => {
    const { h, conn } = loneTail(5, [4, 1]);
    h.advance(200 * MS);
    expect(conn.lossProbes).toBe(0);
    expect(h.counters.timeouts).toBe(0);
    h.advance(240 * MS);
    expect(conn.lossProbes + h.counters.timeouts).toBe(1);
  });

  it('a lost batch is resent in as many segments as cwnd has room for (tcp_fragment), a resent segment counting once in flight (tcp_packets_in_flight)', () => {
    const h = new Harness({ tsoSegments: 4, rack: true });
    expect(h.send().map((s) => s.len / MSS)).toEqual([4, 4, 2]);
    h.advance(10 * MS);
    // The first batch lost, the rest SACKed; cwnd cut to 2 segments: two of its four go, then the rest.
    h.ack(0, [[4 * MSS, 10 * MSS]], 0);
    // cwnd set directly: the rule under test is how a lost TSO packet is cut to cwnd's room.
    const window = (h.conn as unknown as { s: { cwnd: number } }).s;
    window.cwnd = 2 * MSS;
    expect(h.send().map((s) => [s.seq, s.len])).toEqual([[0, 2 * MSS]]);
    // Two segments resent and in flight: cwnd 4 leaves room for the other two (counted twice, none).
    window.cwnd = 4 * MSS;
    expect(h.send().map((s) => [s.seq, s.len])).toEqual([[2 * MSS, 2 * MSS]]);
  });

  it('with RACK-TLP the same batches, and a lost batch is resent whole', () => {
    const h = new Harness({ tsoSegments: 4, rack: true });
    expect(h.send().map((s) => s.len / MSS)).toEqual([4, 4, 2]);
    h.advance(10 * MS);
    h.ack(0, [[4 * MSS, 10 * MSS]], 0);
    expect(h.send().map((s) => [s.seq, s.len])).toEqual([[0, 4 * MSS]]);
  });
});
