import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { recordAudit } from '../audit-trail/index.js';
import type { WebhookSettings } from '../platform/config.js';
import type { Db } from '../platform/db.js';
import { startPeriodic } from '../platform/periodic.js';
import { nowIso } from '../platform/time.js';
import { withSpan } from '../platform/tracing.js';
import type { SubjectVault } from '../subjects/index.js';
import { retryDelayMs } from './backoff.js';
import {
  type EventKinds,
  messagesOf,
  recordAttempt,
  recordAttempts,
  scrubDeliveredErasures,
} from './delivery.js';
import {
  dueEndpoints,
  findEndpointById,
  findSequence,
  nextEvents,
  takeLease,
  updateLeased,
} from './repository.js';
import { type AttemptResult, sendOnce } from './send.js';
import { sequenceEvents } from './sequencer.js';
import { signingSecrets } from './service.js';
import type { EventType, WebhookEndpointRow, WebhookEventRow } from './table.js';

export interface Dispatcher {
  /** Runs a pass now (or joins the one running) and resolves when it is over. */
  kick(): Promise<void>;
  /** Stops the loop, and waits for the attempts in flight to end. */
  stop(): Promise<void>;
}

/** What an attempt tells whoever counts them (metrics and traces hook in here). */
export type OnAttempt = (result: AttemptResult & { endpointId: string; eventType: string }) => void;

/**
 * Most events read for one endpoint's turn; a turn that had as many starts the next pass at
 * once, so that a busy endpoint is not held to one turn an interval.
 */
const eventsPerTurn = 100;
/** Delivered attempts are written, and the cursor moved past them, at most this many or this
 * long apart (and before a failure is handled, and at the turn's end): a crash sends them again,
 * which at-least-once allows and receivers drop by `webhook-id`. */
const recordEvery = { events: 50, ms: 250 };

export const idleDispatcher: Dispatcher = { kick: async () => {}, stop: async () => {} };

/**
 * The loop every instance runs: each pass gives waiting events their positions
 * (`sequencer.ts`), then sends to every endpoint that has events after its cursor and is due.
 * One instance sends to one endpoint at a time: it holds the endpoint's lease (taken by
 * compare-and-swap, lapsing if the instance dies), sends its events one at a time in position
 * order, and moves the cursor past them only once they were delivered (a 2xx; written a few at
 * a time, `recordEvery`; a replay takes the lease, which ends the turn). A failure stops the
 * endpoint's line (head-of-line) until its retry is due; failing for `giveUpAfterMs` from the
 * first failure disables it, with an entry in the audit log.
 */
