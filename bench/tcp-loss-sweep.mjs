#!/usr/bin/env node
// A synchronous all_reduce over kernel TCP under random loss: the real kernel on the namespace
// testbed against the simulator's TCP and the analytic model, same ring, rate and loss (issue 13,
// part 2). For each congestion control and loss rate:
//  - testbed: `aifabric testbed up --hosts 4 --fault hK:loss=P` on every host's port (both
//    directions, switch side), the congestion control written into each host namespace, then
//    `bench tcp --op all_reduce -b 16M -e 16M -n 20 --algo ring` with one rank per host;
//  - simulator: a 4-host star with the testbed's settings (testbedRingScenario: htb ports of the same
//    rate and buffer, the veth host side, GSO bursts, the kernel's ACK policy, the measured round
//    trip), loss on every host's cable, the same ring all_reduce for the same iterations, median over --seeds;
//  - model: `aifabric collective` on 4 nodes of one GPU over TCP at the same rate and loss.
// Prints algbw-derived busbw and time per iteration of each, and the ratios to the testbed.
// Needs root, iproute2 and a build (npm run build):
//   node bench/tcp-loss-sweep.mjs [--rate 500mbit] [--buffer 1M] [--losses 0,1e-4,1e-3,1e-2] [--cc bbr,reno]
//                                 [--size 16M] [--iters 20] [--warmup 5] [--seeds 3] [--slice 1M|none] [--json]
// `cubic` is listed by the kernel but a namespace may only pick from
// net.ipv4.tcp_allowed_congestion_control (here `reno bbr`); the machine's own sysctls are left alone.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { arg, cli } from './script-args.mjs';

const lib = await import(path.join(path.dirname(cli), '..', 'index.js'));

const rate = arg('rate', '500mbit');
const buffer = arg('buffer', '1M');
const losses = arg('losses', '0,1e-4,1e-3,1e-2').split(',').map(Number);
const ccs = arg('cc', 'bbr,reno').split(',');
const size = arg('size', '16M');
const iters = Number(arg('iters', '20'));
const warmup = Number(arg('warmup', '5'));
const seeds = Number(arg('seeds', '3'));
// The simulated ring's slice: bench tcp's 1 MiB by default, `none` for whole steps.
const slice = arg('slice', '1M');
const asJson = process.argv.includes('--json');
const hosts = 4;
const name = 'aifloss';
const log = (text) => process.stderr.write(`${text}\n`);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const aifabric = (args, timeout = 900_000) =>
  spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout });
const must = (run, what) => {
  if (run.status !== 0)
    throw new Error(`${what}: exit ${run.status ?? run.signal}: ${(run.stderr ?? '').slice(0, 800)}`);
  return run;
};
const sizeBytes = (() => {
  const m = /^(\d+)([KMG]?)$/i.exec(size);
  if (!m) throw new Error(`--size ${size}: expected e.g. 16M`);
  return Number(m[1]) * { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2].toLowerCase()];
})();

/** The ring's busbw from a time per iteration (nccl-tests: algbw x 2(n-1)/n). */
const busbwGBps = (timeUs) => (sizeBytes / (timeUs * 1e-6) / 1e9) * ((2 * (hosts - 1)) / hosts);

/** Round-trip time between two testbed hosts (ping, ms -> us), or null without ping: the simulator then takes its fallback cable. */
function pingRttUs() {
  const run = spawnSync(
    'ip',
    ['netns', 'exec', `${name}-h0`, 'ping', '-c', '5', '-i', '0.2', '-q', '10.99.0.2'],
    { encoding: 'utf8' },
  );
  const m = /= [\d.]+\/([\d.]+)\//.exec(run.stdout ?? '');
  return m ? Number(m[1]) * 1000 : null;
}

async function testbed(cc, loss) {
  aifabric(['testbed', 'down', '--name', name]);
  const faults = loss > 0 ? [...Array(hosts).keys()].flatMap((h) => ['--fault', `h${h}:loss=${loss}`]) : [];
  must(
    aifabric([
      'testbed',
      'up',
      '--name',
      name,
      '--hosts',
      String(hosts),
      '--rate',
      rate,
      '--buffer',
      buffer,
      ...faults,
    ]),
    'testbed up',
  );
  try {
    for (let h = 0; h < hosts; h++) {
      must(
        spawnSync(
          'ip',
          ['netns', 'exec', `${name}-h${h}`, 'sysctl', '-q', '-w', `net.ipv4.tcp_congestion_control=${cc}`],
          { encoding: 'utf8' },
        ),
        `set ${cc} in ${name}-h${h}`,
      );
    }
    const rtt = pingRttUs();
    const namespaces = [...Array(hosts).keys()].map((h) => `${name}-h${h}`);
    const before = await lib.testbed.tcpCounters(namespaces);
    const bench = [
      'bench',
      'tcp',
      '--op',
      'all_reduce',
      '-b',
      size,
      '-e',
      size,
      '-n',
      String(iters),
      '-w',
      String(warmup),
      '--algo',
      'ring',
      '-c',
      '0',
      '--json',
    ];
    const run = must(
      aifabric([
        'testbed',
        'run',
        '--name',
        name,
        '--timeout',
        '900s',
        '--',
        process.execPath,
        cli,
        ...bench,
      ]),
      'bench tcp on the testbed',
    );
    // The kernel's own count of retransmission timeouts over the run (nstat), beside the simulator's.
    const after = await lib.testbed.tcpCounters(namespaces);
    const row = JSON.parse(run.stdout).metrics.rows[0];
    // Every drop in the switch: each port's bfifos and, on a faulty port, those of its hop uK (the
    // host's traffic into the switch).
    const drops = [...Array(hosts).keys()].reduce((sum, h) => {
      for (const dev of [`p${h}`, `u${h}`]) {
        const out = spawnSync('tc', ['-n', `${name}-sw`, '-s', 'qdisc', 'show', 'dev', dev], {
          encoding: 'utf8',
        }).stdout;
        sum += lib.testbed.bfifoDrops(out);
      }
      return sum;
    }, 0);
    const timeouts = after.timeouts - before.timeouts;
    return { timeUs: row.outOfPlace.timeUs, rttUs: rtt, drops, timeouts };
  } finally {
    aifabric(['testbed', 'down', '--name', name]);
  }
}

