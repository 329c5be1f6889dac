/**
 * The mlnx_qos parser now lives in the parse room (kind `mlnx-qos`); this keeps check's older
 * call shape, facts or null, for the rules and tests that use it.
 */
import {
  NotThisKindError,
  parseMlnxQos as parseMlnxQosResult,
  type MlnxQosFacts,
} from '../../parse/index.js';

export { looksLikeMlnxQos, type MlnxQosFacts } from '../../parse/index.js';

export function parseMlnxQos(text: string): MlnxQosFacts | null {
  try {
    return parseMlnxQosResult(text).facts;
  } catch (error) {
    if (error instanceof NotThisKindError) return null;
    throw error;
  }
}
