import type { Transaction } from 'kysely';
import type {
  WitnessConflictsTable,
  WitnessDatabase,
  WitnessDb,
  WitnessLogsTable,
} from './table.js';

type Executor = WitnessDb | Transaction<WitnessDatabase>;

export function findLog(db: Executor, origin: string): Promise<WitnessLogsTable | undefined> {
  return db.selectFrom('witness_logs').selectAll().where('origin', '=', origin).executeTakeFirst();
}

export function findLogByHash(
  db: Executor,
  originHash: string,
): Promise<WitnessLogsTable | undefined> {
  return db
    .selectFrom('witness_logs')
    .selectAll()
    .where('origin_hash', '=', originHash)
    .executeTakeFirst();
}

/** Records the new latest cosigned checkpoint of a log (the caller checked it moves forward). */
export async function saveLog(db: Executor, row: WitnessLogsTable): Promise<void> {
  await db
    .insertInto('witness_logs')
    .values(row)
    .onConflict((oc) =>
      oc.column('origin').doUpdateSet({
        size: row.size,
        root: row.root,
        checkpoint: row.checkpoint,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

export async function insertConflict(db: Executor, row: WitnessConflictsTable): Promise<void> {
  await db.insertInto('witness_conflicts').values(row).execute();
}

export function listConflicts(db: Executor, origin?: string): Promise<WitnessConflictsTable[]> {
  let query = db.selectFrom('witness_conflicts').selectAll().orderBy('received_at');
  if (origin !== undefined) query = query.where('origin', '=', origin);
  return query.execute();
}
