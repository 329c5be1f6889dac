/**
 * Fluid mode at scale: ring all_reduce of 1 GiB over 4,096 GPUs (512 nodes of 8) on a
 * non-blocking leaf-spine of 400 Gb/s links, intra-node hops over NVLink.
 *   npx tsx bench/sim-fluid-allreduce.ts [--nodes 512] [--gpus 8] [--size-gib 1] [--oversub 1] [--scatter 0]
 *     [--alpha-ns 1000] [--delay-ns 500] [--nvlink-latency-ns 500] [--algo ring|hierarchical] [--quantum-ns 0]
 * --algo hierarchical runs the hierarchical all_reduce instead (reduce-scatter in each node, one ring
 * per local GPU index across nodes, all_gather in each node: workloads/hierarchical.ts); its
 * 16,384-GPU case is `--nodes 2048 --algo hierarchical`.
 * --scatter 1 places nodes on hosts in seeded random order, so ring hops cross leaves and collide
 * on spines (ECMP), as when a scheduler ignores topology.
 * --quantum-ns Q postpones every event to the next multiple of Q ns (the engine's time quantum,
 * `aifabric sim --time-quantum`); 0 is exact. Prints figures; never passes or fails on time.
 */
import { buildTopology } from '../src/sim/topo/index.js';
import { createRng } from '../src/core/rng.js';
import {
  buildHierarchicalAllReduce,
  buildRingAllReduce,
  fabricFromTopology,
  simulateFluid,
} from '../src/sim/fluid/index.js';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const nodes = flag('nodes', 512);
const gpusPerNode = flag('gpus', 8);
const sizeBytes = flag('size-gib', 1) * 2 ** 30;
const oversubscription = flag('oversub', 1);
const scatter = flag('scatter', 0) === 1;
const timeQuantumNs = flag('quantum-ns', 0);
const algoIndex = process.argv.indexOf('--algo');
const algo = algoIndex >= 0 ? process.argv[algoIndex + 1] : 'ring';
if (algo !== 'ring' && algo !== 'hierarchical') {
  console.error(`--algo: "${algo}" is not ring or hierarchical`);
  process.exit(2);
}
const hostsPerLeaf = 32;
const linkRateBps = 400e9;
const linkDelayNs = flag('delay-ns', 500);
const alphaNs = flag('alpha-ns', 1000);
const nvlinkCapacityBps = 3.6e12; // 450 GB/s each way per H100 (NVLink 4, 18 links)
const nvlinkLatencyNs = flag('nvlink-latency-ns', 500);

const buildStart = performance.now();
const topology = buildTopology({
  kind: 'leaf-spine',
  hosts: nodes,
  hostsPerLeaf,
  spines: 16,
  linkRateBps,
  linkDelayNs,
  oversubscription,
});
const fabric = fabricFromTopology(topology, { gpusPerNode, nvlinkCapacityBps, nvlinkLatencyNs, alphaNs });
if (scatter) {
  const rng = createRng(42);
  const hostOf = Array.from({ length: nodes }, (_, i) => i);
  for (let i = nodes - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [hostOf[i], hostOf[j]] = [hostOf[j]!, hostOf[i]!];
  }
  const route = fabric.path;
  fabric.path = (src, dst, hash) => route(hostOf[src]!, hostOf[dst]!, hash);
}
const ring =
  algo === 'ring' ? buildRingAllReduce(fabric, { ranks: nodes * gpusPerNode, sizeBytes }) : undefined;
const input = ring ?? buildHierarchicalAllReduce(fabric, { ranks: nodes * gpusPerNode, sizeBytes });
const buildMs = performance.now() - buildStart;

const simStart = performance.now();
const cpuStart = process.cpuUsage();
const result = simulateFluid(input, { recordFlows: false, timeQuantumNs });
const cpu = process.cpuUsage(cpuStart);
const simMs = performance.now() - simStart;

const ranks = nodes * gpusPerNode;
const contentionFreeNs = ring ? contentionFreeScheduleNs(ring) : hierarchicalScheduleNs();
const maxRssMiB = process.resourceUsage().maxRSS / 1024;
console.log(
  `fluid ${algo} all_reduce: ${ranks} GPUs (${nodes} nodes x ${gpusPerNode}), ${sizeBytes / 2 ** 30} GiB, ` +
    `leaf-spine 400G ${oversubscription}:1, ${scatter ? 'nodes scattered over leaves' : 'ring order = host order'}` +
    (timeQuantumNs > 0 ? `, time quantum ${timeQuantumNs} ns` : ', exact event times'),
);
console.log(`  flows                ${result.flowCount}`);
console.log(
  `  simulated completion ${(result.completionTimeNs / 1e6).toFixed(3)} ms (${ring ? 'contention-free schedule' : 'schedule at designed shares'} ${(contentionFreeNs / 1e6).toFixed(3)} ms)`,
);
console.log(
  `  events               ${result.events} (recomputations ${result.rateRecomputations}, components filled ${result.componentsFilled})`,
);
console.log(`  max concurrent flows ${result.maxConcurrentFlows}`);
console.log(`  build wall           ${(buildMs / 1000).toFixed(3)} s`);
console.log(`  simulate wall        ${(simMs / 1000).toFixed(3)} s`);
console.log(
  `  simulate CPU         ${((cpu.user + cpu.system) / 1e6).toFixed(3)} s (user + system; the machine is shared)`,
);
console.log(`  events/s             ${(((result.events / simMs) * 1000) / 1e6).toFixed(2)} M`);
console.log(`  peak RSS             ${maxRssMiB.toFixed(0)} MiB`);

