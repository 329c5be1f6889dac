/**
 * Loading a scenario: schema first (every problem at its YAML line), then the checks the schema
 * cannot make: hosts that exist, a buffer that holds a packet, ECN thresholds in order, and PFC
 * headroom against the 802.1Qbb bound.
 */
import { loadYamlFile, parseYaml, semanticError, type SourceLocation } from '../spec/index.js';
import { defaultPfcResponseDelayNs, pfcHeadroomBoundBytes } from './net/headroom.js';
import { roceWireBytes, tcpWireBytes } from './net/wire.js';
import { scenarioSchema, type Scenario } from './scenario-schema.js';
import { buildTopology, ringPaths, type Topology, type TopologySpec } from './topo/index.js';
import { checkWork, type WorkMode } from './work-estimate.js';

export type Locate = (path: readonly (string | number)[]) => SourceLocation;

const noLocation: Locate = () => ({ file: 'scenario', line: 1, col: 1 });

/** Where each loaded scenario's fields sit in its file, so later checks (runScenario's) can say. */
const locators = new WeakMap<Scenario, Locate>();

export function locatorOf(scenario: Scenario): Locate {
  return locators.get(scenario) ?? noLocation;
}

export interface ScenarioCheckOptions {
  /** The mode the scenario will run in: its work is estimated against that mode's limits (default packet). */
  mode?: WorkMode;
}

export function topologySpecOf(scenario: Scenario): TopologySpec {
  const t = scenario.topology;
  const linkRateBps = t.linkRate;
  const linkDelayNs = t.linkDelay * 1e9;
  switch (t.kind) {
    case 'star':
      return {
        kind: 'star',
        hosts: t.hosts,
        linkRateBps,
        linkDelayNs,
        ...(t.uplinkRate !== undefined ? { uplinkRateBps: t.uplinkRate } : {}),
        ...(t.ports === 'htb' ? { ports: 'htb' as const } : {}),
        ...(t.faultHops !== undefined ? { faultHops: t.faultHops } : {}),
      };
    case 'leaf-spine':
      return {
        kind: 'leaf-spine',
        hosts: t.hosts,
        hostsPerLeaf: t.hostsPerLeaf,
        spines: t.spines,
        oversubscription: t.oversubscription,
        linkRateBps,
        linkDelayNs,
      };
    case 'rail':
      return {
        kind: 'rail',
        servers: t.servers,
        gpusPerServer: t.gpusPerServer,
        spines: t.spines,
        linkRateBps,
        linkDelayNs,
      };
    case 'fat-tree':
      return { kind: 'fat-tree', k: t.k, linkRateBps, linkDelayNs };
    case 'ring':
      return {
        kind: 'ring',
        switches: t.switches,
        hostsPerSwitch: t.hostsPerSwitch,
        routing: t.routing,
        failedCables: t.failedCables,
        linkRateBps,
        linkDelayNs,
      };
  }
}

/** Transports the workloads use (a workload may override the scenario's). */
export function transportsUsed(scenario: Scenario): Set<'tcp' | 'roce'> {
  return new Set(scenario.workloads.map((w) => w.transport ?? scenario.transport.kind));
}

/** Wire size of the largest data packet any workload sends. */
export function mtuWireBytes(scenario: Scenario): number {
  let mtu = 0;
  for (const kind of transportsUsed(scenario)) {
    mtu = Math.max(
      mtu,
      kind === 'tcp' ? tcpWireBytes(scenario.transport.tcp.mss) : roceWireBytes(scenario.transport.roce.mtu),
    );
  }
  return mtu;
}

export function pfcResponseDelayNs(scenario: Scenario, rateBps: number): number {
  const configured = scenario.switch.pfc?.responseDelay;
  return configured !== undefined ? configured * 1e9 : defaultPfcResponseDelayNs(rateBps);
}

/** The 802.1Qbb headroom bound of every link that enters a switch (0 for links into hosts). */
export function headroomBounds(scenario: Scenario, topology: Topology): Float64Array {
  const bounds = new Float64Array(topology.links.length);
  const mtu = mtuWireBytes(scenario);
  for (const link of topology.links) {
    if (topology.nodes[link.to]?.kind !== 'switch') continue;
    bounds[link.id] = pfcHeadroomBoundBytes(
      link.rateBps,
      link.delayNs,
      mtu,
      pfcResponseDelayNs(scenario, link.rateBps),
    );
  }
  return bounds;
}

