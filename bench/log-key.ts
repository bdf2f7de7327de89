import { generateNoteKeys } from '../src/proof/index.js';

/**
 * The decision log's signing key of every store the bench makes (`LOG_SIGNING_KEY` of the service
 * and the command line), a new one per bench run: the witnesses of the `decisions-witnessed` run
 * are told its verifier key.
 */
export const benchLogKeys = generateNoteKeys('bench.local/consent-log');
