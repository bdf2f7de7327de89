/**
 * Where each decision of a batch (record-decisions.ts) finds its customer: the subject by its
 * look-up, their state on the template, their latest decision on the release, the idempotency
 * key's record, and whether an endpoint takes the decision's event. On PostgreSQL one statement
 * answers the whole batch; on SQLite, where a statement costs no round trip, a few prepared
 * look-ups by key per decision.
 */
import { sql } from 'kysely';
import { anySubscriber, type EventType, subscribedSql } from '../journal/index.js';
import { isPostgres, type Trx } from '../platform/db.js';
import { sealedColumn, stateOfTenantRow, subjectLookup } from '../platform/id-type.js';
import { prepared } from '../platform/prepared.js';
import { answersInOrder, batchStatement, type UnnestType } from '../platform/unnest.js';
import type { DecisionValue } from './table.js';

/** What a batch asks about one decision's customer. */
export interface StandingQuery {
  tenant_id: string;
  lookup: string;
  template_id: string;
  release_id: string;
  idempotency_key: string | null;
  /** The decision's webhook event type (`decision.given`, …). */
  event_type: EventType;
}

/** One decision's customer as the store has them, before the batch: nulls where nothing is. */
export interface StoredStanding {
  subject_id: string | null;
  wrapped_key: string | null;
  salt: string | null;
  /** On the template. */
  decision_count: number | null;
  template_last: DecisionValue | null;
  /**
   * On the release: its latest decision, in full (what an unchanged decision answers), as the
   * customer's state on that decision's version keeps it (`customer_version_states`, which only
   * the write path writes, with the decision's own values) and the version its number: the
   * decision's row is not read.
   */
  release_last_id: string | null;
  release_last_version_id: string | null;
  release_last_version: number | null;
  release_last: DecisionValue | null;
  release_last_at: string | null;
  /** The idempotency key's record. */
  key_lookup: string | null;
  key_request_hash: string | null;
  key_status: number | null;
  key_body: string | null;
  key_created_at: string | null;
  /** Whether an endpoint of the tenant takes the decision's webhook event (`subscribedSql`). */
  event_wanted: boolean;
}

const askedTypes = {
  i: 'integer',
  tenant_id: 'id',
  lookup: 'text',
  template_id: 'id',
  release_id: 'id',
  idempotency_key: 'text',
  event_type: 'text',
} as const satisfies Record<keyof StandingQuery | 'i', UnnestType>;

const standings = batchStatement(
  askedTypes,
  (db, asked) =>
    sql<StoredStanding & { i: number }>`
    select q.i, s.id as subject_id, ${sealedColumn(db, 's.wrapped_key')} as wrapped_key,
      ${sealedColumn(db, 's.salt')} as salt,
      ts.decision_count, ts.last_decision as template_last,
      r.last_decision_id as release_last_id, r.consent_version_id as release_last_version_id,
      r.version as release_last_version, r.last_decision as release_last,
      r.last_decided_at as release_last_at,
      k.customer_lookup as key_lookup, k.request_hash as key_request_hash,
      k.status_code as key_status, k.response_body as key_body, k.created_at as key_created_at,
      ${subscribedSql(sql.ref('q.tenant_id'), sql.ref('q.event_type'), 'any')} as event_wanted
    from (${asked}) as q
    left join subjects as s
      on s.tenant_id = q.tenant_id and s.lookup = ${subjectLookup(db, sql.ref('q.lookup'))}
    left join customer_template_states as ts
      on ${stateOfTenantRow(db, 'ts', sql.ref('q.tenant_id'))} and ts.subject_id = s.id
        and ts.template_id = q.template_id
    left join lateral (
      select cv.last_decision_id, cv.consent_version_id, v.version, cv.last_decision,
        cv.last_decided_at
      from customer_version_states as cv
      join template_versions as v on v.tenant_id = q.tenant_id and v.id = cv.consent_version_id
      where ${stateOfTenantRow(db, 'cv', sql.ref('q.tenant_id'))} and cv.subject_id = s.id
        and v.release_id = q.release_id
      order by cv.last_decided_at desc limit 1
    ) as r on true
    left join idempotency_keys as k on k.tenant_id = q.tenant_id and k.key = q.idempotency_key
  `,
  { writePath: true },
);

