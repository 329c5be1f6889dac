/**
 * The shapes `check` works on: per host, the captures found (each a parsed tool output with the
 * file it came from), the declared fabric and shape, and the findings each rule family returns.
 */
import type { Finding } from '../core/envelope.js';
import type { FabricSpec } from '../spec/index.js';
import type { Cluster } from '../spec/index.js';
import type {
  EthtoolFacts,
  IbvDevinfoFacts,
  Iperf3Facts,
  NcclEnvFacts,
  NcclTestsFacts,
  NvidiaSmiTopoFacts,
  ParseWarning,
  PerftestFacts,
  RdmaLinkFacts,
  ShowGidsFacts,
  SysctlFacts,
} from '../parse/index.js';
import type { VirtFacts, DmiFacts, CpuinfoFacts } from './collect/host-identity.js';
import type { SonicConfigDbFacts } from './qos/sonic-config-db.js';
import type { MlnxQosFacts } from './qos/mlnx-qos.js';

/** Facts by capture kind: the parse registry's kinds plus the ones only `check` reads. */
export interface CaptureFactsByKind {
  'nccl-tests': NcclTestsFacts;
  perftest: PerftestFacts;
  iperf3: Iperf3Facts;
  'ibv-devinfo': IbvDevinfoFacts;
  'rdma-link': RdmaLinkFacts;
  'show-gids': ShowGidsFacts;
  'nvidia-smi-topo': NvidiaSmiTopoFacts;
  sysctl: SysctlFacts;
  'nccl-env': NcclEnvFacts;
  ethtool: EthtoolFacts;
  virt: VirtFacts;
  dmi: DmiFacts;
  cpuinfo: CpuinfoFacts;
  'sonic-config-db': SonicConfigDbFacts;
  'mlnx-qos': MlnxQosFacts;
}

export type CaptureKind = keyof CaptureFactsByKind;

export interface Capture<K extends CaptureKind = CaptureKind> {
  /** Where it came from, as shown in evidence: a path relative to --from, or `live:COMMAND`. */
  source: string;
  kind: K;
  facts: CaptureFactsByKind[K];
  /** The text, kept for line look-ups; absent for files too large to hold. */
  text?: string;
  warnings: ParseWarning[];
}

export interface HostCaptures {
  host: string;
  captures: Capture[];
}

export type FabricSource = 'flag' | 'cluster' | 'inferred' | 'none';

export interface CheckContext {
  hosts: HostCaptures[];
  /** The fabric the captures are judged against; null when none was declared or could be inferred. */
  fabric: FabricSpec | null;
  fabricSource: FabricSource;
  /** From --cluster: NIC count and GPU model for the bandwidth expectation. */
  cluster: Cluster | null;
}

export type RuleFamilyId = 'busbw' | 'gdr' | 'rdma' | 'lossless' | 'tcp' | 'straggler' | 'virt';

export interface CheckFinding extends Finding {
  family: RuleFamilyId;
}

export interface RuleOutput {
  findings: CheckFinding[];
  /** What the family could not evaluate and why (no capture of a kind, a fabric it does not apply to). */
  notes: string[];
}

export interface RuleFamily {
  id: RuleFamilyId;
  title: string;
  run(context: CheckContext): RuleOutput;
}

export function capturesOf<K extends CaptureKind>(host: HostCaptures, kind: K): Capture<K>[] {
  return host.captures.filter((capture): capture is Capture<K> => capture.kind === kind);
}
