/**
 * The ECMP hash of a connection, the stand-in for its 5-tuple: one value per connection, fixed
 * for its life, so every packet (or every chunk, in fluid mode) of a connection takes one path.
 * Connections are numbered 0, 1, ... in the order a run opens them (the order WorkloadPlan lists
 * them, which both engines follow); the topology mixes the value further (mixHash) per ECMP stage.
 */
export function connectionEcmpHash(connection: number, seed: number): number {
  return (Math.imul(connection + 1, 0x9e3779b1) ^ seed) >>> 0;
}
