import type { Db } from '../platform/db.js';
import { pingStore } from './repository.js';

/** Resolves while the store answers a query, rejects with the store's error otherwise. */
export function storeAnswers(db: Db): Promise<void> {
  return pingStore(db);
}
