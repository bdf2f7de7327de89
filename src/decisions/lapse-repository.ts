import { sql } from 'kysely';
import type { Executor, Trx } from '../platform/db.js';
import { resolveIdType, sealedColumn, stateOfTenantRow } from '../platform/id-type.js';

/**
 * The live templates with a validity period, of every tenant (the ones whose consents lapse),
 * each with its place (`lapse_progress`; null: none yet), read together for a pass.
 */
export function findLapsingTemplates(db: Executor) {
  return db
    .selectFrom('templates as t')
    .leftJoin('lapse_progress as p', (join) =>
      join.onRef('p.tenant_id', '=', 't.tenant_id').onRef('p.template_id', '=', 't.id'),
    )
    .select([
      't.tenant_id',
      't.id',
      't.code',
      't.validity_months',
      'p.decided_through',
      'p.through_id',
    ])
    .where('t.validity_months', 'is not', null)
    .where('t.archived_at', 'is', null)
    .orderBy('t.tenant_id')
    .orderBy('t.id')
    .execute();
}

/** How far a template's `given` decisions were looked at; undefined: none yet. */
export function findLapseProgress(db: Executor, tenantId: string, templateId: string) {
  return db
    .selectFrom('lapse_progress')
    .select(['decided_through', 'through_id'])
    .where('tenant_id', '=', tenantId)
    .where('template_id', '=', templateId)
    .executeTakeFirst();
}

export async function saveLapseProgress(
  trx: Trx,
  row: { tenant_id: string; template_id: string; decided_through: string; through_id: string },
): Promise<void> {
  await trx
    .insertInto('lapse_progress')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'template_id']).doUpdateSet({
        decided_through: row.decided_through,
        through_id: row.through_id,
      }),
    )
    .execute();
}

/** When the template's validity period was last set: a lapse it caused happened then. */
export async function findPeriodSetAt(
  trx: Trx,
  tenantId: string,
  templateId: string,
): Promise<string | undefined> {
  const row = await trx
    .selectFrom('template_validity_changes')
    .select((eb) => eb.fn.max('changed_at').as('changed_at'))
    .where('tenant_id', '=', tenantId)
    .where('template_id', '=', templateId)
    .executeTakeFirst();
  return row?.changed_at ?? undefined;
}

/**
 * A page of the template's `given` decisions after `after` in `(decided_at, id)` order (from
 * the first when `after.at` is empty), decided at or before `upTo`, each with whether it is
 * still the customer's latest on the template (the index on `(tenant_id, decided_at)` bounds
 * the scan to the window).
 */
export async function findGivenBetween(
  db: Executor,
  q: {
    tenantId: string;
    templateId: string;
    after: { at: string; id: string };
    upTo: string;
    limit: number;
  },
) {
  await resolveIdType(db);
  return (
    db
      .selectFrom('decisions as d')
      .leftJoin('customer_template_states as s', (join) =>
        join
          .on(stateOfTenantRow(db, 's', sql.ref('d.tenant_id')))
          .onRef('s.subject_id', '=', 'd.subject_id')
          .onRef('s.template_id', '=', 'd.template_id'),
      )
      .leftJoin('subjects as sub', (join) =>
        join.onRef('sub.tenant_id', '=', 'd.tenant_id').onRef('sub.id', '=', 'd.subject_id'),
      )
      .select([
        sealedColumn<string | null>(db, 'sub.wrapped_key').as('wrapped_key'),
        sealedColumn<string | null>(db, 'sub.salt').as('salt'),
        'd.id',
        'd.subject_id',
        sealedColumn(db, 'd.personal').as('personal'),
        'd.consent_version_id',
        'd.version',
        'd.decided_at',
        's.last_decision_id',
      ])
      .where('d.tenant_id', '=', q.tenantId)
      .where('d.template_id', '=', q.templateId)
      .where('d.decision', '=', 'given')
      // A first walk (`at` empty) starts at the first decision: an empty time is none to a store
      // whose times are `timestamptz` (id-type.ts), where text put every time after it.
      .$if(q.after.at !== '', (query) =>
        query.where((eb) =>
          eb.or([
            eb('d.decided_at', '>', q.after.at),
            eb.and([eb('d.decided_at', '=', q.after.at), eb('d.id', '>', q.after.id)]),
          ]),
        ),
      )
      .where('d.decided_at', '<=', q.upTo)
      .orderBy('d.decided_at')
      .orderBy('d.id')
      .limit(q.limit)
      .execute()
  );
}