/**
 * The check: the same dependency graph timed as if no two chunks ever shared a link (each sends at
 * its path's narrowest link, then adds its latency). Equal to the simulation when the ring's hops
 * never collide; longer simulations measure contention.
 */
function contentionFreeScheduleNs(built: NonNullable<typeof ring>): number {
  const { links, workload } = built;
  const capacityBps = new Map(links.map((link) => [link.id, link.capacityBps]));
  const steps = workload.steps;
  const sendNs = new Float64Array(ranks);
  const latencyNs = new Float64Array(ranks);
  for (let r = 0; r < ranks; r++) {
    let narrowestBps = Infinity;
    for (let q = workload.pathOffsets[r]!; q < workload.pathOffsets[r + 1]!; q++) {
      narrowestBps = Math.min(narrowestBps, capacityBps.get(workload.pathLinkIds[q]!)!);
    }
    sendNs[r] = (workload.chunkBytes * 8e9) / narrowestBps;
    latencyNs[r] = workload.latencyNsOf(r);
  }
  let sent = new Float64Array(ranks);
  let arrived = new Float64Array(ranks);
  let nextSent = new Float64Array(ranks);
  let nextArrived = new Float64Array(ranks);
  for (let s = 0; s < steps; s++) {
    for (let r = 0; r < ranks; r++) {
      const startNs = s === 0 ? 0 : Math.max(arrived[r === 0 ? ranks - 1 : r - 1]!, sent[r]!);
      nextSent[r] = startNs + sendNs[r]!;
      nextArrived[r] = nextSent[r]! + latencyNs[r]!;
    }
    [sent, nextSent] = [nextSent, sent];
    [arrived, nextArrived] = [nextArrived, arrived];
  }
  return Math.max(...arrived);
}

/**
 * The hierarchical check: the same dependency graph timed with every chunk at its designed share
 * (NVLink hops at the link's rate; network hops at 1/G of the narrowest link, as the G rings of a
 * node share its port), each adding its own path's latency. Flows are numbered so that a flow's
 * dependents come after it, so one pass in index order times them all. Equal to the simulation when
 * no spine or port is shared beyond that; longer simulations measure contention.
 */
function hierarchicalScheduleNs(): number {
  const { links, workload } = input;
  const capacityBps = new Map(links.map((link) => [link.id, link.capacityBps]));
  const paths = workload.pathOffsets.length - 1;
  const firstNetworkPath = gpusPerNode > 1 ? nodes * gpusPerNode : 0;
  const bytesPerNsOfPath = new Float64Array(paths);
  for (let p = 0; p < paths; p++) {
    let narrowestBps = Infinity;
    for (let q = workload.pathOffsets[p]!; q < workload.pathOffsets[p + 1]!; q++)
      narrowestBps = Math.min(narrowestBps, capacityBps.get(workload.pathLinkIds[q]!)!);
    bytesPerNsOfPath[p] = narrowestBps / 8e9 / (p >= firstNetworkPath ? gpusPerNode : 1);
  }
  const readyNs = new Float64Array(workload.flowCount);
  const out = new Int32Array(Math.max(workload.maxDependents, 1));
  let lastNs = 0;
  for (let f = 0; f < workload.flowCount; f++) {
    const path = workload.pathOf(f);
    const sentNs = readyNs[f]! + workload.sizeBytesOf(f) / bytesPerNsOfPath[path]!;
    const arrivedNs = sentNs + workload.latencyNsOf(f);
    lastNs = Math.max(lastNs, arrivedNs);
    for (let k = workload.dependentsOf(f, out) - 1; k >= 0; k--) {
      if (out[k]! <= f) throw new Error(`flow ${f} has an earlier dependent ${out[k]}`);
      readyNs[out[k]!] = Math.max(readyNs[out[k]!]!, arrivedNs);
    }
    for (let k = workload.sentDependentsOf(f, out) - 1; k >= 0; k--) {
      if (out[k]! <= f) throw new Error(`flow ${f} has an earlier dependent ${out[k]}`);
      readyNs[out[k]!] = Math.max(readyNs[out[k]!]!, sentNs);
    }
  }
  return lastNs;
}
