import type { Executor } from '../platform/db.js';
import type { TlogTimestampsTable } from './table.js';

/** Per log, the largest size an authority time-stamped and when: what it is sent next. */
export async function lastTimestamps(
  db: Executor,
  tsa: string,
): Promise<Map<string, { size: number; createdAt: string }>> {
  const rows = await db
    .selectFrom('tlog_timestamps')
    .select([
      'log_id',
      (eb) => eb.fn.max('size').as('size'),
      (eb) => eb.fn.max('created_at').as('created_at'),
    ])
    .where('tsa', '=', tsa)
    .groupBy('log_id')
    .execute();
  return new Map(
    rows.map((r) => [r.log_id, { size: Number(r.size), createdAt: String(r.created_at) }]),
  );
}

export async function saveTimestamp(db: Executor, row: TlogTimestampsTable): Promise<void> {
  await db
    .insertInto('tlog_timestamps')
    .values(row)
    .onConflict((oc) => oc.columns(['log_id', 'size', 'tsa']).doNothing())
    .execute();
}

/** The first time-stamped checkpoint of a log at or above a size, with its note and token. */
export function firstTimestampFrom(db: Executor, logId: string, minSize: number) {
  return db
    .selectFrom('tlog_timestamps as t')
    .innerJoin('tlog_checkpoints as c', (j) =>
      j.onRef('c.log_id', '=', 't.log_id').onRef('c.size', '=', 't.size'),
    )
    .select(['t.size', 't.token', 't.tsa', 'c.note', 'c.root'])
    .where('t.log_id', '=', logId)
    .where('t.size', '>=', minSize)
    .orderBy('t.size')
    .orderBy('t.tsa')
    .limit(1)
    .executeTakeFirst();
}
