import { type Insertable, sql } from 'kysely';
import type { Db, Executor, Trx } from '../platform/db.js';
import type { ErasuresTable } from './table.js';

/**
 * The tenant's erasures in sum: how many customer records were erased, the latest when, and how
 * many decisions they left in the log. Read from the erasures (one per template an erased
 * customer had decided on), which are few, rather than from every subject.
 */
export async function erasureTotals(
  db: Executor,
  tenantId: string,
): Promise<{ customers: number; decisions: number; latestAt: string | null }> {
  const erased = db.selectFrom('erasures').select('subject_id').where('tenant_id', '=', tenantId);
  const sums = await db
    .selectFrom('erasures')
    .select((eb) => [
      eb.fn.count<number | string>('subject_id').distinct().as('customers'),
      eb.fn.max('erased_at').as('latest_at'),
    ])
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  if (Number(sums.customers) === 0) return { customers: 0, decisions: 0, latestAt: null };
  const { decisions } = await db
    .selectFrom('decisions')
    .select((eb) => eb.fn.countAll<number | string>().as('decisions'))
    .where('tenant_id', '=', tenantId)
    .where('subject_id', 'in', erased)
    .executeTakeFirstOrThrow();
  return {
    customers: Number(sums.customers),
    decisions: Number(decisions),
    latestAt: sums.latest_at ?? null,
  };
}

/** The templates the customer decided on, each with the version and text of their last decision. */
export function findDecidedTemplates(trx: Trx, tenantId: string, subjectId: string) {
  return trx
    .selectFrom('customer_template_states as s')
    .innerJoin('template_versions as v', (j) =>
      j.onRef('v.tenant_id', '=', 's.tenant_id').onRef('v.id', '=', 's.last_consent_version_id'),
    )
    .select(['s.template_id', 'v.version', 'v.content_sha256'])
    .where('s.tenant_id', '=', tenantId)
    .where('s.subject_id', '=', subjectId)
    .orderBy('s.template_id')
    .execute();
}

export async function insertErasure(trx: Trx, row: Insertable<ErasuresTable>): Promise<void> {
  await trx.insertInto('erasures').values(row).execute();
}

/**
 * Everything an erasure drops besides the key: the customer's current states, their
 * idempotency records and preference centre sign-in codes (both kept by the customer's
 * look-up), then the subject's key, salt and look-up themselves.
 */
export async function shredSubject(
  trx: Trx,
  tenantId: string,
  subjectId: string,
  lookup: string,
  erasedAt: string,
): Promise<void> {
  for (const table of [
    'customer_template_states',
    'customer_version_states',
    'channel_states',
    'partner_block_states',
  ] as const) {
    await trx
      .deleteFrom(table)
      .where('tenant_id', '=', tenantId)
      .where('subject_id', '=', subjectId)
      .execute();
  }
  await trx
    .deleteFrom('idempotency_keys')
    .where('tenant_id', '=', tenantId)
    .where('customer_lookup', '=', lookup)
    .execute();
  // The preference centre's sign-in codes are kept by the look-up too: none may outlive it.
  await trx
    .deleteFrom('preference_codes')
    .where('tenant_id', '=', tenantId)
    .where('lookup', '=', lookup)
    .execute();
  await trx
    .updateTable('subjects')
    .set({ lookup: null, wrapped_key: null, salt: null, erased_at: erasedAt })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', subjectId)
    .execute();
}

export async function countSubjectDecisions(
  db: Executor,
  tenantId: string,
  subjectId: string,
): Promise<number> {
  const { count } = await db
    .selectFrom('decisions')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** How many cookie choices a visitor's subject made. */
export async function countSubjectCookieDecisions(
  db: Executor,
  tenantId: string,
  subjectId: string,
): Promise<number> {
  const { count } = await db
    .selectFrom('cookie_decisions')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/**
 * SQLite: copies the WAL's pages back into the database file and empties the WAL; false when
 * another connection's reader held it up.
 */
export async function checkpointWal(db: Db): Promise<boolean> {
  const { rows } = await sql<{ busy: number }>`pragma wal_checkpoint(truncate)`.execute(db);
  return Number(rows[0]?.busy ?? 0) === 0;
}
