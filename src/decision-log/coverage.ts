import { setTimeout as sleep } from 'node:timers/promises';
import type { Executor } from '../platform/db.js';
import type { NoteSigner } from '../proof/index.js';
import { findLogPlaces } from './repository.js';
import type { LogCheckpoint } from './schemas.js';
import { logOverview } from './service.js';

/** The latest checkpoint, and which of the records asked about it does not cover. */
export interface Coverage {
  checkpoint: LogCheckpoint;
  /** Records whose leaf is not under `checkpoint`: still queued, or never logged. */
  uncovered: Set<string>;
}

/**
 * The log's latest signed checkpoint with the records it covers: a record is covered when its
 * leaf's index is below the checkpoint's size. While some of them wait in the queue, the
 * integrator is asked to run and the answer waits for it, up to `waitMs`: a record written just
 * before a read is then covered too. A checkpoint read later covers all an earlier one did.
 */
export async function checkpointCovering(
  db: Executor,
  signer: NoteSigner,
  kick: () => Promise<void>,
  tenantId: string,
  recordIds: readonly string[],
  waitMs: number,
): Promise<Coverage> {
  const deadline = Date.now() + waitMs;
  let asked = [...new Set(recordIds)];
  for (;;) {
    const { checkpoint } = await logOverview(db, signer, tenantId);
    const { entries, queued } = await findLogPlaces(db, tenantId, asked);
    asked = asked.filter(
      (id) => !((entries.get(id) ?? Number.POSITIVE_INFINITY) < checkpoint.size),
    );
    const waiting = asked.some((id) => queued.has(id) || entries.has(id));
    if (!waiting || Date.now() >= deadline) return { checkpoint, uncovered: new Set(asked) };
    await Promise.race([kick(), sleep(100)]);
  }
}
