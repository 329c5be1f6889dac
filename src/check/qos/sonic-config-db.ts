/**
 * The SONiC config_db.json parser now lives in the parse room (kind `sonic-config-db`); this keeps
 * check's older call shape, facts or null, for the rules and tests that use it.
 */
import {
  NotThisKindError,
  parseSonicConfigDb as parseSonicConfigDbResult,
  type SonicConfigDbFacts,
} from '../../parse/index.js';

export {
  looksLikeSonicConfigDb,
  type SonicConfigDbFacts,
  type SonicPortQos,
  type SonicQueueProfile,
  type SonicWredProfile,
} from '../../parse/index.js';

export function parseSonicConfigDb(text: string): SonicConfigDbFacts | null {
  try {
    return parseSonicConfigDbResult(text).facts;
  } catch (error) {
    if (error instanceof NotThisKindError) return null;
    throw error;
  }
}
