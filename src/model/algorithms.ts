/** The algorithm ids the model and `--algo` use, from the collective vocabulary (src/core/collectives.ts). */
export {
  ALGORITHM_IDS,
  ALGORITHM_CHOICES,
  type NcclAlgorithm,
  type AlgorithmChoice,
} from '../core/collectives.js';
