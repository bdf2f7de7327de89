import type { Executor, Trx } from '../platform/db.js';
import type { TlogCosignaturesTable } from './table.js';

/** Every log's latest checkpoint, with the key it is signed with: what witnesses are sent. */
export function latestCheckpoints(db: Executor) {
  return db
    .selectFrom('tlog_state as s')
    .innerJoin('tlog_checkpoints as c', (j) =>
      j.onRef('c.log_id', '=', 's.log_id').onRef('c.size', '=', 's.size'),
    )
    .innerJoin('tlog_logs as l', 'l.log_id', 's.log_id')
    .select(['s.log_id', 's.size', 'c.note', 'c.created_at', 'l.verifier_key'])
    .execute();
}

/** The size a witness last cosigned of each log, keyed `<log id> <witness>`. */
export async function witnessSizes(db: Executor, witness: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('tlog_witness_state')
    .select(['log_id', 'witness', 'size'])
    .where('witness', '=', witness)
    .execute();
  return new Map(rows.map((r) => [`${r.log_id} ${r.witness}`, Number(r.size)]));
}

/**
 * The oldest checkpoint a witness has not cosigned, per log behind it: when its lag began.
 * Reads only the checkpoints above the size it cosigned, by the checkpoints' key.
 */
export async function oldestUncosigned(
  db: Executor,
  witness: string,
  logs: readonly { log_id: string; from: number }[],
): Promise<Map<string, string>> {
  const oldest = new Map<string, string>();
  for (const { log_id, from } of logs) {
    const row = await db
      .selectFrom('tlog_checkpoints')
      .select('created_at')
      .where('log_id', '=', log_id)
      .where('size', '>', from)
      .orderBy('size')
      .limit(1)
      .executeTakeFirst();
    if (row) oldest.set(`${log_id} ${witness}`, row.created_at);
  }
  return oldest;
}

/** Records a witness's cosignature and moves its size forward (never back). */
export async function saveCosignature(trx: Trx, row: TlogCosignaturesTable): Promise<void> {
  await trx
    .insertInto('tlog_cosignatures')
    .values(row)
    .onConflict((oc) => oc.columns(['log_id', 'size', 'witness']).doNothing())
    .execute();
  await moveWitnessSize(trx, row.log_id, row.witness, Number(row.size), row.cosigned_at);
}

/** The size a witness has cosigned of a log, when larger than the one recorded. */
export async function moveWitnessSize(
  db: Executor,
  logId: string,
  witness: string,
  size: number,
  at: string,
): Promise<void> {
  await db
    .insertInto('tlog_witness_state')
    .values({ log_id: logId, witness, size, updated_at: at })
    .onConflict((oc) =>
      oc
        .columns(['log_id', 'witness'])
        .doUpdateSet({ size, updated_at: at })
        .where('tlog_witness_state.size', '<', size),
    )
    .execute();
}

/** A checkpoint's cosignature lines by the named witnesses. */
export function cosignaturesOf(
  db: Executor,
  logId: string,
  size: number,
  witnesses: readonly string[],
) {
  return db
    .selectFrom('tlog_cosignatures')
    .select(['witness', 'line', 'cosigned_at'])
    .where('log_id', '=', logId)
    .where('size', '=', size)
    .where('witness', 'in', witnesses)
    .orderBy('witness')
    .execute();
}

/**
 * The newest checkpoint of a log at or above `minSize` that at least `quorum` of the named
 * witnesses cosigned, with its note: what a receipt proves its leaf under.
 */
export function newestWitnessed(
  db: Executor,
  logId: string,
  minSize: number,
  witnesses: readonly string[],
  quorum: number,
) {
  return db
    .selectFrom('tlog_cosignatures as w')
    .innerJoin('tlog_checkpoints as c', (j) =>
      j.onRef('c.log_id', '=', 'w.log_id').onRef('c.size', '=', 'w.size'),
    )
    .select(['c.size', 'c.note'])
    .where('w.log_id', '=', logId)
    .where('w.size', '>=', minSize)
    .where('w.witness', 'in', witnesses)
    .groupBy(['c.size', 'c.note'])
    .having((eb) => eb.fn.count('w.witness'), '>=', quorum)
    .orderBy('c.size', 'desc')
    .limit(1)
    .executeTakeFirst();
}
