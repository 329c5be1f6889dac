/**
 * Each congestion control against its definition: Reno's AIMD (RFC 5681), CUBIC's window curve
 * W(t) = C (t - K)^3 + W_max with Linux's constants (RFC 9438, tcp_cubic.c), DCTCP's alpha
 * (RFC 8257), and BBR v1's state machine on a one-bottleneck path (tcp_bbr.c).
 */
import { describe, expect, it, vi } from 'vitest';
import {
  BBR_CWND_MIN_SEGMENTS,
  BBR_DRAIN,
  BBR_PROBE_BW,
  BBR_PROBE_RTT,
  BBR_STARTUP,
  BbrCc,
} from '../../src/sim/transport/cc/bbr.js';
import { CUBIC_BETA, CUBIC_C, CubicCc } from '../../src/sim/transport/cc/cubic.js';
import { DctcpCc } from '../../src/sim/transport/cc/dctcp.js';
import { RenoCc } from '../../src/sim/transport/cc/reno.js';
import type { RateSample } from '../../src/sim/transport/cc/types.js';
import { CA_OPEN } from '../../src/sim/transport/tcp.js';
import { Harness } from './tcp-harness.js';

const MSS = 1000;

/** A rate sample of an ACK in the Open state with no loss, not app-limited (the fields every BBR test here shares). */
function openSample(fields: Omit<RateSample, 'isAppLimited' | 'lostBytes' | 'caState' | 'mss'>): RateSample {
  return { ...fields, isAppLimited: false, lostBytes: 0, caState: CA_OPEN, mss: MSS };
}

/** Feed one RTT's worth of single-segment ACKs per RTT, spaced evenly, until `untilPs`; sample cwnd (segments). */
function ackClock(
  cc: CubicCc | RenoCc,
  w: { cwnd: number; ssthresh: number; mss: number },
  rttPs: number,
  untilPs: number,
): Map<number, number> {
  const samples = new Map<number, number>();
  let t = 0;
  let nextSample = 0;
  while (t < untilPs) {
    cc.congAvoid(w, MSS, t, rttPs, rttPs);
    if (t >= nextSample) {
      samples.set(nextSample, w.cwnd / MSS);
      nextSample += 1e12;
    }
    t += rttPs / (w.cwnd / MSS);
  }
  return samples;
}

describe('Reno', () => {
  it('congestion avoidance adds one segment per RTT; a loss halves cwnd (Linux tcp_reno_ssthresh)', () => {
    const reno = new RenoCc();
    const w = { cwnd: 100 * MSS, ssthresh: 50 * MSS, mss: MSS };
    for (let rtt = 0; rtt < 10; rtt++) for (let i = 0, n = w.cwnd / MSS; i < n; i++) reno.congAvoid(w, MSS);
    expect(w.cwnd / MSS).toBeCloseTo(110, 0);
    expect(reno.ssthresh({ ...w, cwnd: 80 * MSS })).toBe(40 * MSS);
  });
});

describe('CUBIC', () => {
  it('after a loss at W_max = 1000 segments the window follows W(t) = C (t - K)^3 + W_max within 1%', () => {
    const cubic = new CubicCc();
    const w = { cwnd: 1000 * MSS, ssthresh: Infinity, mss: MSS };
    w.ssthresh = cubic.ssthresh(w);
    w.cwnd = w.ssthresh;
    expect(w.cwnd / MSS).toBeCloseTo(1000 * CUBIC_BETA, 6);
    // 100 ms RTT keeps CUBIC out of the Reno-friendly region; K = cbrt(W_max (1 - beta) / C).
    const k = Math.cbrt((1000 * (1 - CUBIC_BETA)) / CUBIC_C);
    const samples = ackClock(cubic, w, 100e9, 2 * k * 1e12);
    expect(samples.size).toBeGreaterThan(15);
    for (const [tPs, cwnd] of samples) {
      const t = tPs / 1e12;
      const expected = CUBIC_C * (t - k) ** 3 + 1000;
      expect(Math.abs(cwnd - expected) / expected).toBeLessThan(0.01);
    }
  });

  it('fast convergence: a loss below the previous W_max remembers W_max (1 + beta) / 2 (RFC 9438 4.7)', () => {
    const cubic = new CubicCc();
    const w = { cwnd: 1000 * MSS, ssthresh: Infinity, mss: MSS };
    cubic.ssthresh(w);
    w.cwnd = 800 * MSS;
    cubic.ssthresh(w);
    expect(cubic.wMaxSeg).toBeCloseTo((800 * (1 + CUBIC_BETA)) / 2, 6);
    cubic.onTimeout();
    expect(cubic.wMaxSeg).toBe(0);
  });

  it('on a short RTT it grows at least as fast as Reno would (the Reno-friendly region, RFC 9438 4.3)', () => {
    const cubic = new CubicCc();
    const w = { cwnd: 100 * MSS, ssthresh: Infinity, mss: MSS };
    w.ssthresh = cubic.ssthresh(w);
    w.cwnd = w.ssthresh;
    // 1 ms RTT for 1 s: 1,000 RTTs at the Reno-friendly 3 (1 - beta) / (1 + beta) segments per RTT,
    // while the cubic curve alone (K = 4.2 s) would still be below W_max = 100.
    ackClock(cubic, w, 1e9, 1e12);
    const alpha = (3 * (1 - CUBIC_BETA)) / (1 + CUBIC_BETA);
    expect(w.cwnd / MSS).toBeGreaterThanOrEqual(70 + 0.95 * alpha * 1000);
    expect(w.cwnd / MSS).toBeLessThanOrEqual(70 + 1.05 * alpha * 1000);
  });
});

