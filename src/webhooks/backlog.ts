import type { Executor } from '../platform/db.js';
import { backlogCounts } from './repository.js';

/** What the webhooks have still to send, for `/metrics` (docs/metrics.md). */
export interface WebhookBacklog {
  /** Events written but not yet given a position by the sequencer. */
  unsequenced: number;
  /** Positions enabled endpoints have still to pass: an upper bound on the events they wait for. */
  behind: number;
  /** Enabled endpoints whose event at the head has failed and waits for its retry. */
  failing: number;
  disabled: number;
}

export function webhookBacklog(db: Executor): Promise<WebhookBacklog> {
  return backlogCounts(db);
}