/** The testbed's own settings for the simulator (src/testbed/incast-sim.ts, as `testbed incast --compare-sim` uses). */
const settingsFor = (cc, rttUs) =>
  lib.testbed.testbedTcpSettings({
    rateBps: lib.parseRate(rate),
    bufferBytes: lib.parseSize(buffer),
    cc,
    minRttUs: rttUs,
  });

/**
 * The simulator's run of the ring: htb ports at the rate, the veth's 10 Gb/s host side, GSO bursts,
 * the MSS of MTU 1500 with timestamps, delayed and quick ACKs, a cable delay of a quarter of the
 * measured round trip; with `shapedAt: 'host'` the same but every cable at the port rate (the
 * simulator's plain star, where each host's own NIC is the bottleneck), for comparison.
 */
function simulator(cc, loss, rttUs, shapedAt) {
  const settings = settingsFor(cc, rttUs);
  const scenario = lib.testbed.testbedRingScenario(settings, {
    hosts,
    sizeBytes,
    iterations: warmup + iters,
    lossRate: loss,
    shapedAt,
    // bench tcp's ring pipelines 1 MiB slices (src/bench/runner.ts DEFAULT_SLICE_BYTES, src/bench/ring.ts).
    sliceBytes: slice === 'none' ? undefined : lib.parseSize(slice),
  });
  const times = [];
  let drops = 0;
  let timeouts = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const m = lib.runScenario(scenario, { seed }).metrics;
    // The warm-up iterations run as on the testbed (its RTO count covers them too) but are not timed.
    const perIteration = m.workloads[0].iterationTimeUs.slice(warmup);
    times.push(perIteration.reduce((a, b) => a + b, 0) / perIteration.length);
    drops += m.drops;
    timeouts += m.timeouts;
  }
  return { timeUs: median(times), drops: Math.round(drops / seeds), timeouts: Math.round(timeouts / seeds) };
}

function model(loss, rttUs) {
  rttUs = rttUs ?? settingsFor('reno', null).linkDelayS * 4e6;
  const args = [
    'collective',
    '--op',
    'all_reduce',
    '--nodes',
    String(hosts),
    '--gpus-per-node',
    '1',
    '--fabric',
    'tcp-25g',
    '--bandwidth',
    rate,
    '--algo',
    'ring',
    '--set',
    `fabric.tcp.lossRate=${loss}`,
    '--set',
    `fabric.tcp.rttUs=${rttUs.toFixed(1)}`,
    '--set',
    'fabric.tcp.streamsPerPeer=1',
    '-b',
    size,
    '-e',
    size,
    '--json',
  ];
  const run = must(aifabric(args), 'collective');
  const row = JSON.parse(run.stdout).metrics.rows[0];
  return { timeUs: row.timeUs };
}

const rows = [];
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
const loadBefore = load();
try {
  for (const cc of ccs) {
    for (const loss of losses) {
      const real = await testbed(cc, loss);
      const sim = simulator(cc, loss, real.rttUs, 'switch');
      const plain = simulator(cc, loss, real.rttUs, 'host');
      const predicted = model(loss, real.rttUs);
      rows.push({ cc, loss, testbed: real, sim, plain, model: predicted });
      log(
        `${cc} loss ${loss}: testbed ${real.timeUs.toFixed(0)} us, sim ${sim.timeUs.toFixed(0)} us (host-shaped ${plain.timeUs.toFixed(0)}), model ${predicted.timeUs.toFixed(0)} us`,
      );
    }
  }
} finally {
  aifabric(['testbed', 'down', '--name', name]);
}
const loadAfter = load();
if (asJson) {
  console.log(
    JSON.stringify({ rate, buffer, size, iters, warmup, seeds, loadBefore, loadAfter, rows }, null, 2),
  );
} else {
  console.log(
    `# ring all_reduce of ${size} over ${hosts} testbed hosts, ${rate} ports with ${buffer} each, ${iters} iterations (${warmup} warm-up); sim: median of ${seeds} seeds, ring slice ${slice} (RTOs: mean per run, warm-up included, as the kernel's nstat count); round trip ${rows[0]?.testbed.rttUs ?? 'not measured (no ping), the simulator takes its fallback cable'}; load average ${loadBefore} before, ${loadAfter} after`,
  );
  console.log(
    '| cc | loss | testbed busbw GB/s (drops, RTOs) | sim busbw GB/s (drops, RTOs) | sim / testbed | sim host-shaped (drops, RTOs) | / testbed | model busbw GB/s | model / testbed |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const t = busbwGBps(r.testbed.timeUs);
    const s = busbwGBps(r.sim.timeUs);
    const p = busbwGBps(r.plain.timeUs);
    const m = busbwGBps(r.model.timeUs);
    console.log(
      `| ${r.cc} | ${r.loss} | ${t.toFixed(4)} (${r.testbed.drops}, ${r.testbed.timeouts}) | ${s.toFixed(4)} (${r.sim.drops}, ${r.sim.timeouts}) | ${(s / t).toFixed(2)} | ${p.toFixed(4)} (${r.plain.drops}, ${r.plain.timeouts}) | ${(p / t).toFixed(2)} | ${m.toFixed(4)} | ${(m / t).toFixed(2)} |`,
    );
  }
}