export function validateScenario(
  scenario: Scenario,
  locate: Locate = locatorOf(scenario),
  options: ScenarioCheckOptions = {},
): Topology {
  const fail = (path: (string | number)[], message: string): never => {
    throw semanticError(locate(path), path, message);
  };
  const t = scenario.topology;
  if (t.kind === 'leaf-spine' && t.hostsPerLeaf > t.hosts)
    fail(['topology', 'hostsPerLeaf'], `is ${t.hostsPerLeaf}, more than the ${t.hosts} hosts`);
  if (t.kind === 'fat-tree' && (t.k % 2 !== 0 || t.k < 2))
    fail(['topology', 'k'], `must be an even number of at least 2, got ${t.k}`);
  if (t.kind === 'ring') checkRing(t, fail);
  // Before anything is built: a billion hosts must fail here, not while allocating them.
  checkWork(scenario, options.mode ?? 'packet', locate);
  const topology = buildTopology(topologySpecOf(scenario));
  const hosts = topology.hostCount;
  const checkHost = (path: (string | number)[], host: number): void => {
    if (host >= hosts) fail(path, `host ${host} does not exist (the topology has hosts 0..${hosts - 1})`);
  };
  scenario.workloads.forEach((w, i) => {
    const at = (...rest: (string | number)[]): (string | number)[] => ['workloads', i, ...rest];
    if (w.kind === 'incast') {
      checkHost(at('receiver'), w.receiver);
      if (w.startOffsets !== undefined) {
        const senderCount = typeof w.senders === 'number' ? w.senders : w.senders.length;
        if (w.startGap > 0) fail(at('startOffsets'), 'give startGap or startOffsets, not both');
        w.startOffsets.forEach((round, j) => {
          if (round.length !== senderCount)
            fail(
              at('startOffsets', j),
              `has ${round.length} offsets; expected one per sender (${senderCount})`,
            );
        });
      }
      if (typeof w.senders === 'number') {
        if (w.senders > hosts - 1)
          fail(at('senders'), `${w.senders} senders need ${w.senders + 1} hosts; the topology has ${hosts}`);
      } else {
        w.senders.forEach((h, j) => {
          checkHost(at('senders', j), h);
          if (h === w.receiver) fail(at('senders', j), `host ${h} is the receiver`);
        });
      }
    } else if (w.kind === 'flow') {
      checkHost(at('src'), w.src);
      checkHost(at('dst'), w.dst);
      if (w.src === w.dst) fail(at('dst'), `a flow needs two different hosts, got ${w.src} to itself`);
    } else if (w.kind !== 'permutation' && w.ranks !== undefined) {
      if (typeof w.ranks === 'number') {
        if (w.ranks > hosts) fail(at('ranks'), `${w.ranks} ranks but the topology has ${hosts} hosts`);
        if (w.ranks < 2) fail(at('ranks'), 'a collective needs at least 2 ranks');
      } else {
        w.ranks.forEach((h, j) => checkHost(at('ranks', j), h));
        if (new Set(w.ranks).size !== w.ranks.length) fail(at('ranks'), 'a rank list must not repeat a host');
      }
    } else if (w.kind === 'permutation' && hosts < 2) {
      fail(at('kind'), 'a permutation needs at least 2 hosts');
    }
  });
  const mtu = mtuWireBytes(scenario);
  if (scenario.switch.buffer < mtu) {
    fail(
      ['switch', 'buffer'],
      `${scenario.switch.buffer} B per port is smaller than one packet (${mtu} B on the wire)`,
    );
  }
  const ecn = scenario.switch.ecn;
  if (ecn && ecn.kmin > ecn.kmax)
    fail(['switch', 'ecn', 'kmin'], `kmin (${ecn.kmin} B) is above kmax (${ecn.kmax} B)`);
  const pfc = scenario.switch.pfc;
  if (pfc?.enabled) {
    const bounds = headroomBounds(scenario, topology);
    let worst = 0;
    let worstLink = -1;
    bounds.forEach((b, link) => {
      if (b > worst) {
        worst = b;
        worstLink = link;
      }
    });
    if (pfc.headroom !== 'auto' && pfc.headroom < worst && !pfc.allowInsufficientHeadroom) {
      const link = topology.links[worstLink];
      fail(
        ['switch', 'pfc', 'headroom'],
        `${pfc.headroom} B is below the PFC headroom bound of ${worst} B for the ${(link?.rateBps ?? 0) / 1e9} Gb/s links ` +
          `(2 x cable delay x rate + 3 MTU + pause frame + response time); raise it, use 'auto', ` +
          `or set allowInsufficientHeadroom: true to study the drops`,
      );
    }
    // The headroom is reserved out of the buffer: what is left must still hold packets.
    const ports = new Map<number, number>();
    const reserved = new Map<number, number>();
    for (const link of topology.links) {
      ports.set(link.from, (ports.get(link.from) ?? 0) + 1);
      const h =
        pfc.headroom === 'auto'
          ? bounds[link.id]!
          : topology.nodes[link.to]?.kind === 'switch'
            ? pfc.headroom
            : 0;
      reserved.set(link.to, (reserved.get(link.to) ?? 0) + h);
    }
    for (const node of topology.nodes) {
      if (node.kind !== 'switch') continue;
      const total = scenario.switch.buffer * (ports.get(node.id) ?? 0);
      const left = total - (reserved.get(node.id) ?? 0);
      if (left < mtu) {
        fail(
          ['switch', 'buffer'],
          `switch ${node.name}: ${total} B of buffer leaves ${left} B once PFC headroom (${reserved.get(node.id)} B) is reserved; at least one packet (${mtu} B) is needed`,
        );
      }
    }
  }
  if (scenario.switch.pfc?.watchdog && !pfc?.enabled)
    fail(['switch', 'pfc', 'watchdog'], 'a PFC watchdog needs PFC enabled');
  if (scenario.topology.kind === 'star')
    scenario.topology.faultHops?.forEach((host, i) => checkHost(['topology', 'faultHops', i], host));
  scenario.faults?.forEach((fault, i) => {
    checkHost(['faults', i, 'host'], fault.host);
    if ((options.mode ?? 'packet') === 'fluid' && fault.loss > 0)
      fail(['faults', i, 'loss'], 'random loss needs packet mode: fluid flows lose no packets');
  });
  scenario.pauseStorms?.forEach((storm, i) => {
    checkHost(['pauseStorms', i, 'host'], storm.host);
    if (!pfc?.enabled)
      fail(['pauseStorms', i], 'a pause storm needs PFC (switch.pfc): without it the switch ignores PAUSE');
  });
  return topology;
}