describe('DCTCP', () => {
  it('alpha tends to the marked fraction (g = 1/16) and an echo cuts cwnd by alpha / 2 once per window', () => {
    const dctcp = new DctcpCc();
    const w = { cwnd: 100 * MSS, ssthresh: Infinity, mss: MSS };
    let una = 0;
    // 20,000 ACKs with a window of 100 segments in flight, every second ACK echoing CE.
    for (let i = 0; i < 20_000; i++) {
      dctcp.inAckEvent(w, una + MSS, una, una + 100 * MSS, i % 2 === 0, false);
      una += MSS;
      w.cwnd = 100 * MSS;
    }
    expect(dctcp.alpha).toBeCloseTo(0.5, 2);
    dctcp.inAckEvent(w, una + MSS, una, una + 100 * MSS, true, false);
    expect(w.cwnd / MSS).toBeCloseTo(100 * (1 - dctcp.alpha / 2), 0);
  });
});

describe('BBR v1 on a 100 Mb/s, 10 ms path', () => {
  // 12.5 s of one long flow with 0.5% random loss: every phase of tcp_bbr.c, including PROBE_RTT at 10 s.
  const run = (rack: boolean) => {
    const h = new Harness({ cc: 'bbr', rack }, 10e9);
    h.conn.appLimit = 1e12;
    const bbr = h.conn.cc as BbrCc;
    const modes: { mode: number; atPs: number }[] = [];
    const gains = new Set<number>();
    let minOpenCwnd = Infinity;
    let probeRttMaxCwnd = 0;
    let seed = 7;
    h.runPath({
      rateBps: 100e6,
      oneWayPs: 5e9,
      bufferBytes: 100_000,
      untilPs: 12.5e12,
      drop: () => {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        return (seed >>> 16) % 1000 < 5;
      },
      onAck: () => {
        if (modes.at(-1)?.mode !== bbr.mode) modes.push({ mode: bbr.mode, atPs: h.now });
        if (h.conn.lossState === CA_OPEN) minOpenCwnd = Math.min(minOpenCwnd, h.conn.cwndBytes);
        if (bbr.mode === BBR_PROBE_RTT) probeRttMaxCwnd = Math.max(probeRttMaxCwnd, h.conn.cwndBytes);
        if (bbr.mode === BBR_PROBE_BW) gains.add(bbr.pacingGain);
      },
    });
    return { h, bbr, modes, gains, minOpenCwnd, probeRttMaxCwnd };
  };

  for (const rack of [false, true]) {
    it(`${rack ? 'with' : 'without'} RACK-TLP: STARTUP, DRAIN, PROBE_BW's gain cycle, PROBE_RTT for 200 ms after 10 s, cwnd never below 4 packets`, () => {
      const r = run(rack);
      expect(r.modes.map((m) => m.mode)).toEqual([
        BBR_STARTUP,
        BBR_DRAIN,
        BBR_PROBE_BW,
        BBR_PROBE_RTT,
        BBR_PROBE_BW,
      ]);
      // STARTUP ends after about a dozen round trips (three rounds without 25% growth); without RACK
      // a lost retransmission holds DRAIN until the RTO (RFC 6675 retransmits a hole only once).
      expect(r.modes[1]!.atPs).toBeLessThan(0.15e12);
      expect(r.modes[2]!.atPs).toBeLessThan(rack ? 0.2e12 : 0.5e12);
      const probeRtt = r.modes[3]!;
      expect(probeRtt.atPs).toBeGreaterThan(10e12);
      expect(probeRtt.atPs).toBeLessThan(10.2e12);
      expect(r.modes[4]!.atPs - probeRtt.atPs).toBeGreaterThanOrEqual(200e9);
      expect(r.probeRttMaxCwnd).toBeLessThanOrEqual(BBR_CWND_MIN_SEGMENTS * MSS);
      expect(r.minOpenCwnd).toBeGreaterThanOrEqual(BBR_CWND_MIN_SEGMENTS * MSS);
      expect([...r.gains].sort()).toEqual([0.75, 1, 1.25]);
      // The bandwidth filter holds the payload rate (1000 B of 1040 on the wire), paced 1% under it.
      const payloadBytesPerPs = (100e6 / 8 / 1e12) * (1000 / 1040);
      expect(r.bbr.bw.value / payloadBytesPerPs).toBeGreaterThan(0.97);
      expect(r.bbr.bw.value / payloadBytesPerPs).toBeLessThan(1.03);
      expect(r.h.conn.delivered).toBeGreaterThan(0.9 * payloadBytesPerPs * 12.5e12);
    });
  }
});

