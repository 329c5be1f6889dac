/**
 * Issue 13, part 3: PFC deadlock on a ring (finding sim.pfc-deadlock with the cycle of ports), the
 * PFC watchdog that breaks it, up-down routing that avoids it, and a NIC pause storm (finding
 * sim.pause-storm with its victims and the pause propagation), with their bad inputs.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import type { Finding } from '../../src/core/envelope.js';
import { runScenario } from '../../src/sim/run.js';
import { loadScenario, parseScenario } from '../../src/sim/scenario.js';
import type { Scenario } from '../../src/sim/scenario-schema.js';
import { renderSimText } from '../../src/cli/render/sim-text.js';
import { ringPaths } from '../../src/sim/topo/index.js';

const DIR = join(import.meta.dirname, '..', '..', 'examples', 'scenarios');
type Metrics = Record<string, unknown>;
const CYCLE = ['s0->s1', 's1->s2', 's2->s3', 's3->s0'];

function deadlockScenario(edit: (s: Scenario) => void = () => {}): Scenario {
  const s = loadScenario(join(DIR, 'pfc-deadlock.yaml'));
  edit(s);
  return s;
}
const byRule = (findings: Finding[] | undefined, rule: string): Finding[] =>
  (findings ?? []).filter((f) => f.ruleId === rule);

describe('ring routes', () => {
  it('clockwise, shortest (ties clockwise) and up-down (never up after down) on 4 switches', () => {
    const cw = ringPaths({ switches: 4, routing: 'clockwise', failedCables: [] });
    expect(cw(0, 2)).toEqual([0, 1, 2]);
    expect(cw(3, 1)).toEqual([3, 0, 1]);
    const shortest = ringPaths({ switches: 4, routing: 'shortest', failedCables: [] });
    expect(shortest(1, 3)).toEqual([1, 2, 3]);
    expect(shortest(1, 0)).toEqual([1, 0]);
    const upDown = ringPaths({ switches: 4, routing: 'up-down', failedCables: [] });
    // Levels from s0: s1 and s3 at 1, s2 at 2. s1 -> s2 -> s3 goes down then up: refused.
    expect(upDown(1, 3)).toEqual([1, 0, 3]);
    expect(upDown(3, 1)).toEqual([3, 0, 1]);
    expect(upDown(0, 2)).toEqual([0, 1, 2]);
    // With cable s0-s1 down, s0 reaches s1 only through s3, s2: down, down, up.
    expect(ringPaths({ switches: 4, routing: 'up-down', failedCables: [[0, 1]] })(0, 1)).toBeNull();
    expect(ringPaths({ switches: 4, routing: 'shortest', failedCables: [[0, 1]] })(0, 1)).toEqual([
      0, 3, 2, 1,
    ]);
  });
});

describe('PFC deadlock', () => {
  it('without the watchdog: a cycle of four paused ports stands until maxTime, reported as an error', () => {
    const result = runScenario(
      deadlockScenario((s) => {
        delete s.switch.pfc!.watchdog;
        s.sim.maxTime = 1e-3;
      }),
    );
    const m = result.metrics as Metrics;
    expect(m.status).toBe('time-limit');
    const [d, ...rest] = byRule(result.findings, 'sim.pfc-deadlock');
    expect(rest).toHaveLength(0);
    expect(d!.severity).toBe('error');
    expect(d!.cycle).toEqual(CYCLE);
    expect(d!.brokenUs).toBeNull();
    expect(d!.flowIds).toEqual([0, 1, 2, 3]);
    expect(d!.formedUs as number).toBeGreaterThan(0);
    expect(d!.formedUs as number).toBeLessThan(50);
    expect(d!.stuckBytes as number).toBeGreaterThan(0);
    expect(d!.message).toMatch(/s0->s1 -> s1->s2 -> s2->s3 -> s3->s0 -> s0->s1; formed at .*still standing/);
    expect(m.pfcDeadlocks).toBe(1);
    expect(m.drops).toBe(0);
    expect(m.watchdogDrops).toBeUndefined();
  });

  it('with the watchdog (the example): the cycle is broken by drops, RoCE repairs them, every flow finishes', () => {
    const result = runScenario(deadlockScenario());
    const m = result.metrics as Metrics;
    expect(m.status).toBe('done');
    expect(m.bytesDelivered).toBe(m.bytesOfferedByApp);
    const deadlocks = byRule(result.findings, 'sim.pfc-deadlock');
    expect(deadlocks.length).toBeGreaterThan(0);
    for (const d of deadlocks) {
      expect(d.cycle).toEqual(CYCLE);
      expect(d.severity).toBe('warn');
      // Broken one timeout (200 us) after the first port of the cycle was paused, so at most that after it closed.
      expect(d.brokenUs as number).toBeGreaterThan(d.formedUs as number);
      expect((d.brokenUs as number) - (d.formedUs as number)).toBeLessThanOrEqual(200);
    }
    const [wd] = byRule(result.findings, 'sim.pfc-watchdog');
    expect(wd!.drops as number).toBeGreaterThan(0);
    expect(m.watchdogDrops).toBe(wd!.drops);
    expect(m.drops).toBe(m.watchdogDrops);
    expect(m.losslessDrops).toBe(0);
    expect(m.retransmittedPackets as number).toBeGreaterThan(0);
    expect(renderSimText(result)).toMatch(/PFC watchdog \(timeout 200 us\) stormed \d+ queues/);
  });

  it('up-down routing has no cyclic dependency: no deadlock, no drops, no watchdog needed', () => {
    const result = runScenario(
      deadlockScenario((s) => {
        delete s.switch.pfc!.watchdog;
        if (s.topology.kind === 'ring') s.topology.routing = 'up-down';
      }),
    );
    const m = result.metrics as Metrics;
    expect(m.status).toBe('done');
    expect(byRule(result.findings, 'sim.pfc-deadlock')).toHaveLength(0);
    expect(m.drops).toBe(0);
    expect(m.pfcDeadlocks).toBeUndefined();
  });

  it('features are off by default: a scenario without them gains no metric', () => {
    const m = runScenario(loadScenario(join(DIR, 'pfc-victim.yaml'))).metrics as Metrics;
    for (const key of ['watchdogDrops', 'watchdogTriggers', 'pfcDeadlocks'])
      expect(m).not.toHaveProperty(key);
  });
});

describe('pause storm', () => {
  const storm = (edit: (s: Scenario) => void = () => {}) => {
    const s = loadScenario(join(DIR, 'pause-storm.yaml'));
    edit(s);
    return runScenario(s);
  };

  it('reports the storm, its spread from the storming port, and the one victim that never touches h4', () => {
    const result = storm();
    const m = result.metrics as Metrics;
    expect(m.status).toBe('done');
    expect(m.bytesDelivered).toBe(m.bytesOfferedByApp);
    const [f, ...rest] = byRule(result.findings, 'sim.pause-storm');
    expect(rest).toHaveLength(0);
    expect(f!.severity).toBe('error');
    expect(f!.source).toBe('h4');
    const victims = f!.victims as { flowId: number; src: number; dst: number; pausedUs: number }[];
    expect(victims.map((v) => [v.src, v.dst])).toEqual([[1, 5]]);
    expect(victims[0]!.pausedUs).toBeGreaterThan(0.5 * 500);
    const steps = f!.propagation as { link: string; parent: number; firstPausedUs: number }[];
    expect(steps.map((s) => s.link)).toEqual([
      'leaf1->h4',
      'spine0->leaf1',
      'leaf0->spine0',
      'h0->leaf0',
      'h1->leaf0',
    ]);
    expect(steps.map((s) => s.parent)).toEqual([-1, 0, 1, 2, 2]);
    for (let i = 1; i < steps.length; i++)
      expect(steps[i]!.firstPausedUs).toBeGreaterThanOrEqual(steps[steps[i]!.parent]!.firstPausedUs);
    const text = renderSimText(result);
    expect(text).toMatch(/pause propagation from h4/);
    expect(text).toMatch(/└─ spine0->leaf1/);
  });

  it("the local flows keep their rate; the watchdog drops at the stormed port and shortens the victim's pause", () => {
    const plain = storm();
    const flows = (plain.metrics as Metrics).flows as { src: number; goodputGbps: number }[];
    for (const f of flows.filter((x) => x.src === 2 || x.src === 6))
      expect(f.goodputGbps).toBeGreaterThan(90);
    const guarded = storm((s) => {
      s.switch.pfc!.watchdog = { timeout: 100e-6, restoration: 100e-6 };
    });
    const m = guarded.metrics as Metrics;
    expect(m.status).toBe('done');
    expect(m.watchdogDrops as number).toBeGreaterThan(0);
    const triggers = m.watchdogTriggers as { link: string }[];
    expect(new Set(triggers.map((t) => t.link))).toEqual(new Set(['leaf1->h4']));
    const paused = (r: typeof plain): number =>
      (byRule(r.findings, 'sim.pause-storm')[0]!.victims as { pausedUs: number }[])[0]?.pausedUs ?? 0;
    expect(paused(guarded)).toBeLessThan(paused(plain));
  });
});

describe('bad input: one file:line:col line, exit 2', () => {
  const ring = (topology: string, sw = '', extra = ''): string =>
    `name: t\ntopology:\n  kind: ring\n  switches: 4\n${topology}  linkRate: 100Gbps\nswitch:\n  buffer: 128KiB\n${sw}transport:\n  kind: roce\n${extra}workloads:\n  - { kind: flow, src: 0, dst: 2, size: 1MiB }\n`;
  const errorOf = (text: string): string => {
    try {
      parseScenario(text, 's.yaml');
    } catch (error) {
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).exitCode).toBe(2);
      expect((error as Error).message.split('\n')).toHaveLength(1);
      return (error as Error).message;
    }
    throw new Error('expected the scenario to be rejected');
  };

  it('up-down routing with a pair that has no up-down route names the pair', () => {
    expect(errorOf(ring('  routing: up-down\n  failedCables: [[0, 1]]\n'))).toMatch(
      /^s\.yaml:5:12 topology\.routing: no up-down route from s0 to s1 with cable s0-s1 down/,
    );
  });

  it('a watchdog with no timeout', () => {
    expect(errorOf(ring('', '  pfc:\n    watchdog: {}\n'))).toMatch(
      /^s\.yaml:9:15 switch\.pfc\.watchdog\.timeout: a PFC watchdog needs a timeout/,
    );
  });

  it('a failed cable between switches that are not adjacent, a storm without PFC, a storm on a missing host', () => {
    expect(errorOf(ring('  failedCables: [[0, 2]]\n'))).toMatch(
      /^s\.yaml:5:18 topology\.failedCables\[0\]: s0 and s2 are not adjacent/,
    );
    expect(errorOf(ring('', '', 'pauseStorms: [{ host: 1 }]\n'))).toMatch(
      /^s\.yaml:\d+:\d+ pauseStorms\[0\]: a pause storm needs PFC/,
    );
    expect(errorOf(ring('', '  pfc: {}\n', 'pauseStorms: [{ host: 9 }]\n'))).toMatch(
      /pauseStorms\[0\]\.host: host 9 does not exist/,
    );
  });
});
