import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../platform/db.js';
import { startPeriodic } from '../platform/periodic.js';
import { nowIso } from '../platform/time.js';
import type { NoteSigner } from '../proof/index.js';
import { appendBatch, batchSize } from './append.js';
import { logsWithPending } from './repository.js';

export interface Integrator {
  /** Runs a pass now (or joins the one running) and resolves when it is over. */
  kick(): Promise<void>;
  /** Stops the loop after the pass in progress. */
  stop(): Promise<void>;
}

/** Before the loop starts (the app not ready yet): nothing to wait for. */
export const idleIntegrator: Integrator = { kick: async () => {}, stop: async () => {} };

/**
 * The background loop that appends queued leaves, off the request path: every instance runs one,
 * each pass takes every log with queued leaves, a batch at a time (`leavesPerAppend` at most,
 * letting other work in between two). Passes start `intervalMs` apart (start to start, at once
 * after one that took longer), so a leaf waits at most one interval and one pass for its
 * receipt, however long the passes take.
 */
export function startIntegrator(
  db: Db,
  signer: NoteSigner,
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>,
  intervalMs: number,
  leavesPerAppend = batchSize,
): Integrator {
  const warned = new Set<string>();

  async function pass(): Promise<void> {
    for (const logId of await logsWithPending(db, 100)) {
      for (;;) {
        const outcome = await appendBatch(db, logId, signer, nowIso, leavesPerAppend);
        if ('skipped' in outcome) {
          if (outcome.skipped === 'other-key' && !warned.has(logId)) {
            warned.add(logId);
            log.warn(
              { logId },
              'the decision log is signed with another key than this instance holds: ' +
                'set LOG_SIGNING_KEY (or LOG_SIGNING_KEY_FILE) to the same key on every instance',
            );
          }
          break;
        }
        if (outcome.appended < leavesPerAppend) break;
        // Whatever waits (requests, the writer thread's decisions) goes before the next batch.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  const loop = startPeriodic(intervalMs, pass, (error) => {
    log.error({ err: error }, 'appending to the decision log failed; retrying');
  });
  return { kick: loop.run, stop: loop.stop };
}

/** True when leaves wait to be appended to some log (left by an earlier run, say). */
export async function leavesWaiting(db: Db): Promise<boolean> {
  return (await logsWithPending(db, 1)).length > 0;
}