describe('BBR v1 ACK aggregation (tcp_bbr.c bbr_update_ack_aggregation)', () => {
  // 1 Gb/s, 100 us min RTT, 20 ms of ACKs that each acknowledge `burst` segments at the same average rate.
  const cwndAfter = (burst: number): number => {
    const bytesPerPs = 1e9 / 8 / 1e12;
    const rttPs = 100e6;
    const w = { cwnd: 10 * MSS, ssthresh: Infinity, mss: MSS };
    const bbr = new BbrCc(w, { initialRttPs: rttPs, seed: 1 });
    let delivered = 0;
    const history: [number, number][] = [];
    for (let t = 0; t < 20e9; t += (burst * MSS) / bytesPerPs) {
      delivered += burst * MSS;
      history.push([t, delivered]);
      while (history.length > 1 && history[0]![0] < t - rttPs) history.shift();
      const [t0, d0] = history[0]!;
      bbr.congControl(
        w,
        openSample({
          nowPs: t,
          ackedBytes: burst * MSS,
          deliveredBytes: delivered - d0 + burst * MSS,
          intervalPs: Math.max(rttPs, t - t0),
          priorDelivered: d0 - burst * MSS,
          rttPs,
          inflightBytes: bytesPerPs * rttPs,
          totalDelivered: delivered,
        }),
      );
    }
    expect(bbr.mode).toBe(BBR_PROBE_BW);
    return w.cwnd / MSS;
  };

  it('ACKs that come in bursts raise cwnd by at least the burst over smooth ACKs at the same rate', () => {
    const smooth = cwndAfter(1);
    const burst8 = cwndAfter(8);
    const burst16 = cwndAfter(16);
    expect(burst8 - smooth).toBeGreaterThanOrEqual(7);
    expect(burst8 - smooth).toBeLessThanOrEqual(3 * 8);
    expect(burst16).toBeGreaterThan(burst8);
  });
});

describe('BBR v1 restart from idle (tcp_bbr.c bbr_cwnd_event, CA_EVENT_TX_START)', () => {
  // 1 Gb/s, 100 us min RTT, smooth ACKs for 20 ms: BBR is in PROBE_BW with a bandwidth estimate.
  const rttPs = 100e6;
  const bytesPerPs = 1e9 / 8 / 1e12;
  const sample = (t: number, delivered: number): RateSample =>
    openSample({
      nowPs: t,
      ackedBytes: MSS,
      deliveredBytes: bytesPerPs * rttPs,
      intervalPs: rttPs,
      priorDelivered: delivered - bytesPerPs * rttPs,
      rttPs,
      inflightBytes: bytesPerPs * rttPs,
      totalDelivered: delivered,
    });
  const probing = (): {
    bbr: BbrCc;
    w: { cwnd: number; ssthresh: number; mss: number };
    t: number;
    d: number;
  } => {
    const w = { cwnd: 10 * MSS, ssthresh: Infinity, mss: MSS };
    const bbr = new BbrCc(w, { initialRttPs: rttPs, seed: 1 });
    let t = 0;
    let d = 0;
    for (; t < 20e9; t += MSS / bytesPerPs) {
      d += MSS;
      bbr.congControl(w, sample(t, d));
    }
    expect(bbr.mode).toBe(BBR_PROBE_BW);
    return { bbr, w, t, d };
  };

  it('sending again after an app-limited idle paces at the bandwidth estimate (gain 1), not the probing gain', () => {
    const { bbr, w, t } = probing();
    const bw = bbr.bw.value;
    bbr.pacingBytesPerPs = bw * 1.25 * 0.99;
    bbr.onTxStart(w, t, false);
    expect(bbr.pacingBytesPerPs).toBeCloseTo(bw * 1.25 * 0.99, 12);
    bbr.onTxStart(w, t, true);
    expect(bbr.pacingBytesPerPs).toBeCloseTo(bw * 0.99, 12);
  });

  it('the first ACK after an idle restart refreshes the min RTT without entering PROBE_RTT', () => {
    const later = 11e12;
    const idle = probing();
    idle.bbr.onTxStart(idle.w, later, true);
    idle.bbr.congControl(idle.w, sample(later + rttPs, idle.d + MSS));
    expect(idle.bbr.mode).toBe(BBR_PROBE_BW);
    const busy = probing();
    busy.bbr.congControl(busy.w, sample(later + rttPs, busy.d + MSS));
    expect(busy.bbr.mode).toBe(BBR_PROBE_RTT);
  });
});

