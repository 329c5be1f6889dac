#!/usr/bin/env node
// Soak of `aifabric bench tcp` (issue 9, part 2): one `bench tcp --np N --op all -N 0 -c 1` run,
// every op in turn on one data plane with every element checked, for --duration. Every 10 s it
// prints the wrong elements so far and, per rank, open descriptors, TCP sockets and RSS, plus the
// launcher's child processes. At the end it stops the run with Ctrl-C (SIGINT, as a user would)
// and passes (exit 0) only if: 0 wrong elements; the run exits 130 within 15 s; no process,
// listening socket or temporary file it started is left; each rank's RSS at the end is within 10%
// (or 20 MiB) of its RSS after the first minute (after half the run when shorter than 2 minutes).
//   node bench/tcp-soak.mjs [--duration 300s] [--np 4] [--max 4M]
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { arg, cli } from './script-args.mjs';

const seconds = (text) => {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text);
  if (!match) throw new Error(`--duration: expected e.g. 300s, 5m, got ${text}`);
  return Number(match[1]) * (match[2] === 'ms' ? 0.001 : match[2] === 'm' ? 60 : 1);
};
const durationS = seconds(arg('duration', '300s'));
const np = Number(arg('np', '4'));
const maxSize = arg('max', '4M');
const SAMPLE_S = 10;
const baselineAtS = Math.min(60, durationS / 2);

const read = (file) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};
const alive = (pid) => read(`/proc/${pid}/stat`) !== '';
const childrenOf = (pid) => {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = read(`/proc/${entry}/stat`);
    // Field 4 (ppid) follows the parenthesised command name, which may hold spaces.
    const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(after[1]) === pid) found.push(Number(entry));
  }
  return found;
};
const tcpInodes = () => {
  const inodes = new Set();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of read(file).split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length > 9) inodes.add(fields[9]);
    }
  }
  return inodes;
};
const listeningPorts = () => {
  const ports = new Set();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of read(file).split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] === '0A') ports.add(parseInt(fields[1].split(':')[1], 16));
    }
  }
  return ports;
};
function rankStats(pid, inodes) {
  let fds = 0;
  let tcp = 0;
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      fds++;
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        const match = /^socket:\[(\d+)\]$/.exec(target);
        if (match && inodes.has(match[1])) tcp++;
      } catch {
        // The descriptor closed while we looked.
      }
    }
  } catch {
    return undefined;
  }
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(read(`/proc/${pid}/status`))?.[1] ?? 0);
  return { fds, tcp, rssMiB: rssKiB / 1024 };
}

// The run gets a temporary folder of its own, so anything it leaves there is its own.
const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-'));
const args = ['bench', 'tcp', '--np', String(np), '--op', 'all', '-N', '0', '-c', '1', '-b', '8', '-e', maxSize, '-f', '4', '-n', '2', '-w', '0', '--timeout', '60'];
console.log(`# soak: node dist/cli/main.js ${args.join(' ')} for ${durationS} s`);
// --node-flag passes a V8/Node flag to the launcher and through it to every rank (e.g. --max-semi-space-size=2).
const nodeFlags = process.argv.flatMap((value, i) => (process.argv[i - 1] === '--node-flag' ? [value] : []));
const launcher = spawn(process.execPath, [...nodeFlags, cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TMPDIR: tmp } });
let wrong = 0;
let rows = 0;
let stderr = '';
let partial = '';
const rankPorts = new Set();
launcher.stdout.setEncoding('utf8');
launcher.stdout.on('data', (chunk) => {
  const lines = (partial + chunk).split('\n');
  partial = lines.pop() ?? '';
  for (const line of lines) {
    const port = /device\s+\d+ \[[^\]]*\] tcp .* [\d.]+:(\d+)$/.exec(line);
    if (port) rankPorts.add(Number(port[1]));
    if (line.startsWith('#') || line.trim() === '') continue;
    const fields = line.trim().split(/\s+/);
    if (fields.length < 13) continue;
    rows++;
    for (const cell of [fields[8], fields[12]]) wrong += cell === 'N/A' ? 0 : Number(cell);
  }
});
launcher.stderr.on('data', (chunk) => (stderr += chunk));
const exited = new Promise((resolve) => launcher.on('exit', (code, signal) => resolve({ code, signal })));
let exitedEarly;
void exited.then((result) => (exitedEarly = result));

