import { sql } from 'kysely';
import { anySubscriber, type EventType, subscribedSql } from '../journal/index.js';
import { type Executor, isPostgres, type Trx } from '../platform/db.js';
import { paramRow, prepared } from '../platform/prepared.js';
import { type UnnestType, unnestRows, unnestTable } from '../platform/unnest.js';
import type { DecisionRow, DecisionValue, IdempotencyKeysTable } from './table.js';

// The statements of every decision and every `pending` are prepared (src/platform/prepared.ts).
// They name their columns: on PostgreSQL a prepared `select *` fails once a column is added by
// a newer instance's migration.

const customerVersionState = prepared(
  (db, p: (name: 'tenantId' | 'lookup' | 'versionId') => never) =>
    db
      .selectFrom('subjects as s')
      .innerJoin('customer_version_states as cv', (j) =>
        j.onRef('cv.tenant_id', '=', 's.tenant_id').onRef('cv.subject_id', '=', 's.id'),
      )
      .select(['cv.last_decision', 'cv.last_decided_at'])
      .where('s.tenant_id', '=', p('tenantId'))
      .where('s.lookup', '=', p('lookup'))
      .where('cv.consent_version_id', '=', p('versionId')),
);

/** The customer's state on a version, found by their keyed look-up (one indexed join). */
export function findCustomerVersionState(
  db: Executor,
  tenantId: string,
  lookup: string,
  versionId: string,
) {
  return customerVersionState.first(db, { tenantId, lookup, versionId });
}

type DecisionColumn = keyof DecisionRow & string;

/** Every column of a decision: the record type makes sure none is forgotten. */
const decisionColumns = Object.keys({
  tenant_id: true,
  id: true,
  subject_id: true,
  template_id: true,
  consent_version_id: true,
  version: true,
  decision: true,
  seq: true,
  decided_at: true,
  api_key_id: true,
  personal: true,
  content_sha256: true,
  idempotency_key: true,
  evidence_salt: true,
} satisfies Record<DecisionColumn, true>) as DecisionColumn[];

const insertDecision = prepared((db, p: (name: DecisionColumn) => never) =>
  db.insertInto('decisions').values(paramRow(decisionColumns, p)),
);

const saveTemplateState = prepared((db, p: (name: DecisionColumn) => never) => {
  const last = {
    last_decision_id: p('id'),
    last_decision: p('decision'),
    last_decided_at: p('decided_at'),
  };
  return db
    .insertInto('customer_template_states')
    .values({
      tenant_id: p('tenant_id'),
      subject_id: p('subject_id'),
      template_id: p('template_id'),
      decision_count: p('seq'),
      last_consent_version_id: p('consent_version_id'),
      ...last,
    })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'subject_id', 'template_id']).doUpdateSet({
        decision_count: p('seq'),
        last_consent_version_id: p('consent_version_id'),
        ...last,
      }),
    );
});

const saveVersionState = prepared((db, p: (name: DecisionColumn) => never) => {
  const last = {
    last_decision_id: p('id'),
    last_decision: p('decision'),
    last_decided_at: p('decided_at'),
  };
  return db
    .insertInto('customer_version_states')
    .values({
      tenant_id: p('tenant_id'),
      subject_id: p('subject_id'),
      consent_version_id: p('consent_version_id'),
      ...last,
    })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'subject_id', 'consent_version_id']).doUpdateSet(last),
    );
});

// A batch of decisions (record-decisions.ts) reads and writes through the functions below. On
// PostgreSQL each is a fixed number of set-based statements whatever the batch's size (one round
// trip each); on SQLite, where a statement costs no round trip, each row is a prepared statement.

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
  /** On the release: its latest decision, in full (what an unchanged decision answers). */
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
    const standings: StoredStanding[] = [];
    for (const query of queries) standings.push(await findStanding(trx, query));
    return standings;
  }
  const numbered = queries.map((query, i) => ({ ...query, i }));
  const asked = unnestRows(numbered, {
    i: 'integer',
    tenant_id: 'text',
    lookup: 'text',
    template_id: 'text',
    release_id: 'text',
    idempotency_key: 'text',
    event_type: 'text',
  });
  const { rows } = await sql<StoredStanding & { i: number }>`
    select q.i, s.id as subject_id, s.wrapped_key, s.salt,
      ts.decision_count, ts.last_decision as template_last,
      d.id as release_last_id, d.consent_version_id as release_last_version_id,
      d.version as release_last_version, d.decision as release_last,
      d.decided_at as release_last_at,
      k.customer_lookup as key_lookup, k.request_hash as key_request_hash,
      k.status_code as key_status, k.response_body as key_body, k.created_at as key_created_at,
      ${subscribedSql(sql.ref('q.tenant_id'), sql.ref('q.event_type'), 'any')} as event_wanted
    from (${asked}) as q
    left join subjects as s on s.tenant_id = q.tenant_id and s.lookup = q.lookup
    left join customer_template_states as ts
      on ts.tenant_id = q.tenant_id and ts.subject_id = s.id and ts.template_id = q.template_id
    left join lateral (
      select cv.last_decision_id from customer_version_states as cv
      join template_versions as v on v.tenant_id = cv.tenant_id and v.id = cv.consent_version_id
      where cv.tenant_id = q.tenant_id and cv.subject_id = s.id and v.release_id = q.release_id
      order by cv.last_decided_at desc limit 1
    ) as r on true
    left join decisions as d on d.tenant_id = q.tenant_id and d.id = r.last_decision_id
    left join idempotency_keys as k on k.tenant_id = q.tenant_id and k.key = q.idempotency_key
  `.execute(trx);
  const byPosition: StoredStanding[] = [];
  for (const { i, ...standing } of rows) byPosition[i] = standing;
  return byPosition;
}

