/**
 * The model's TCP loss term (docs/models.md section 2, "Retransmission timeouts"): NCCL's socket split
 * of a step, Linux's RACK-TLP (a lone packet's loss waits for the RTO, a burst's tail for the probe),
 * the expectation a training run pays against the typical row nccl-tests prints over -n iterations.
 */
import { describe, expect, it } from 'vitest';
import {
  binomialMedian,
  estimateCollective,
  lossStalls,
  resolveFabric,
  shapeFor,
  stepBursts,
  stepStallProbabilities,
} from '../../src/index.js';

const tcpxo = resolveFabric('tcpxo-200g');
const PAYLOAD = 8244 - 52;

describe('the TCP loss term', () => {
  it("splits a step as NCCL's socket transport does: 64 KiB tasks over the sockets, a request per 512 KiB", () => {
    expect(stepBursts(8, 16, PAYLOAD)).toEqual({ sockets: 1, packetsPerSocket: 1, requests: 1 });
    expect(stepBursts(64 * 1024, 16, PAYLOAD)).toEqual({ sockets: 1, packetsPerSocket: 8, requests: 1 });
    expect(stepBursts(1024 * 1024, 16, PAYLOAD)).toEqual({ sockets: 16, packetsPerSocket: 8, requests: 2 });
    expect(stepBursts(1024 * 1024, 2, PAYLOAD)).toEqual({ sockets: 2, packetsPerSocket: 64, requests: 2 });
  });

  it('a lone packet waits for the RTO, the tail of a longer burst for the probe', () => {
    const p = 1e-5;
    const lone = stepStallProbabilities(p, stepBursts(8, 16, PAYLOAD));
    // the data packet and the request's size on the control socket, each alone
    expect(lone.rto).toBeCloseTo(2 * p + 2 * p * p, 12);
    expect(lone.tlp).toBe(0);
    const burst = stepStallProbabilities(p, stepBursts(1024 * 1024, 16, PAYLOAD));
    expect(burst.rto).toBeCloseTo((16 * 8 + 2) * p * p, 15);
    expect(burst.tlp).toBeCloseTo(17 * p, 12);
    expect(stepStallProbabilities(0, stepBursts(8, 16, PAYLOAD))).toEqual({ rto: 0, tlp: 0 });
  });

  it('binomialMedian is the median of the binomial distribution', () => {
    const brute = (n: number, q: number): number => {
      let cumulative = 0;
      for (let k = 0; k <= n; k++) {
        let c = 1;
        for (let j = 0; j < k; j++) c = (c * (n - j)) / (j + 1);
        cumulative += c * q ** k * (1 - q) ** (n - k);
        if (cumulative >= 0.5 - 1e-12) return k;
      }
      return n;
    };
    for (const n of [1, 2, 5, 20, 37])
      for (const q of [0, 1e-4, 0.01, 0.03, 0.034, 0.035, 0.1, 0.5, 0.9, 1])
        expect(binomialMedian(n, q), `${n} ${q}`).toBe(brute(n, q));
  });

  it('a stall too rare for 20 iterations is in the expectation, not in the typical row; 2,000 iterations show it', () => {
    // 8 B, 2 network steps over 16 connections: a = 1 - (1 - 2p - 2p^2)^32, about 6.4e-4.
    const a = 1 - (1 - 2e-5 - 2e-10) ** 32;
    const twenty = lossStalls(tcpxo, 2, 16, 8, 20);
    expect(twenty.expectedUs).toBeCloseTo(a * 200_000, 6);
    expect(twenty.typicalUs).toBe(0);
    const many = lossStalls(tcpxo, 2, 16, 8, 2000);
    expect(binomialMedian(2000, a)).toBe(1);
    expect(many.typicalUs).toBeCloseTo(200_000 / 2000, 6);
    expect(many.expectedUs).toBeCloseTo(twenty.expectedUs, 9);
  });

  it('at 1% loss a 4 MiB step stalls in most calls, and the typical row carries it', () => {
    const lossy = { ...tcpxo, tcp: { ...tcpxo.tcp!, lossRate: 0.01, streamsPerPeer: 1 } };
    const stalls = lossStalls(lossy, 6, 4, 4 * 1024 * 1024, 20);
    expect(stalls.typicalUs).toBeGreaterThan(0.9 * stalls.expectedUs);
    expect(stalls.expectedUs).toBeGreaterThan(100_000);
  });

  it('a larger step is never modelled as stalling less: the second packet and the second request keep the figure', () => {
    let last = 0;
    for (let bytes = 1; bytes <= 2 * 1024 * 1024; bytes = Math.ceil(bytes * 1.07)) {
      const { expectedUs } = lossStalls(tcpxo, 2, 16, bytes, 20);
      expect(expectedUs, String(bytes)).toBeGreaterThanOrEqual(last);
      last = expectedUs;
    }
  });

  it('RDMA and lossless TCP have no stall; the collective keeps the expectation apart from its typical time', () => {
    expect(lossStalls(resolveFabric('roce-400g'), 2, 16, 8, 20)).toEqual({ expectedUs: 0, typicalUs: 0 });
    const shape = shapeFor({ nodes: 2, gpusPerNode: 8, fabric: 'tcpxo-200g', gpu: 'h100-sxm' });
    const row = estimateCollective('all_reduce', 8, shape, 'auto');
    expect(row.stallUs).toBe(0);
    expect(row.timeoutDelayUs).toBeGreaterThan(50);
    expect(row.timeUs).toBeCloseTo(row.latencyUs + row.bandwidthTimeUs, 9);
  });
});
