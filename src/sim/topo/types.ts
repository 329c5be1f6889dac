/**
 * The shared shape of a simulated fabric, used by the packet engine and by the fluid (flow-level)
 * engine alike. Links are directed: a cable is two links, one per direction, so each direction has
 * its own egress queue and its own capacity.
 */

export interface StarSpec {
  kind: 'star';
  hosts: number;
  linkRateBps: number;
  linkDelayNs: number;
  /** Host-to-switch direction, when it differs from linkRateBps (the switch's ports towards the hosts). */
  uplinkRateBps?: number;
  /** `htb`: the switch's ports towards the hosts are token-bucket shapers (TopoLink.chargedAfter). */
  ports?: 'wire' | 'htb';
  /**
   * Hosts whose port has the namespace testbed's fault hop (src/testbed/hostport.ts addHop): a
   * switch `q{h}` between the host and `sw0` whose two egresses, towards the host and towards sw0,
   * are both ports at linkRate with their own buffer; sw0 reaches it and it reaches the host's NIC
   * at uplinkRate.
   */
  faultHops?: readonly number[];
}

export interface LeafSpineSpec {
  kind: 'leaf-spine';
  hosts: number;
  hostsPerLeaf: number;
  spines: number;
  linkRateBps: number;
  linkDelayNs: number;
  /**
   * Downlink to uplink capacity ratio of a leaf (1 = non-blocking). Each leaf has one uplink per
   * spine of rate hostsPerLeaf x linkRate / (spines x oversubscription).
   */
  oversubscription: number;
}

/**
 * Rail-optimised (NVIDIA DGX SuperPOD reference architecture): GPU g of every server connects to
 * rail switch g; rail switches are joined by spines. Host index = server x gpusPerServer + gpu.
 */
export interface RailSpec {
  kind: 'rail';
  servers: number;
  gpusPerServer: number;
  spines: number;
  linkRateBps: number;
  linkDelayNs: number;
}

/** Three-tier k-ary fat tree (Al-Fares et al., SIGCOMM 2008): k^3/4 hosts, full bisection. */
export interface FatTreeSpec {
  kind: 'fat-tree';
  k: number;
  linkRateBps: number;
  linkDelayNs: number;
}

/** A ring of switches with hosts on each (src/sim/topo/ring.ts): the deadlock examples' fabric. */
export interface RingSpec {
  kind: 'ring';
  switches: number;
  hostsPerSwitch: number;
  routing: 'clockwise' | 'shortest' | 'up-down';
  /** Cables that are down, each as the two adjacent switches it joins. */
  failedCables: readonly (readonly [number, number])[];
  linkRateBps: number;
  linkDelayNs: number;
}

export type TopologySpec = StarSpec | LeafSpineSpec | RailSpec | FatTreeSpec | RingSpec;

export interface TopoNode {
  id: number;
  kind: 'host' | 'switch';
  name: string;
}

export interface TopoLink {
  id: number;
  from: number;
  to: number;
  rateBps: number;
  delayNs: number;
  /**
   * A token-bucket shaper rather than a wire: a packet leaves when the port is free and its
   * serialisation time is charged afterwards (Linux htb over a veth), so it arrives after the delay alone.
   */
  chargedAfter?: boolean;
}

export interface Topology {
  spec: TopologySpec;
  /** Hosts are nodes 0 .. hostCount-1; switches follow. */
  hostCount: number;
  nodes: TopoNode[];
  links: TopoLink[];
  /** Directed link ids from srcHost to dstHost; ECMP choices are made from flowHash. */
  route(srcHost: number, dstHost: number, flowHash: number): number[];
}
