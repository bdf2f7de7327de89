import type { Db } from '../platform/db.js';
import { lockKey, tryLockKey } from '../platform/locks.js';
import {
  findSequence,
  moveSequence,
  readUnsequenced,
  setPositions,
  tenantsWithUnsequenced,
  type Unsequenced,
} from './repository.js';

/** Most events given positions by one transaction. */
const eventsPerPass = 1000;

/**
 * Gives the tenants' waiting events their positions, in commit order. Row ids and times are
 * not commit order (a transaction may commit after a later one), so an event is only given a
 * position once its order is known for good:
 *
 * - a decision's or erasure's event once its record is in the decision log, at its log index:
 *   the integrator appends in one pass at a time per log, so the entries visible now are a
 *   prefix of the log, and their events (committed before their leaves could be appended) are
 *   all visible too; decisions and erasures thus take positions in the log's order;
 * - any other event (versions) as soon as it is visible: it has no place in the log, and taking
 *   the next position when first seen keeps positions in the order events became visible.
 *
 * One transaction per tenant under its advisory lock, and the sequence moved by
 * compare-and-swap, so that two instances never give out one position twice (the unique index
 * on `(tenant_id, position)` would refuse it too).
 */
export async function sequenceEvents(db: Db): Promise<number> {
  let given = 0;
  for (const tenantId of await tenantsWithUnsequenced(db, 100)) {
    given += await sequenceTenant(db, tenantId);
  }
  return given;
}

/** One tenant's pass (also run before an endpoint is made, so that it starts after them). */
export async function sequenceTenant(
  db: Db,
  tenantId: string,
  /** Wait for a pass another instance (or this one's dispatcher) is running, rather than skip:
   * whoever needs every event committed so far to have its position (a new endpoint) waits. */
  wait = false,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const key = `webhooks:sequence:${tenantId}`;
    if (wait) await lockKey(trx, key);
    else if (!(await tryLockKey(trx, key))) return 0;
    const ready = inOrder(await readUnsequenced(trx, tenantId, eventsPerPass));
    if (ready.length === 0) return 0;
    const from = await findSequence(trx, tenantId);
    const start = from ?? 0;
    const rows = ready.map((event, i) => ({
      id: event.id,
      position: start + i + 1,
      log_index: event.log_index,
    }));
    if (!(await moveSequence(trx, tenantId, from, start + ready.length))) {
      throw new Error(`webhook sequence of ${tenantId} moved past ${start} during this pass`);
    }
    await setPositions(trx, rows);
    return rows.length;
  });
}

/**
 * The events that can take a position now, in the order they take it: logged records by log
 * index, the others by the time they occurred, merged by time so neither kind waits on the
 * other. A logged record not yet in the log stops nothing but itself.
 */
function inOrder(events: readonly Unsequenced[]): Unsequenced[] {
  const logged = events
    .filter((e) => e.record_id !== null && e.log_index !== null)
    .sort((a, b) => (a.log_index ?? 0) - (b.log_index ?? 0));
  const unlogged = events.filter((e) => e.record_id === null);
  const merged: Unsequenced[] = [];
  let i = 0;
  let j = 0;
  while (i < logged.length || j < unlogged.length) {
    const a = logged[i];
    const b = unlogged[j];
    if (a && (!b || a.occurred_at <= b.occurred_at)) {
      merged.push(a);
      i++;
    } else if (b) {
      merged.push(b);
      j++;
    }
  }
  return merged;
}