export function startDispatcher(
  db: Db,
  vault: SubjectVault,
  kinds: EventKinds,
  settings: WebhookSettings,
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>,
  onAttempt: OnAttempt = () => {},
): Dispatcher {
  const owner = randomUUID();
  const stopping = new AbortController();
  const inFlight = new Map<string, Promise<void>>();
  let stopped = false;
  // Outlasts one attempt (renewed before each), and lapses soon after an instance dies.
  const leaseMs = settings.timeoutMs + 5_000;

  async function pass(): Promise<void> {
    await sequenceEvents(db);
    await scrubDeliveredErasures(db, kinds);
    for (const endpoint of await dueEndpoints(db, nowIso(), 100)) {
      if (stopped || inFlight.has(endpoint.id)) continue;
      const turn = takeTurn(endpoint.id)
        .catch((error: unknown) => {
          log.error({ err: error, endpointId: endpoint.id }, 'sending webhooks failed; retrying');
          return false;
        })
        .then((more) => {
          inFlight.delete(endpoint.id);
          if (more && !stopped) void loop.run();
        });
      inFlight.set(endpoint.id, turn);
    }
  }

  const leaseEnd = () => new Date(Date.now() + leaseMs).toISOString();

  /**
   * One endpoint's turn: its next events in order, until none is left, one fails, or the turn
   * ends; answers whether more may be waiting.
   */
  async function takeTurn(id: string): Promise<boolean> {
    if (!(await takeLease(db, id, owner, nowIso(), leaseEnd()))) return false;
    try {
      // Read again under the lease: a replay or a change may have come since the list.
      let endpoint = await findEndpointById(db, id);
      if (!endpoint) return false;
      const types = JSON.parse(endpoint.events) as EventType[];
      const secrets = signingSecrets(vault, endpoint);
      const tenant = { tenant_id: endpoint.tenant_id, id };
      let cursor = Number(endpoint.cursor);
      let leaseUntil = Date.now() + leaseMs;
      const upTo = (await findSequence(db, endpoint.tenant_id)) ?? 0;
      const events = await nextEvents(db, endpoint.tenant_id, cursor, upTo, types, eventsPerTurn);
      if (events.length === 0) {
        // Nothing it subscribes to up to the latest position: pass over the rest.
        if (upTo > cursor) await updateLeased(db, id, owner, { cursor: upTo }, cursor);
        return false;
      }
      const messages = await messagesOf(db, vault, kinds, events);
      const delivered: { event: WebhookEventRow; result: AttemptResult; at: string }[] = [];
      let recordedAt = Date.now();
      /** Writes the delivered attempts and moves the cursor past them; false if the lease or the
       * cursor was taken meanwhile (a replay), which ends the turn. The attempts are written
       * either way: they were made, and every attempt is kept. */
      const record = async (): Promise<boolean> => {
        recordedAt = Date.now();
        const last = delivered.at(-1);
        if (!last || !endpoint) return true;
        const position = Number(last.event.position);
        const done = delivered.splice(0);
        const moved = await db.transaction().execute(async (trx) => {
          const changes = {
            cursor: position,
            failures: 0,
            failing_since: null,
            next_attempt_at: null,
          };
          const held = await updateLeased(trx, id, owner, changes, cursor);
          // A deleted endpoint's deliveries went with it: none is written back.
          if (held || (await findEndpointById(trx, id))) await recordAttempts(trx, tenant, done);
          return held;
        });
        if (!moved) return false;
        cursor = position;
        endpoint = { ...endpoint, failures: 0, failing_since: null };
        return true;
      };
      for (const [i, event] of events.entries()) {
        if (stopped) break;
        // The lease outlasts one attempt: renewed before an attempt that could outlive it.
        if (Date.now() + settings.timeoutMs + 1_000 > leaseUntil) {
          if (!(await record())) return false;
          if (!(await updateLeased(db, id, owner, { lease_until: leaseEnd() }, cursor)))
            return false;
          leaseUntil = Date.now() + leaseMs;
        }
        const message = messages[i];
        if (!message) break;
        const { timeoutMs } = settings;
        const { url } = endpoint;
        const result = await withSpan(
          'webhook.deliver',
          () => sendOnce(url, secrets, message, settings, timeoutMs, stopping.signal),
          {
            'webhook.endpoint_id': id,
            'webhook.event_type': event.type,
            'webhook.position': message.position,
          },
          // A failed attempt (an answer not 2xx, no answer, a refused address) is the span's error.
          (attempt) => (attempt.ok ? null : (attempt.error ?? 'failed')),
        );
        // Cut short by shutdown: not the receiver's failure, and sent again by whoever goes on.
        if (stopped) break;
        onAttempt({ ...result, endpointId: id, eventType: event.type });
        if (result.ok) {
          delivered.push({ event, result, at: nowIso() });
          const due =
            delivered.length >= recordEvery.events || Date.now() - recordedAt >= recordEvery.ms;
          if (due && !(await record())) return false;
          continue;
        }
        if (!(await record())) return false;
        await recordAttempt(db, endpoint, event, result, 'scheduled');
        await failed(endpoint, cursor, result);
        return false;
      }
      if (!(await record())) return false;
      return events.length === eventsPerTurn && !stopped;
    } finally {
      await updateLeased(db, id, owner, { lease_owner: null, lease_until: null });
    }
  }

  /** The head failed: its retry is scheduled, or, failing for too long, the endpoint disabled. */
  async function failed(endpoint: WebhookEndpointRow, cursor: number, result: AttemptResult) {
    const now = nowIso();
    const failures = Number(endpoint.failures) + 1;
    const failingSince = endpoint.failing_since ?? now;
    const failingMs = Date.parse(now) - Date.parse(failingSince);
    if (failingMs < settings.giveUpAfterMs) {
      const next = new Date(Date.now() + retryDelayMs(failures, settings.retryBaseMs));
      await updateLeased(
        db,
        endpoint.id,
        owner,
        { failures, failing_since: failingSince, next_attempt_at: next.toISOString() },
        cursor,
      );
      return;
    }
    const reason =
      `Disabled at ${now}: deliveries failed since ${failingSince} ` +
      `(${failures} attempts; the last: ${result.error ?? 'failed'}).`;
    await db.transaction().execute(async (trx) => {
      const disabled = await updateLeased(
        trx,
        endpoint.id,
        owner,
        {
          status: 'disabled',
          disabled_reason: reason,
          disabled_at: now,
          failures,
          failing_since: failingSince,
          next_attempt_at: null,
          updated_at: now,
        },
        cursor,
      );
      if (!disabled) return;
      await recordAudit(trx, {
        tenantId: endpoint.tenant_id,
        actorKind: 'operator',
        actor: 'webhook dispatcher',
        ip: 'local',
        userAgent: null,
        action: 'webhook.disabled',
        target: endpoint.url,
        details: { endpoint_id: endpoint.id, reason, failing_since: failingSince, failures },
      });
    });
    log.warn({ endpointId: endpoint.id }, 'webhook endpoint disabled after failing too long');
  }

  const loop = startPeriodic(settings.dispatchIntervalMs, pass, (error) => {
    log.error({ err: error }, 'sending webhooks failed; retrying');
  });
  return {
    kick: loop.run,
    stop: async () => {
      stopped = true;
      stopping.abort();
      await loop.stop();
      await Promise.all(inFlight.values());
    },
  };
}