type Fail = (path: (string | number)[], message: string) => never;

/** Failed cables must join adjacent switches; every pair of switches must have a route under the routing. */
function checkRing(t: Extract<Scenario['topology'], { kind: 'ring' }>, fail: Fail): void {
  const n = t.switches;
  t.failedCables.forEach(([x, y], i) => {
    if (x >= n || y >= n)
      fail(
        ['topology', 'failedCables', i],
        `switch ${Math.max(x, y)} does not exist (the ring has switches 0..${n - 1})`,
      );
    if ((x + 1) % n !== y && (y + 1) % n !== x)
      fail(
        ['topology', 'failedCables', i],
        `s${x} and s${y} are not adjacent on the ring, so no cable joins them`,
      );
  });
  const paths = ringPaths(t);
  const down = t.failedCables.map(([x, y]) => `s${x}-s${y}`).join(', ');
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      if (a === b || paths(a, b)) continue;
      const why =
        t.routing === 'up-down'
          ? ' (a legal route never goes up after going down, with links oriented from s0 on the intact ring)'
          : '';
      fail(
        ['topology', 'routing'],
        `no ${t.routing} route from s${a} to s${b}${down ? ` with cable${t.failedCables.length > 1 ? 's' : ''} ${down} down` : ''}${why}`,
      );
    }
  }
}

/** Parse and check scenario text; `file` names it in error messages. */
export function parseScenario(text: string, file: string, options: ScenarioCheckOptions = {}): Scenario {
  const loaded = parseYaml(text, file, scenarioSchema);
  locators.set(loaded.value, loaded.locate);
  validateScenario(loaded.value, loaded.locate, options);
  return loaded.value;
}

export function loadScenario(path: string, options: ScenarioCheckOptions = {}): Scenario {
  const loaded = loadYamlFile(path, scenarioSchema);
  locators.set(loaded.value, loaded.locate);
  validateScenario(loaded.value, loaded.locate, options);
  return loaded.value;
}
