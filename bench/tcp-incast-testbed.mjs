#!/usr/bin/env node
// TCP incast on real kernel TCP: goodput against the number of senders on the namespace testbed,
// same parameters as examples/scenarios/incast-tcp.yaml (1 Gb/s ports, 128 KiB of buffer per
// switch port, 256 KiB blocks, 10 synchronised rounds), so it sits next to `aifabric sim` there.
// Needs root and iproute2; uses the built CLI (npm run build first):
//   node bench/tcp-incast-testbed.mjs [--rate 1gbit] [--buffer 128K] [--block 262144] [--rounds 10] [--max 16] [--cc bbr,cubic]
// --cc: the congestion controls to measure, one table each, set per host namespace with
// `sysctl net.ipv4.tcp_congestion_control` (a per-network-namespace setting; the machine's own is left alone).
// Default: the namespaces' own default (this kernel's: BBR), printed in the table's header.
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const cli = path.join(root, 'dist/cli/main.js');
const worker = path.join(root, 'bench/tcp-incast-worker.mjs');
const flag = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const rate = flag('rate', '1gbit');
const buffer = flag('buffer', '128K');
const block = Number(flag('block', String(256 * 1024)));
const rounds = Number(flag('rounds', '10'));
const maxSenders = Number(flag('max', '16'));
const name = 'aifinc';
const SENDERS = [1, 2, 3, 4, 6, 8, 10, 12, 16].filter((s) => s <= maxSenders);
const ccList = flag('cc', '').split(',').filter(Boolean);

const aifabric = (...args) =>
  spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 300_000 });
const drops = () => {
  const out = execFileSync('tc', ['-n', `${name}-sw`, '-s', 'qdisc', 'show', 'dev', 'p0'], {
    encoding: 'utf8',
  });
  return Number(/bfifo[\s\S]*?dropped (\d+)/.exec(out)?.[1] ?? 0);
};

aifabric('testbed', 'down', '--name', name);
const up = aifabric(
  'testbed',
  'up',
  '--name',
  name,
  '--hosts',
  String(maxSenders + 1),
  '--rate',
  rate,
  '--buffer',
  buffer,
);
if (up.status !== 0) {
  process.stderr.write(up.stderr);
  process.exit(up.status ?? 3);
}
const hosts = Array.from({ length: maxSenders + 1 }, (_, i) => `${name}-h${i}`);
/** Sets (or, with no argument, reads) the congestion control of every host namespace. */
const congestionControl = (cc) => {
  for (const host of hosts) {
    const args = [
      'netns',
      'exec',
      host,
      'sysctl',
      '-n',
      ...(cc ? ['-w', `net.ipv4.tcp_congestion_control=${cc}`] : ['net.ipv4.tcp_congestion_control']),
    ];
    const out = execFileSync('ip', args, { encoding: 'utf8' }).trim();
    if (!cc) return out;
  }
  return cc;
};
try {
  for (const wanted of ccList.length ? ccList : [undefined]) {
    const cc = congestionControl(wanted);
    console.log(
      `# incast on the namespace testbed: ${rate} ports, ${buffer} bfifo per switch port, ${block} B blocks, ${rounds} rounds; TCP congestion control ${cc}`,
    );
    console.log(
      `| senders | goodput (Mb/s), ${cc} | % of link | drops at the receiver port | \`aifabric sim\` goodput (same parameters) |`,
    );
    console.log('|---:|---:|---:|---:|---:|');
    for (const s of SENDERS) {
      const before = drops();
      const run = aifabric(
        'testbed',
        'run',
        '--name',
        name,
        '--',
        process.execPath,
        worker,
        '--senders',
        String(s),
        '--block',
        String(block),
        '--rounds',
        String(rounds),
      );
      const line = run.stdout.split('\n').find((l) => l.startsWith('{'));
      if (run.status !== 0 || !line) {
        console.log(`| ${s} | failed (exit ${run.status}) | | | |`);
        process.stderr.write(run.stderr);
        continue;
      }
      const result = JSON.parse(line);
      const linkBps =
        Number(/^(\d+)/.exec(rate)?.[1] ?? 1) * (/g/i.test(rate) ? 1e9 : /m/i.test(rate) ? 1e6 : 1);
      console.log(
        `| ${s} | ${(result.goodputBps / 1e6).toFixed(0)} | ${((100 * result.goodputBps) / linkBps).toFixed(1)}% | ${drops() - before} | see docs/bench.md |`,
      );
    }
  }
} finally {
  aifabric('testbed', 'down', '--name', name);
}