/**
 * Every decision's customer, states and idempotency record in one statement: the subject by
 * its look-up, their state on the template, their latest decision on the release, the key's
 * record. Answered in the order asked.
 */
export async function findStandings(
  trx: Trx,
  queries: readonly StandingQuery[],
): Promise<StoredStanding[]> {
  if (!isPostgres(trx)) {
    const found: StoredStanding[] = [];
    for (const query of queries) found.push(await findStanding(trx, query));
    return found;
  }
  return answersInOrder(standings, trx, queries);
}

// SQLite: one decision's standing, in the statements `findStandings` answers in one on
// PostgreSQL. Each is prepared, and each is a look-up by key.

const subjectStanding = prepared((db, p: (name: 'tenantId' | 'lookup' | 'templateId') => never) =>
  db
    .selectFrom('subjects as s')
    .leftJoin('customer_template_states as ts', (j) =>
      j
        .on(stateOfTenantRow(db, 'ts', sql.ref('s.tenant_id')))
        .onRef('ts.subject_id', '=', 's.id')
        .on('ts.template_id', '=', p('templateId')),
    )
    .select([
      's.id as subject_id',
      's.wrapped_key',
      's.salt',
      'ts.decision_count',
      'ts.last_decision as template_last',
    ])
    .where('s.tenant_id', '=', p('tenantId'))
    .where('s.lookup', '=', subjectLookup(db, p('lookup'))),
);

/** The customer's latest decision on a release: on its most recently decided locale's variant. */
const releaseStanding = prepared((db, p: (name: 'tenantId' | 'subjectId' | 'releaseId') => never) =>
  db
    .selectFrom('customer_version_states as cv')
    .innerJoin('template_versions as v', (j) =>
      j.on('v.tenant_id', '=', p('tenantId')).onRef('v.id', '=', 'cv.consent_version_id'),
    )
    .select([
      'cv.last_decision_id as release_last_id',
      'cv.consent_version_id as release_last_version_id',
      'v.version as release_last_version',
      'cv.last_decision as release_last',
      'cv.last_decided_at as release_last_at',
    ])
    .where(stateOfTenantRow(db, 'cv', p('tenantId')))
    .where('cv.subject_id', '=', p('subjectId'))
    .where('v.release_id', '=', p('releaseId'))
    .orderBy('cv.last_decided_at', 'desc')
    .limit(1),
);

const keyRecord = prepared((db, p: (name: 'tenantId' | 'key') => never) =>
  db
    .selectFrom('idempotency_keys')
    .select([
      'customer_lookup as key_lookup',
      'request_hash as key_request_hash',
      'status_code as key_status',
      'response_body as key_body',
      'created_at as key_created_at',
    ])
    .where('tenant_id', '=', p('tenantId'))
    .where('key', '=', p('key')),
);

async function findStanding(trx: Trx, query: StandingQuery): Promise<StoredStanding> {
  const { tenant_id: tenantId, lookup, template_id: templateId } = query;
  const subject = await subjectStanding.first(trx, { tenantId, lookup, templateId });
  const release = subject
    ? await releaseStanding.first(trx, {
        tenantId,
        subjectId: subject.subject_id,
        releaseId: query.release_id,
      })
    : undefined;
  const key =
    query.idempotency_key === null
      ? undefined
      : await keyRecord.first(trx, { tenantId, key: query.idempotency_key });
  return {
    subject_id: subject?.subject_id ?? null,
    wrapped_key: subject?.wrapped_key ?? null,
    salt: subject?.salt ?? null,
    decision_count: subject?.decision_count ?? null,
    template_last: subject?.template_last ?? null,
    release_last_id: release?.release_last_id ?? null,
    release_last_version_id: release?.release_last_version_id ?? null,
    release_last_version: release?.release_last_version ?? null,
    release_last: release?.release_last ?? null,
    release_last_at: release?.release_last_at ?? null,
    key_lookup: key?.key_lookup ?? null,
    key_request_hash: key?.key_request_hash ?? null,
    key_status: key?.key_status ?? null,
    key_body: key?.key_body ?? null,
    key_created_at: key?.key_created_at ?? null,
    event_wanted: await anySubscriber(trx, tenantId, query.event_type, 'any'),
  };
}
