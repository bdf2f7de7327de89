import { isStoreUnavailable } from './db.js';

/** Whether the store takes writes, as the health check asks the writer of decisions. */
export interface WriteHealth {
  /**
   * True while writes fail: the last `refusalsToFail` units were refused by the store (an
   * outage, see `isStoreUnavailable`), the latest less than `failingForMs` ago, and none has
   * been committed since. Costs nothing: it only looks at the outcomes of real writes.
   */
  failing(): boolean;
}

/** Units refused in a row before writes count as failing: one busy moment is not enough. */
const refusalsToFail = 3;
/**
 * How long writes count as failing after the last refusal when no write is tried since: an
 * instance taken out of rotation for it gets requests again, and so finds out.
 */
const failingForMs = 30_000;

/** The outcomes of units of work, as the health check sees them. */
export function writeOutcomes() {
  let refusedInARow = 0;
  let lastRefusedAt = 0;
  return {
    committed() {
      refusedInARow = 0;
    },
    failed(error: unknown) {
      // A rule's refusal or a bug says nothing about whether the store takes writes.
      if (!isStoreUnavailable(error)) return;
      refusedInARow += 1;
      lastRefusedAt = Date.now();
    },
    failing: () => refusedInARow >= refusalsToFail && Date.now() - lastRefusedAt < failingForMs,
  };
}
