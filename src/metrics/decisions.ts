import type { DecisionWriter } from '../decisions/index.js';
import { AppError } from '../platform/errors.js';
import { withSpan } from '../platform/tracing.js';
import type { Metrics } from './instruments.js';

/**
 * The writer of decisions as the routes use it: counted when metrics are on, and each write a
 * span (`decision.write`, the SQLite writer thread's work seen from the request) when traces
 * are on; the writer itself when neither is.
 */
export function observedDecisions(
  writer: DecisionWriter,
  metrics: Metrics | undefined,
  tracing: boolean,
): DecisionWriter {
  const counted = metrics ? countedDecisions(writer, metrics) : writer;
  if (!tracing) return counted;
  return {
    write: (job) =>
      withSpan('decision.write', () => counted.write(job), {
        'consent.decision': job.request.decision,
      }),
  };
}

/**
 * The writer of decisions, counted: each decision by value and outcome, and the time its write
 * took (the SQLite writer thread's, or a group commit's, from the request's side).
 */
export function countedDecisions(writer: DecisionWriter, metrics: Metrics): DecisionWriter {
  return {
    async write(job) {
      const stop = metrics.decisionWrite.startTimer();
      const decision = job.request.decision;
      try {
        const outcome = await writer.write(job);
        stop();
        metrics.decisions.inc({ decision, outcome: outcome.kind });
        return outcome;
      } catch (error) {
        // A reused idempotency key (422) is a refusal; a store fault (503) or a bug, a failure.
        const refused = error instanceof AppError && error.status < 500;
        metrics.decisions.inc({ decision, outcome: refused ? 'refused' : 'failed' });
        throw error;
      }
    },
  };
}