const decisionTypes = {
  tenant_id: 'text',
  id: 'text',
  subject_id: 'text',
  template_id: 'text',
  consent_version_id: 'text',
  version: 'integer',
  decision: 'text',
  seq: 'integer',
  decided_at: 'text',
  api_key_id: 'text',
  personal: 'text',
  content_sha256: 'text',
  idempotency_key: 'text',
  evidence_salt: 'text',
} as const satisfies Record<DecisionColumn, UnnestType>;

/**
 * A batch's decisions, and the per-customer states they move: `templateStates` and
 * `versionStates` name each state once, by its latest decision (an upsert touches a row once).
 */
export async function appendDecisions(
  trx: Trx,
  rows: readonly DecisionRow[],
  templateStates: readonly DecisionRow[],
  versionStates: readonly DecisionRow[],
): Promise<void> {
  if (rows.length === 0) return;
  if (!isPostgres(trx)) {
    // Every column is named, absent ones as null: a prepared statement has a fixed shape.
    const values = (row: DecisionRow) => ({ ...row, idempotency_key: row.idempotency_key ?? null });
    for (const row of rows) await insertDecision.run(trx, values(row));
    for (const row of templateStates) await saveTemplateState.run(trx, values(row));
    for (const row of versionStates) await saveVersionState.run(trx, values(row));
    return;
  }
  await trx
    .insertInto('decisions')
    .columns(decisionColumns)
    .expression(unnestRows(rows, decisionTypes))
    .execute();
  await trx
    .insertInto('customer_template_states')
    .columns([
      'tenant_id',
      'subject_id',
      'template_id',
      'decision_count',
      'last_consent_version_id',
      'last_decision_id',
      'last_decision',
      'last_decided_at',
    ])
    .expression((eb) =>
      eb
        .selectFrom(unnestTable(templateStates, decisionTypes, 'r'))
        .select([
          'r.tenant_id',
          'r.subject_id',
          'r.template_id',
          'r.seq',
          'r.consent_version_id',
          'r.id',
          'r.decision',
          'r.decided_at',
        ]),
    )
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'subject_id', 'template_id']).doUpdateSet((eb) => ({
        decision_count: eb.ref('excluded.decision_count'),
        last_consent_version_id: eb.ref('excluded.last_consent_version_id'),
        last_decision_id: eb.ref('excluded.last_decision_id'),
        last_decision: eb.ref('excluded.last_decision'),
        last_decided_at: eb.ref('excluded.last_decided_at'),
      })),
    )
    .execute();
  await trx
    .insertInto('customer_version_states')
    .columns([
      'tenant_id',
      'subject_id',
      'consent_version_id',
      'last_decision_id',
      'last_decision',
      'last_decided_at',
    ])
    .expression((eb) =>
      eb
        .selectFrom(unnestTable(versionStates, decisionTypes, 'r'))
        .select([
          'r.tenant_id',
          'r.subject_id',
          'r.consent_version_id',
          'r.id',
          'r.decision',
          'r.decided_at',
        ]),
    )
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'subject_id', 'consent_version_id']).doUpdateSet((eb) => ({
        last_decision_id: eb.ref('excluded.last_decision_id'),
        last_decision: eb.ref('excluded.last_decision'),
        last_decided_at: eb.ref('excluded.last_decided_at'),
      })),
    )
    .execute();
}

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
  await trx
    .insertInto('idempotency_keys')
    .columns([
      'tenant_id',
      'key',
      'customer_lookup',
      'request_hash',
      'status_code',
      'response_body',
      'created_at',
    ])
    .expression(
      unnestRows(records, {
        tenant_id: 'text',
        key: 'text',
        customer_lookup: 'text',
        request_hash: 'text',
        status_code: 'integer',
        response_body: 'text',
        created_at: 'text',
      }),
    )
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'key']).doUpdateSet((eb) => ({
        customer_lookup: eb.ref('excluded.customer_lookup'),
        request_hash: eb.ref('excluded.request_hash'),
        status_code: eb.ref('excluded.status_code'),
        response_body: eb.ref('excluded.response_body'),
        created_at: eb.ref('excluded.created_at'),
      })),
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

// SQLite: one decision's standing, in the statements `findStandings` answers in one on
// PostgreSQL. Each is prepared, and each is a look-up by key.

const subjectStanding = prepared((db, p: (name: 'tenantId' | 'lookup' | 'templateId') => never) =>
  db
    .selectFrom('subjects as s')
    .leftJoin('customer_template_states as ts', (j) =>
      j
        .onRef('ts.tenant_id', '=', 's.tenant_id')
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
    .where('s.lookup', '=', p('lookup')),
);

/** The customer's latest decision on a release: on its most recently decided locale's variant. */
const releaseStanding = prepared((db, p: (name: 'tenantId' | 'subjectId' | 'releaseId') => never) =>
  db
    .selectFrom('customer_version_states as cv')
    .innerJoin('template_versions as v', (j) =>
      j.onRef('v.tenant_id', '=', 'cv.tenant_id').onRef('v.id', '=', 'cv.consent_version_id'),
    )
    .innerJoin('decisions as d', (j) =>
      j.onRef('d.tenant_id', '=', 'cv.tenant_id').onRef('d.id', '=', 'cv.last_decision_id'),
    )
    .select([
      'd.id as release_last_id',
      'd.consent_version_id as release_last_version_id',
      'd.version as release_last_version',
      'd.decision as release_last',
      'd.decided_at as release_last_at',
    ])
    .where('cv.tenant_id', '=', p('tenantId'))
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
