/**
 * Attribution: from judged pair results (and, where given, single-host results, leaf placement and
 * rails), name the places to blame, most likely first (issue 11, "Attribution and localisation").
 *
 * The rules, applied in this order, each explaining failing results that later rules then ignore:
 * 1. rail: every result on one rail fails while some result elsewhere passes;
 * 2. leaf uplink: the pairs crossing one leaf's uplink make at least three quarters of the failing
 *    pairs, fail at more than twice the rate of the other pairs, involve at least two of its hosts
 *    (so it is not one host), and no single-host run of that leaf failed (a host judged only on the
 *    median of its pairs counts as failed only if a pair inside its leaf fails too; otherwise the
 *    uplink explains it): `{ kind: 'link', id: 'leafN-uplink' }`, no node blamed (a stray failing
 *    pair elsewhere is left to the later rules);
 * 3. node: a host whose own run failed (preflight, or a group-testing run beside passing hosts), or that fails with more than half of its partners
 *    (at least two) while most of those partners do fine with everyone else;
 * 4. link: a failing pair whose two hosts are otherwise fine: `a~b`;
 * 5. fabric: whatever failing pairs remain, which share no node: the cut between the leaves they
 *    join, or `fabric` without placement.
 * A culprit's score is the share of all failing results it explains.
 */
import type { AcceptCulprit, AcceptCulpritKind, AcceptVerdict } from './types.js';

export interface PairOutcome {
  a: string;
  b: string;
  verdict: AcceptVerdict;
  /** The command line that ran this pair. */
  argv: readonly string[];
  rail?: string;
  /** One line of why (from the judgement), used as evidence. */
  detail?: string;
}

export interface HostOutcome {
  host: string;
  verdict: AcceptVerdict;
  argv: readonly string[];
  rail?: string;
  detail?: string;
  /**
   * The verdict is the median over the host's own pair results (the pairs stage), not a run of its
   * own: a leaf uplink that explains those pairs explains it too.
   */
  fromPairs?: boolean;
}

export interface AttributeInput {
  pairs: readonly PairOutcome[];
  /** Single-host (node stage or per-rail) results. */
  hosts?: readonly HostOutcome[];
  /** Which leaf switch each host is under. */
  leafOf?: Readonly<Record<string, string>>;
}

type Outcome = (PairOutcome & { kind: 'pair' }) | (HostOutcome & { kind: 'host' });

const isBad = (verdict: AcceptVerdict): boolean => verdict !== 'pass';
const isHard = (verdict: AcceptVerdict): boolean =>
  verdict === 'fail' || verdict === 'hung' || verdict === 'slow';
/** Rank order among equal scores: the more specific place first. */
const KIND_ORDER: Record<AcceptCulpritKind, number> = { rail: 0, node: 1, link: 2, fabric: 3 };
/** Evidence lines listed per culprit before the rest are summarised. */
const MAX_EVIDENCE = 8;