const samples = new Map();
const started = Date.now();
let ranks = [];
const failures = [];
while ((Date.now() - started) / 1000 < durationS && !exitedEarly) {
  await new Promise((resolve) => setTimeout(resolve, Math.min(SAMPLE_S, durationS) * 1000));
  if (exitedEarly) break;
  ranks = childrenOf(launcher.pid);
  const inodes = tcpInodes();
  const t = Math.round((Date.now() - started) / 1000);
  const parts = [];
  for (const pid of ranks) {
    const stats = rankStats(pid, inodes);
    if (!stats) continue;
    if (!samples.has(pid)) samples.set(pid, []);
    samples.get(pid).push({ t, ...stats });
    parts.push(`pid ${pid} fds ${stats.fds} tcp ${stats.tcp} rss ${stats.rssMiB.toFixed(1)} MiB`);
  }
  console.log(`t=${String(t).padStart(4)}s rows ${rows} wrong ${wrong} children ${ranks.length} | ${parts.join(' | ')}`);
}

if (exitedEarly) failures.push(`the run ended by itself (exit ${exitedEarly.code ?? exitedEarly.signal}): ${stderr.trim()}`);
launcher.kill('SIGINT');
const stopped = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve(undefined), 15_000))]);
if (!stopped) {
  failures.push('the run did not stop within 15 s of SIGINT');
  launcher.kill('SIGKILL');
  for (const pid of ranks) process.kill(pid, 'SIGKILL');
} else if (!exitedEarly && stopped.code !== 130) failures.push(`after SIGINT the run exited ${stopped.code ?? stopped.signal}, expected 130`);
await new Promise((resolve) => setTimeout(resolve, 500));

if (wrong !== 0) failures.push(`${wrong} wrong elements`);
if (rows === 0) failures.push('no rows were checked');
const leftRanks = ranks.filter(alive);
if (leftRanks.length > 0) failures.push(`rank processes left running: ${leftRanks.join(', ')}`);
const leftPorts = [...rankPorts].filter((port) => listeningPorts().has(port));
if (leftPorts.length > 0) failures.push(`data ports still listening: ${leftPorts.join(', ')}`);
const newTmp = readdirSync(tmp);
if (newTmp.length > 0) failures.push(`temporary files left in ${tmp}: ${newTmp.join(', ')}`);
rmSync(tmp, { recursive: true, force: true });
for (const [pid, list] of samples) {
  const baseline = list.find((sample) => sample.t >= baselineAtS) ?? list[0];
  const last = list[list.length - 1];
  const allowed = Math.max(0.1 * baseline.rssMiB, 20);
  const verdict = Math.abs(last.rssMiB - baseline.rssMiB) <= allowed ? 'ok' : 'GREW';
  console.log(`rank pid ${pid}: RSS ${baseline.rssMiB.toFixed(1)} MiB at ${baseline.t} s, ${last.rssMiB.toFixed(1)} MiB at ${last.t} s (allowed +-${allowed.toFixed(1)}): ${verdict}`);
  if (verdict !== 'ok') failures.push(`rank pid ${pid} RSS went from ${baseline.rssMiB.toFixed(1)} to ${last.rssMiB.toFixed(1)} MiB`);
}
console.log(`# soak: ${rows} rows checked, ${wrong} wrong, ${failures.length === 0 ? 'PASS' : `FAIL: ${failures.join('; ')}`}`);
process.exit(failures.length === 0 ? 0 : 1);
