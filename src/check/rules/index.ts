/** Every rule family, in the order findings are reported. */
import type { RuleFamily } from '../types.js';
import { bandwidthRules } from './bandwidth.js';
import { gdrRules } from './gdr-path.js';
import { rdmaRules } from './rdma.js';
import { losslessRules } from './lossless.js';
import { tcpRules } from './tcp-tuning.js';
import { stragglerRules } from './stragglers.js';
import { virtualisationRules } from './virtualisation.js';

export const ruleFamilies: readonly RuleFamily[] = [
  bandwidthRules,
  gdrRules,
  rdmaRules,
  losslessRules,
  tcpRules,
  stragglerRules,
  virtualisationRules,
];