/** Quote an argv for a POSIX shell so `reproduce` can be pasted as is. */
export function formatArgv(argv: readonly string[]): string {
  return argv
    .map((arg) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}

function describe(outcome: Outcome): string {
  const where = outcome.kind === 'pair' ? `pair ${outcome.a}~${outcome.b}` : `host ${outcome.host}`;
  const rail = outcome.rail ? ` on ${outcome.rail}` : '';
  const detail = outcome.detail ? `: ${outcome.detail}` : '';
  return `${where}${rail} ${outcome.verdict}${detail}`;
}

function capEvidence(lines: string[]): string[] {
  if (lines.length <= MAX_EVIDENCE) return lines;
  return [...lines.slice(0, MAX_EVIDENCE), `... and ${lines.length - MAX_EVIDENCE} more`];
}

class Ledger {
  readonly culprits: AcceptCulprit[] = [];
  readonly explained = new Set<Outcome>();
  constructor(private readonly totalBad: number) {}

  blame(kind: AcceptCulpritKind, id: string, shown: readonly Outcome[], lead: string[]): void {
    const bad = shown.filter((outcome) => isBad(outcome.verdict));
    for (const outcome of bad) this.explained.add(outcome);
    const first = bad.find((outcome) => outcome.kind === 'host') ?? bad[0];
    this.culprits.push({
      kind,
      id,
      severity: bad.some((outcome) => isHard(outcome.verdict)) ? 'error' : 'warn',
      score: this.totalBad > 0 ? bad.length / this.totalBad : 0,
      evidence: capEvidence([...lead, ...bad.map(describe)]),
      reproduce: first ? formatArgv(first.argv) : '',
    });
  }
}

function railCulprits(all: readonly Outcome[], ledger: Ledger): void {
  const rails = [...new Set(all.flatMap((outcome) => (outcome.rail ? [outcome.rail] : [])))].sort();
  for (const rail of rails) {
    const onRail = all.filter((outcome) => outcome.rail === rail);
    const passElsewhere = all.some((outcome) => outcome.rail !== rail && !isBad(outcome.verdict));
    if (onRail.length > 0 && onRail.every((outcome) => isBad(outcome.verdict)) && passElsewhere) {
      const hosts = new Set(onRail.flatMap((o) => (o.kind === 'pair' ? [o.a, o.b] : [o.host])));
      ledger.blame('rail', rail, onRail, [
        `every run on ${rail} failed (${onRail.length} runs on ${hosts.size} hosts) while other rails pass`,
      ]);
    }
  }
}

/**
 * Share of the failing pairs one leaf's uplink must explain before it is blamed: a stray slow pair
 * elsewhere (the machine, not the fabric) must not hide a leaf whose crossings fail together.
 */
const UPLINK_SHARE = 0.75;

function uplinkCulprit(
  pairs: readonly Outcome[],
  hosts: readonly Outcome[],
  leafOf: Readonly<Record<string, string>>,
  ledger: Ledger,
): boolean {
  const pairList = pairs.filter((o): o is PairOutcome & { kind: 'pair' } => o.kind === 'pair');
  const failing = pairList.filter((o) => isBad(o.verdict));
  if (failing.length < 2) return false;
  const crosses = (pair: PairOutcome, leaf: string): boolean =>
    (leafOf[pair.a] === leaf) !== (leafOf[pair.b] === leaf);
  const leaves = [
    ...new Set(
      failing
        .flatMap((pair) => [leafOf[pair.a], leafOf[pair.b]])
        .filter((leaf): leaf is string => leaf !== undefined),
    ),
  ].sort();
  const ranked = leaves
    .map((leaf) => ({ leaf, touching: failing.filter((pair) => crosses(pair, leaf)) }))
    .sort((x, y) => y.touching.length - x.touching.length);
  const best = ranked[0];
  if (!best || best.touching.length < 2 || best.touching.length < UPLINK_SHARE * failing.length) return false;
  if ((ranked[1]?.touching.length ?? 0) === best.touching.length) return false;
  const { leaf, touching } = best;
  const leafHosts = new Set(
    touching.flatMap((pair) => [pair.a, pair.b]).filter((host) => leafOf[host] === leaf),
  );
  if (leafHosts.size < 2) return false;
  const crossing = pairList.filter((pair) => crosses(pair, leaf));
  // A host of this leaf whose own run failed is a node problem the uplink does not explain; one judged
  // slow only on the median of its pairs is explained when every pair it has inside the leaf passes
  // (its median is low because most of its partners sit behind the uplink).
  const leafBad = hosts.filter(
    (o): o is HostOutcome & { kind: 'host' } =>
      o.kind === 'host' && leafOf[o.host] === leaf && isBad(o.verdict),
  );
  const insideFails = (host: string): boolean =>
    pairList.some(
      (pair) => (pair.a === host || pair.b === host) && !crosses(pair, leaf) && isBad(pair.verdict),
    );
  if (leafBad.some((o) => o.fromPairs !== true || insideFails(o.host))) return false;
  const others = pairList.filter((pair) => !crosses(pair, leaf));
  const othersFailing = others.filter((pair) => isBad(pair.verdict)).length;
  // The uplink's crossings must fail far more often than the rest, or it is the fabric or the machine.
  if (touching.length / crossing.length <= 2 * (othersFailing / Math.max(1, others.length))) return false;
  const rest =
    othersFailing === 0
      ? 'every pair within a leaf and between other leaves passes'
      : `${othersFailing} of the ${others.length} other pairs fail`;
  ledger.blame(
    'link',
    `${leaf}-uplink`,
    [...touching, ...leafBad],
    [`${touching.length} of ${crossing.length} pairs crossing ${leaf}'s uplink fail; ${rest}`],
  );
  return true;
}

function nodeCulprits(pairs: readonly Outcome[], hosts: readonly Outcome[], ledger: Ledger): Set<string> {
  const pairList = pairs.filter((o): o is PairOutcome & { kind: 'pair' } => o.kind === 'pair');
  const names = [
    ...new Set(
      pairList.flatMap((p) => [p.a, p.b]).concat(hosts.flatMap((o) => (o.kind === 'host' ? [o.host] : []))),
    ),
  ].sort();
  const pairsOf = (host: string): (PairOutcome & { kind: 'pair' })[] =>
    pairList.filter((p) => p.a === host || p.b === host);
  const partner = (pair: PairOutcome, host: string): string => (pair.a === host ? pair.b : pair.a);
  const stageBad = new Set(hosts.flatMap((o) => (o.kind === 'host' && isBad(o.verdict) ? [o.host] : [])));

  const candidates = new Set(
    names.filter((host) => {
      const mine = pairsOf(host);
      const bad = mine.filter((p) => isBad(p.verdict)).length;
      return bad >= 2 && bad > mine.length / 2;
    }),
  );
  /** A partner is "fine" when, leaving out every candidate, at most half of its pairs fail. */
  const fineWithOthers = (host: string): boolean => {
    const others = pairsOf(host).filter((p) => !candidates.has(partner(p, host)));
    if (others.length === 0) return false;
    return others.filter((p) => isBad(p.verdict)).length <= others.length / 2;
  };
  const blamed = new Set<string>(stageBad);
  for (const host of candidates) {
    const badPartners = pairsOf(host)
      .filter((p) => isBad(p.verdict))
      .map((p) => partner(p, host));
    const fine = badPartners.filter(fineWithOthers).length;
    if (fine > badPartners.length / 2) blamed.add(host);
  }
  for (const host of [...blamed].sort()) {
    const mine = pairsOf(host);
    const bad = mine.filter((p) => isBad(p.verdict));
    const lead: string[] = [];
    if (stageBad.has(host))
      lead.push(
        `its own results fail (preflight, the median of its pairs, or group testing beside hosts that pass)`,
      );
    if (bad.length > 0) lead.push(`failed with ${bad.length} of ${mine.length} partners`);
    const own = hosts.filter((o) => o.kind === 'host' && o.host === host);
    ledger.blame('node', host, [...own, ...bad], lead);
  }
  return blamed;
}

/** Name the culprits behind the failing results, most likely first. */
export function attributeCulprits(input: AttributeInput): AcceptCulprit[] {
  const pairs: Outcome[] = input.pairs.map((p) => ({ ...p, kind: 'pair' as const }));
  const hosts: Outcome[] = (input.hosts ?? []).map((h) => ({ ...h, kind: 'host' as const }));
  const all = [...pairs, ...hosts];
  const ledger = new Ledger(all.filter((o) => isBad(o.verdict)).length);
  const open = (list: readonly Outcome[]): Outcome[] => list.filter((o) => !ledger.explained.has(o));

  railCulprits(all, ledger);
  const uplink = input.leafOf !== undefined && uplinkCulprit(open(pairs), open(hosts), input.leafOf, ledger);
  if (!uplink) {
    const blamed = nodeCulprits(open(pairs), open(hosts), ledger);
    for (const pair of open(pairs)) {
      if (pair.kind === 'pair' && isBad(pair.verdict) && (blamed.has(pair.a) || blamed.has(pair.b)))
        ledger.explained.add(pair);
    }
  }

  const remaining = open(pairs).filter(
    (o): o is PairOutcome & { kind: 'pair' } => o.kind === 'pair' && isBad(o.verdict),
  );
  const stillBadHosts = new Set(
    open(hosts).flatMap((o) => (o.kind === 'host' && isBad(o.verdict) ? [o.host] : [])),
  );
  const links = remaining.filter((pair) => {
    const others = remaining.filter(
      (other) => other !== pair && [other.a, other.b].some((h) => h === pair.a || h === pair.b),
    );
    return others.length === 0 && !stillBadHosts.has(pair.a) && !stillBadHosts.has(pair.b);
  });
  for (const pair of links)
    ledger.blame('link', `${pair.a}~${pair.b}`, [pair], ['the only failing pair of either host']);

  const fabric = open(pairs).filter((o) => isBad(o.verdict));
  if (fabric.length > 0) {
    const leafOf = input.leafOf;
    const leaves = leafOf
      ? [...new Set(fabric.flatMap((o) => (o.kind === 'pair' ? [leafOf[o.a], leafOf[o.b]] : [])))]
      : [];
    const known = leaves.every((leaf): leaf is string => leaf !== undefined) && leaves.length >= 2;
    const id = known ? [...leaves].sort().join('~') : 'fabric';
    ledger.blame('fabric', id, fabric, [
      `${fabric.length} failing pairs that no single node or link explains${known ? `, across ${leaves.length} leaves` : ''}`,
    ]);
  }

  return ledger.culprits.sort(
    (x, y) =>
      y.score - x.score ||
      (x.severity === y.severity ? 0 : x.severity === 'error' ? -1 : 1) ||
      KIND_ORDER[x.kind] - KIND_ORDER[y.kind] ||
      (x.id < y.id ? -1 : x.id > y.id ? 1 : 0),
  );
}
