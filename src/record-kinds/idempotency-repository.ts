import type { Executor, Trx } from '../platform/db.js';
import { isPostgres } from '../platform/db.js';
import { prepared } from '../platform/prepared.js';
import { batchStatement, type UnnestType } from '../platform/unnest.js';
import type { IdempotencyKeysTable } from './table.js';

type KeyColumn = keyof IdempotencyKeysTable & string;

const saveKey = prepared((db, p: (name: KeyColumn) => never) =>
  db
    .insertInto('idempotency_keys')
    .values({
      tenant_id: p('tenant_id'),
      key: p('key'),
      customer_lookup: p('customer_lookup'),
      request_hash: p('request_hash'),
      status_code: p('status_code'),
      response_body: p('response_body'),
      created_at: p('created_at'),
    })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'key']).doUpdateSet({
        customer_lookup: p('customer_lookup'),
        request_hash: p('request_hash'),
        status_code: p('status_code'),
        response_body: p('response_body'),
        created_at: p('created_at'),
      }),
    ),
);

const keyTypes = {
  tenant_id: 'id',
  key: 'text',
  customer_lookup: 'text',
  request_hash: 'text',
  status_code: 'integer',
  response_body: 'text',
  created_at: 'text',
} as const satisfies Record<KeyColumn, UnnestType>;

// PostgreSQL: a batch's records in one statement (src/platform/unnest.ts).
const saveKeys = batchStatement(
  keyTypes,
  (db, rows) =>
    db
      .insertInto('idempotency_keys')
      .columns(Object.keys(keyTypes) as KeyColumn[])
      .expression(rows)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'key']).doUpdateSet((eb) => ({
          customer_lookup: eb.ref('excluded.customer_lookup'),
          request_hash: eb.ref('excluded.request_hash'),
          status_code: eb.ref('excluded.status_code'),
          response_body: eb.ref('excluded.response_body'),
          created_at: eb.ref('excluded.created_at'),
        })),
      ),
  { writePath: true },
);

/** A batch's idempotency records, one per key: the latest answer of each. */
export async function saveIdempotencyRecords(
  trx: Trx,
  records: readonly IdempotencyKeysTable[],
): Promise<void> {
  if (records.length === 0) return;
  if (!isPostgres(trx)) {
    for (const record of records) await saveKey.run(trx, record);
    return;
  }
  await saveKeys.run(trx, records);
}

/** The records of some keys, each by tenant and key; in one statement. */
export async function findIdempotencyRecordRows(
  trx: Executor,
  keys: readonly { tenant_id: string; key: string }[],
): Promise<IdempotencyKeysTable[]> {
  if (keys.length === 0) return [];
  return trx
    .selectFrom('idempotency_keys')
    .selectAll()
    .where((eb) =>
      eb.or(keys.map((k) => eb.and([eb('tenant_id', '=', k.tenant_id), eb('key', '=', k.key)]))),
    )
    .execute();
}

/** Drops idempotency records past their window; they would only be overwritten otherwise. */
export async function deleteIdempotencyRecordsBefore(
  db: Executor,
  cutoff: string,
): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A subject's records (by their keyed look-up), dropped with their erasure. */
export async function deleteSubjectIdempotencyRecords(
  trx: Trx,
  tenantId: string,
  lookup: string,
): Promise<void> {
  await trx
    .deleteFrom('idempotency_keys')
    .where('tenant_id', '=', tenantId)
    .where('customer_lookup', '=', lookup)
    .execute();
}
