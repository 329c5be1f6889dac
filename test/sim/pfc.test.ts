/** Acceptance: PFC with headroom at the bound loses nothing; below the bound it is refused or counted. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { pfcHeadroomBoundBytes, defaultPfcResponseDelayNs } from '../../src/sim/net/headroom.js';
import { roceWireBytes } from '../../src/sim/net/wire.js';
import { loadScenario, parseScenario, validateScenario } from '../../src/sim/scenario.js';
import { runPacket } from '../../src/sim/packet-run.js';
import { simulate } from './helpers.js';

describe('PFC headroom bound', () => {
  it('is 2 x cable delay x rate + 3 MTU + pause frame + response time', () => {
    // 100 Gb/s, 1 us cable: 25,000 B in flight both ways, 394 quanta x 512 bit = 25,216 B of response.
    const response = defaultPfcResponseDelayNs(100e9);
    expect(response).toBeCloseTo((394 * 512) / 100, 6);
    expect(pfcHeadroomBoundBytes(100e9, 1000, 4178, response)).toBe(
      Math.ceil(25_000 + 25_216 + 3 * 4178 + 84),
    );
  });
});

describe('lossless with computed headroom', () => {
  it('the 64-to-1 RoCE incast with small buffers drops nothing and delivers everything', () => {
    const scenario = loadScenario('examples/scenarios/incast-roce-pfc.yaml');
    const run = runPacket(scenario, validateScenario(scenario), 1);
    expect(run.status).toBe('done');
    expect(run.sim.drops).toBe(0);
    expect(run.sim.deliveredBytes).toBe(64 * 1024 * 1024);
    // Pauses did the work: the switch paused its senders.
    expect(run.sim.pfc.pauseFramesSent).toBeGreaterThan(0);
  });

  it('property: random small PFC scenarios never drop a packet', () => {
    let paused = 0;
    fc.assert(
      fc.property(
        fc.record({
          leafSpine: fc.boolean(),
          hosts: fc.integer({ min: 3, max: 10 }),
          rateGbps: fc.constantFrom(10, 25, 100, 400),
          delayNs: fc.integer({ min: 100, max: 5000 }),
          extraBufferKiB: fc.integer({ min: 4, max: 256 }),
          senders: fc.integer({ min: 2, max: 9 }),
          blockKiB: fc.integer({ min: 16, max: 512 }),
          xoffAlpha: fc.constantFrom(0, 1 / 16, 1 / 8, 1),
          dcqcn: fc.boolean(),
          mtu: fc.constantFrom(1024, 4096),
          seed: fc.integer({ min: 1, max: 1000 }),
        }),
        (p) => {
          const senders = Math.min(p.senders, p.hosts - 1);
          const rate = p.rateGbps * 1e9;
          // Per-port buffer: the headroom bound (its uplinks are faster on a leaf-spine) plus some shared room.
          const uplinkRate = p.leafSpine ? rate * 2 : rate;
          const bound = pfcHeadroomBoundBytes(
            uplinkRate,
            p.delayNs,
            roceWireBytes(p.mtu),
            defaultPfcResponseDelayNs(uplinkRate),
          );
          const buffer = bound + p.extraBufferKiB * 1024;
          const topology = p.leafSpine
            ? {
                kind: 'leaf-spine',
                hosts: p.hosts,
                hostsPerLeaf: 2,
                spines: 1,
                linkRate: `${p.rateGbps}Gbps`,
                linkDelay: `${p.delayNs}ns`,
              }
            : { kind: 'star', hosts: p.hosts, linkRate: `${p.rateGbps}Gbps`, linkDelay: `${p.delayNs}ns` };
          const { run } = simulate(
            {
              topology,
              switch: {
                buffer,
                ecn: { kmin: '5KB', kmax: '200KB', pmax: 0.01 },
                pfc: { xoffAlpha: p.xoffAlpha },
              },
              transport: { kind: 'roce', roce: { mtu: p.mtu, dcqcn: { enabled: p.dcqcn } } },
              workloads: [
                { kind: 'incast', receiver: 0, senders, blockSize: `${p.blockKiB}KiB`, rounds: 2 },
                { kind: 'flow', src: p.hosts - 1, dst: 1, size: `${p.blockKiB}KiB` },
              ],
            },
            p.seed,
          );
          expect(run.status).toBe('done');
          expect(run.sim.drops).toBe(0);
          expect(run.sim.deliveredBytes).toBe(run.sim.offeredBytes);
          if (run.sim.pfc.pauseFramesSent > 0) paused++;
        },
      ),
      { numRuns: 30, seed: 42 },
    );
    // The property is only worth something if PFC actually had to act in most cases.
    expect(paused).toBeGreaterThan(15);
  });
});

const insufficient = (allow: boolean): string => `name: thin-headroom
topology:
  kind: star
  hosts: 9
  linkRate: 100Gbps
  linkDelay: 5us
switch:
  buffer: 512KiB
  pfc:
    headroom: 16KiB
    allowInsufficientHeadroom: ${allow}
transport:
  kind: roce
  roce:
    dcqcn:
      enabled: false
workloads:
  - kind: incast
    senders: 8
    blockSize: 2MiB
`;

describe('headroom below the bound', () => {
  it('is rejected at its YAML line', () => {
    expect(() => parseScenario(insufficient(false), 'thin.yaml')).toThrow(InputError);
    expect(() => parseScenario(insufficient(false), 'thin.yaml')).toThrow(
      /^thin\.yaml:10:15 switch\.pfc\.headroom: 16384 B is below the PFC headroom bound/,
    );
  });

  it('with allowInsufficientHeadroom: true the lossless drops are counted and repaired by go-back-N', () => {
    const scenario = parseScenario(insufficient(true), 'thin.yaml');
    const run = runPacket(scenario, validateScenario(scenario), 1);
    expect(run.sim.losslessDrops).toBeGreaterThan(0);
    expect(run.sim.drops).toBe(run.sim.losslessDrops);
    expect(run.sim.counters.retransmittedPackets).toBeGreaterThan(0);
    expect(run.status).toBe('done');
    expect(run.sim.deliveredBytes).toBe(run.sim.offeredBytes);
  });
});
