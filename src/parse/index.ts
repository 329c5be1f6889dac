/** The parse room: every tool-output parser, the registry that detects kinds, and the shared types. */
export {
  NotThisKindError,
  type ParseWarning,
  type ParseResult,
  type ParserKind,
  type TextSource,
  type Parser,
} from './types.js';
export {
  rawParsers,
  parsers,
  DETECT_THRESHOLD,
  findParser,
  findRawParser,
  knownKinds,
  detectKind,
  parseAs,
  parsePasteAs,
  type DetectedKind,
} from './registry.js';
export { detectNcclTests, parseNcclTests, ncclTestsParser } from './nccl-tests.js';
export type {
  NcclTestsMeasurement,
  NcclTestsPerIteration,
  NcclTestsRow,
  NcclTestsHeader,
  NcclTestsDevice,
  NcclTestsLayoutName,
  NcclTestsLayout,
  NcclTestsTest,
  NcclTestsFacts,
} from './nccl-tests-types.js';
export { parseNcclTestsStream, parseNcclTestsFile } from './nccl-tests-stream.js';
export { MAX_WHOLE_READ_BYTES, parseFileAll, parseFile, type ParsedFile } from './parse-file.js';
export {
  parsePerftest,
  perftestParser,
  type PerftestVerb,
  type PerftestMeasure,
  type PerftestBandwidthUnit,
  type PerftestHeader,
  type PerftestQpAddress,
  type PerftestBandwidthRow,
  type PerftestLatencyRow,
  type PerftestRun,
  type PerftestFacts,
} from './perftest.js';
export {
  parseIperf3,
  iperf3Parser,
  type Iperf3Protocol,
  type Iperf3Role,
  type Iperf3Side,
  type Iperf3Stream,
  type Iperf3Measurement,
  type Iperf3Total,
  type Iperf3Facts,
} from './iperf3.js';
export {
  parseIbvDevinfo,
  ibvDevinfoParser,
  type IbvGid,
  type IbvPort,
  type IbvDevice,
  type IbvDevinfoFacts,
} from './ibv-devinfo.js';
export { parseRdmaLink, rdmaLinkParser, type RdmaLink, type RdmaLinkFacts } from './rdma-link.js';
export { parseShowGids, showGidsParser, type GidEntry, type ShowGidsFacts } from './show-gids.js';
export {
  parseNvidiaSmiTopo,
  nvidiaSmiTopoParser,
  type TopoGpu,
  type TopoNic,
  type TopoNearestNic,
  type NvidiaSmiTopoFacts,
} from './nvidia-smi-topo.js';
export {
  networkSettings,
  parseSysctl,
  sysctlParser,
  type SysctlEntry,
  type TcpBufferTriple,
  type SysctlNetworkSettings,
  type SysctlFacts,
} from './sysctl.js';
export {
  parseNcclEnv,
  ncclEnvParser,
  type NcclDeviceList,
  type NcclGdrLevel,
  type NcclList,
  type NcclEnvEntry,
  type NcclSettings,
  type NcclEnvFacts,
} from './nccl-env.js';
export {
  parseEthtool,
  ethtoolParser,
  type PriorityPauseCounters,
  type LinkPauseCounters,
  type DiscardCounters,
  type EthtoolFacts,
} from './ethtool.js';
export { looksLikeMlnxQos, parseMlnxQos, mlnxQosParser, type MlnxQosFacts } from './mlnx-qos.js';
export {
  looksLikeSonicConfigDb,
  parseSonicConfigDb,
  sonicConfigDbParser,
  type SonicWredProfile,
  type SonicPortQos,
  type SonicQueueProfile,
  type SonicConfigDbFacts,
} from './sonic-config-db.js';
export { parseVirt, virtParser, type VirtFacts } from './virt.js';
export { parseDmi, dmiParser, type DmiFacts } from './dmi.js';
export { parseCpuinfo, cpuinfoParser, type CpuinfoFacts } from './cpuinfo.js';
export {
  planPaste,
  normaliseLine,
  isIdentityPlan,
  normalisePaste,
  segmentText,
  type PasteLine,
  type PasteSegment,
  type PastePlan,
  type PasteOptions,
  type NormalisedLine,
} from './paste.js';
export {
  detectPasteAll,
  detectPaste,
  parsePaste,
  pasteTolerant,
  type PasteParseResult,
} from './paste-parse.js';
export { normaliseStream } from './paste-stream.js';
export {
  kinetoTraceParser,
  parseKinetoTrace,
  parseKinetoTraceStream,
  detectKinetoTrace,
} from './kineto-parser.js';
export { readTraceFiles, rankFromFileName } from './trace-files.js';
export { parseNcclKernelName, isNcclKernelName, type NcclKernelName } from './nccl-kernel-names.js';
export type { TraceRankFacts, TraceCollective, TraceStep, TraceFormat, RankSource } from './trace-types.js';
export {
  parseFiles,
  parsedFileLabel,
  type ParseMetrics,
  type ParseFilesResult,
  type ParseFilesOptions,
} from './parse-files.js';
export type { NcclPathType } from './nccl-env-values.js';
