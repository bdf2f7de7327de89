import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../platform/db.js';
import { startPeriodic } from '../platform/periodic.js';
import { nowIso } from '../platform/time.js';
import type { NoteSigner } from '../proof/index.js';
import { appendBatch, batchSize } from './append.js';
import { logBehindSigned } from './epochs.js';
import { logsWithPending } from './repository.js';
import { readSignedSizes, rememberSigned } from './signed-sizes.js';

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
  /** Where the largest checkpoint signed per log is kept (`LOG_CHECKPOINTS_FILE`). */
  signedFile?: string,
): Integrator {
  const warned = new Set<string>();

  async function pass(): Promise<void> {
    // The last checkpoint signed per origin in this pass, recorded once the pass is over.
    const signed = new Map<string, { size: number; root: string }>();
    try {
      await appendAll(signed);
    } finally {
      if (signedFile) {
        for (const [origin, { size, root }] of signed) {
          rememberSigned(signedFile, origin, { size, root });
        }
      }
    }
  }

  async function appendAll(signed: Map<string, { size: number; root: string }>): Promise<void> {
    const logs = await logsWithPending(db, 100);
    // Read once a pass, and only when some log has leaves to append.
    const signedBefore = signedFile && logs.length > 0 ? readSignedSizes(signedFile) : {};
    for (const logId of logs) {
      // A store restored behind what was signed is refused at start; one restored under a
      // running instance (PostgreSQL) is left alone here, not forked.
      if (signedFile && (await logBehindSigned(db, logId, signedBefore))) {
        if (!warned.has(`behind:${logId}`)) {
          warned.add(`behind:${logId}`);
          log.error(
            { logId },
            'the decision log is behind a checkpoint already signed (a restore): not signing; start a new epoch (consent-service log new-epoch)',
          );
        }
        continue;
      }
      for (;;) {
        const outcome = await appendBatch(db, logId, signer, nowIso, leavesPerAppend);
        if ('origin' in outcome) signed.set(outcome.origin, outcome);
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