describe('the sender tells its congestion control when it starts from idle (tcp_event_data_sent)', () => {
  for (const rack of [false, true]) {
    it(`${rack ? 'with' : 'without'} RACK-TLP: once, on the first packet with nothing in flight, app-limited after the application ran dry`, () => {
      const h = new Harness({ cc: 'bbr', rack });
      const bbr = h.conn.cc as BbrCc;
      const onTxStart = vi.spyOn(bbr, 'onTxStart');
      // BBR paces: send what is ready every 0.1 ms for 5 ms.
      const sendFor = (fromPs: number): number => {
        let sent = 0;
        for (let t = fromPs; t <= fromPs + 5e9; t += 1e8) {
          h.advance(t);
          sent += h.send().length;
        }
        return sent;
      };
      expect(sendFor(0)).toBe(10);
      expect(onTxStart).toHaveBeenCalledTimes(1);
      h.advance(10e9);
      h.ack(10 * MSS, [], 0);
      expect(h.send()).toHaveLength(0);
      h.conn.appLimit += 4 * MSS;
      expect(sendFor(10e9)).toBe(4);
      expect(onTxStart).toHaveBeenCalledTimes(2);
      expect(onTxStart.mock.calls[1]![2]).toBe(true);
    });
  }
});

describe('BBR v1 long-term bandwidth (tcp_bbr.c bbr_lt_bw_sampling: policer detection)', () => {
  // 1 Gb/s, 100 us min RTT until PROBE_BW; then a policer: 250 Mb/s delivered and one packet lost in three.
  const rttPs = 100e6;
  const fast = 1e9 / 8 / 1e12;
  const policed = fast / 4;
  const sample = (t: number, delivered: number, rate: number, lost: number): RateSample => ({
    ...openSample({
      nowPs: t,
      ackedBytes: MSS,
      deliveredBytes: rate * rttPs,
      intervalPs: rttPs,
      priorDelivered: delivered - rate * rttPs,
      rttPs,
      inflightBytes: rate * rttPs,
      totalDelivered: delivered,
    }),
    lostBytes: lost,
  });

  it('two intervals of a fifth or more lost at the same delivery rate: paced at their average with gain 1, for 48 rounds', () => {
    const w = { cwnd: 10 * MSS, ssthresh: Infinity, mss: MSS };
    const bbr = new BbrCc(w, { initialRttPs: rttPs, seed: 1 });
    let t = 0;
    let d = 0;
    for (; t < 20e9; t += MSS / fast) {
      d += MSS;
      bbr.congControl(w, sample(t, d, fast, 0));
    }
    expect(bbr.mode).toBe(BBR_PROBE_BW);
    expect(bbr.ltUseBw).toBe(false);
    let n = 0;
    for (; t < 25e9 && !bbr.ltUseBw; t += MSS / policed) {
      d += MSS;
      bbr.congControl(w, sample(t, d, policed, ++n % 3 === 0 ? MSS : 0));
    }
    expect(bbr.ltUseBw).toBe(true);
    expect(bbr.ltBw / policed).toBeCloseTo(1, 1);
    expect(bbr.pacingBytesPerPs).toBeCloseTo(bbr.ltBw * 0.99, 12);
    expect(bbr.pacingGain).toBe(1);
    // 48 rounds of PROBE_BW later, gain cycling resumes.
    const from = bbr.roundCount;
    for (; bbr.roundCount < from + 47; t += MSS / policed) {
      d += MSS;
      bbr.congControl(w, sample(t, d, policed, 0));
    }
    expect(bbr.ltUseBw).toBe(true);
    for (; bbr.roundCount < from + 49; t += MSS / policed) {
      d += MSS;
      bbr.congControl(w, sample(t, d, policed, 0));
    }
    expect(bbr.ltUseBw).toBe(false);
  });

  it('the same delivery rate without the losses is no policer', () => {
    const w = { cwnd: 10 * MSS, ssthresh: Infinity, mss: MSS };
    const bbr = new BbrCc(w, { initialRttPs: rttPs, seed: 1 });
    let d = 0;
    for (let t = 0; t < 20e9; t += MSS / fast) bbr.congControl(w, sample(t, (d += MSS), fast, 0));
    let n = 0;
    for (let t = 20e9; t < 25e9; t += MSS / policed)
      bbr.congControl(w, sample(t, (d += MSS), policed, ++n % 20 === 0 ? MSS : 0));
    expect(bbr.ltUseBw).toBe(false);
  });
});
