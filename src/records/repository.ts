import { sql } from 'kysely';
import type { Executor } from '../platform/db.js';
import {
  idArrayType,
  knownTimeType,
  resolveIdType,
  sealedColumn,
  stateOfTenantRow,
  subjectLookup,
  timeArrayType,
} from '../platform/id-type.js';
import { noId } from '../platform/ids.js';
import { prepared } from '../platform/prepared.js';
import { decisionTimeBound, isoFromJson, nowIso } from '../platform/time.js';
import { isLive, liveAt } from '../templates/index.js';

/**
 * Read-only queries of a customer's record for the API. Every one filters by the tenant, and
 * each reaches its rows through a key that starts with (tenant_id, subject_id) or with the
 * template; history pages seek on `decisions_customer_time_idx` (migration 0004).
 */

/**
 * The customer's standing on each template they decided on, with that template's latest version
 * and their most recent decision on it (none: pending). The API and the back-office both read it.
 * Each value is a parameter (`templateStandings`) or a column of the statement it sits in
 * (`customerRecords`).
 */
function standingsOf(db: Executor, tenantId: never, subjectId: never, now: never) {
  return (
    db
      .selectFrom('customer_template_states as s')
      .innerJoin('templates as t', (j) =>
        j.on('t.tenant_id', '=', tenantId).onRef('t.id', '=', 's.template_id'),
      )
      .innerJoin('template_versions as lv', (j) =>
        j
          .on('lv.tenant_id', '=', tenantId)
          .on('lv.id', '=', (eb) =>
            eb
              .selectFrom('template_versions as x')
              .select('x.id')
              .where('x.tenant_id', '=', tenantId)
              .whereRef('x.template_id', '=', 's.template_id')
              .where(liveAt('x', now))
              .whereRef('x.id', '=', 'x.release_id')
              .orderBy('x.version', 'desc')
              .limit(1),
          ),
      )
      .innerJoin('template_versions as dv', (j) =>
        j.on('dv.tenant_id', '=', tenantId).onRef('dv.id', '=', 's.last_consent_version_id'),
      )
      // Their state on the latest release: on its most recently decided locale's variant.
      .leftJoin('customer_version_states as cv', (j) =>
        j
          .on(stateOfTenantRow(db, 'cv', tenantId))
          .onRef('cv.subject_id', '=', 's.subject_id')
          .on('cv.consent_version_id', '=', (eb) =>
            eb
              .selectFrom('customer_version_states as c')
              .select('c.consent_version_id')
              .where(stateOfTenantRow(db, 'c', tenantId))
              .whereRef('c.subject_id', '=', 's.subject_id')
              .where('c.consent_version_id', 'in', (y) =>
                y
                  .selectFrom('template_versions as y')
                  .select('y.id')
                  .where('y.tenant_id', '=', tenantId)
                  .whereRef('y.release_id', '=', 'lv.id'),
              )
              .orderBy('c.last_decided_at', 'desc')
              .limit(1),
          ),
      )
      .select([
        't.code as template_code',
        't.name as template_name',
        'lv.id as latest_id',
        'lv.version as latest_version',
        'lv.tag as latest_tag',
        'cv.last_decision_id as decision_on_latest_id',
        'cv.consent_version_id as decision_on_latest_version_id',
        'cv.last_decision as decision_on_latest',
        'cv.last_decided_at as decided_on_latest_at',
        't.validity_months',
        's.decision_count',
        's.last_decision_id',
        's.last_decision',
        's.last_consent_version_id',
        'dv.version as last_version',
        'dv.tag as last_tag',
        's.last_decided_at',
        'dv.locale as last_locale',
      ])
      .where(stateOfTenantRow(db, 's', tenantId))
      .where('s.subject_id', '=', subjectId)
      .orderBy('t.code')
  );
}

/** Prepared: building and compiling this query took more of a history request than running it. */
const templateStandings = prepared((db, p: (name: 'tenantId' | 'subjectId' | 'now') => never) =>
  standingsOf(db, p('tenantId'), p('subjectId'), p('now')),
);

export async function findTemplateStandings(db: Executor, tenantId: string, subjectId: string) {
  return (await templateStandings.run(db, { tenantId, subjectId, now: nowIso() })).rows;
}

/** Where a page of history starts: after this decision, in the order newest first. */
export interface HistoryPosition {
  decidedAt: string;
  id: string;
}

/**
 * Decisions of the tenant with the template and version each was made on: the join every list
 * of the record (the API's history, the back-office's history and exports) starts from.
 */
export function decisionsWithVersion(db: Executor, tenantId: string) {
  return db
    .selectFrom('decisions as d')
    .innerJoin('templates as t', (j) =>
      j.onRef('t.tenant_id', '=', 'd.tenant_id').onRef('t.id', '=', 'd.template_id'),
    )
    .innerJoin('template_versions as v', (j) =>
      j.onRef('v.tenant_id', '=', 'd.tenant_id').onRef('v.id', '=', 'd.consent_version_id'),
    )
    .where('d.tenant_id', '=', tenantId);
}

/** Where a page of history is read from: its statement's values, each a parameter or a column. */
interface PageValues {
  tenantId: never;
  limit: never;
  decidedAt: never;
  id: never;
}

/** A page of the customer's decisions, newest first; `after` a page, from where it ended. */
function historyPageOf(db: Executor, values: PageValues, subjectId: never, after: boolean) {
  let query = decisionsWithVersion(db, values.tenantId)
    .select([
      'd.id as decision_id',
      't.code as template_code',
      'd.consent_version_id',
      'd.version',
      'v.tag',
      'd.decision',
      'd.decided_at',
      'v.content_sha256',
      'v.locale',
      sealedColumn(db, 'd.personal').as('personal'),
    ])
    .where('d.subject_id', '=', subjectId);
  if (after) {
    // A row comparison, so that both stores seek on the index rather than filter.
    query = query.where((eb) =>
      eb(eb.refTuple('d.decided_at', 'd.id'), '<', eb.tuple(values.decidedAt, values.id)),
    );
  }
  return query.orderBy('d.decided_at', 'desc').orderBy('d.id', 'desc').limit(values.limit);
}

type HistoryParam = 'tenantId' | 'subjectId' | 'limit' | 'decidedAt' | 'id';

function historyPage(after: boolean) {
  return prepared((db, p: (name: HistoryParam) => never) =>
    historyPageOf(
      db,
      { tenantId: p('tenantId'), limit: p('limit'), decidedAt: p('decidedAt'), id: p('id') },
      p('subjectId'),
      after,
    ),
  );
}

const firstHistoryPage = historyPage(false);
const nextHistoryPage = historyPage(true);

/** Up to `limit` of the customer's decisions on every template, newest first, after `after`. */
export async function findHistoryPage(
  db: Executor,
  tenantId: string,
  subjectId: string,
  limit: number,
  after: HistoryPosition | undefined,
) {
  const values = { tenantId, subjectId, limit };
  const page = after
    ? await nextHistoryPage.run(db, { ...values, decidedAt: after.decidedAt, id: after.id })
    : await firstHistoryPage.run(db, { ...values, decidedAt: null, id: null });
  return page.rows;
}

type RecordsParam = 'positions' | 'tenantIds' | 'lookups' | 'limits' | 'decidedAts' | 'ids' | 'now';

/**
 * PostgreSQL: the records of a batch of customers in one statement, one row for each one asked
 * whose live subject was found, with its position in the batch (`i`): the subject with its
 * key, the customer's standings (`findTemplateStandings`) and a page of their decisions
 * (`findHistoryPage`), each a JSON array the server orders as those queries order their rows.
 * The batch comes as arrays (one parameter each, as `unnest.ts` does), so the text is the same
 * for every batch and prepared once per connection. A first page starts after `endOfTime`, so
 * that every page has the shape that seeks on `decisions_customer_time_idx`.
 */
const customerRecords = prepared((db, p: (name: RecordsParam) => never) => {
  const column = (name: string) => sql.ref(`q.${name}`) as never;
  const subjectId = sql.ref('sub.id') as never;
  const standings = standingsOf(db, column('tenant_id'), subjectId, p('now'));
  const page = historyPageOf(
    db,
    {
      tenantId: column('tenant_id'),
      limit: column('page_limit'),
      decidedAt: column('decided_at'),
      id: column('decision_id'),
    },
    subjectId,
    true,
  );
  return {
    compile: () =>
      sql<RecordRow>`select q.i, sub.id,
      ${sealedColumn(db, 'sub.wrapped_key')} as wrapped_key, ${sealedColumn(db, 'sub.salt')} as salt,
      ${sealedColumn(db, 'sub.commitment')} as commitment,
      (select coalesce(json_agg(agg order by agg.template_code), '[]')
        from ${standings} as agg) as standings,
      (select coalesce(json_agg(agg order by agg.decided_at desc, agg.decision_id desc), '[]')
        from ${page} as agg) as page
    from unnest(${p('positions')}::integer[], ${p('tenantIds')}::${idArrayType(db)},
      ${p('lookups')}::text[], ${p('limits')}::integer[], ${p('decidedAts')}::${timeArrayType(db)},
      ${p('ids')}::${idArrayType(db)}) as q(i, tenant_id, lookup, page_limit, decided_at, decision_id)
    join subjects as sub on sub.tenant_id = q.tenant_id
      and sub.lookup = ${subjectLookup(db, sql.ref('q.lookup'))}`.compile(db),
  };
});

/** Later than any stored time: where a first page starts, newest first. */
const endOfTime = '9999-12-31T23:59:59.999Z';

type Standing = Awaited<ReturnType<typeof findTemplateStandings>>[number];
type PageRow = Awaited<ReturnType<typeof findHistoryPage>>[number];

interface RecordRow {
  i: number;
  id: string;
  wrapped_key: string | null;
  salt: string | null;
  commitment: string;
  standings: Standing[];
  page: PageRow[];
}

/** What a customer's record is read by: their look-up, and the page asked for. */
export interface RecordAsked {
  tenantId: string;
  lookup: string;
  limit: number;
  after: HistoryPosition | undefined;
}

/** A customer's record as `customerRecords` reads it; undefined: no such live customer. */
export type CustomerRecord = Omit<RecordRow, 'i'> | undefined;

/** See `customerRecords`: each one asked's record, at its position. */
export async function findCustomerRecords(
  db: Executor,
  batch: readonly RecordAsked[],
): Promise<CustomerRecord[]> {
  const { rows } = await customerRecords.run(db, {
    positions: batch.map((_, i) => i),
    tenantIds: batch.map((one) => one.tenantId),
    lookups: batch.map((one) => one.lookup),
    limits: batch.map((one) => one.limit),
    decidedAts: batch.map((one) => one.after?.decidedAt ?? endOfTime),
    ids: batch.map((one) => one.after?.id ?? noId),
    now: nowIso(),
  });
  const records: CustomerRecord[] = new Array(batch.length);
  const timestamptz = knownTimeType(db) === 'timestamptz';
  for (const { i, ...record } of rows) records[i] = timestamptz ? withIsoTimes(record) : record;
  return records;
}

/**
 * A record whose times the server put in JSON from `timestamptz` columns
 * (`2026-01-31T12:00:00.5+00:00`, which the connection's reader of such columns never sees),
 * with them as the ISO text every other read gives.
 */
function withIsoTimes(record: Omit<RecordRow, 'i'>): Omit<RecordRow, 'i'> {
  return {
    ...record,
    standings: record.standings.map((standing) => ({
      ...standing,
      last_decided_at: isoFromJson(standing.last_decided_at),
      decided_on_latest_at:
        standing.decided_on_latest_at === null ? null : isoFromJson(standing.decided_on_latest_at),
    })),
    page: record.page.map((row) => ({ ...row, decided_at: isoFromJson(row.decided_at) })),
  };
}

/** The customer's most recent decision on the template made at or before `at` (ISO 8601 UTC). */
export async function findDecisionAsOf(
  db: Executor,
  tenantId: string,
  subjectId: string,
  templateId: string,
  at: string,
) {
  await resolveIdType(db);
  return (
    db
      .selectFrom('decisions as d')
      .innerJoin('template_versions as v', (j) =>
        j.onRef('v.tenant_id', '=', 'd.tenant_id').onRef('v.id', '=', 'd.consent_version_id'),
      )
      .select([
        'd.id as decision_id',
        'd.decision',
        'd.decided_at',
        'd.consent_version_id',
        'd.version',
        'v.tag',
        'v.content_sha256',
        'v.locale',
        sealedColumn(db, 'd.personal').as('personal'),
      ])
      .where('d.tenant_id', '=', tenantId)
      .where('d.subject_id', '=', subjectId)
      .where('d.template_id', '=', templateId)
      .where('d.decided_at', '<=', decisionTimeBound(at))
      // "Most recent" is the order of recording, as everywhere else, not the clock.
      .orderBy('d.seq', 'desc')
      .limit(1)
      .executeTakeFirst()
  );
}

/** The template's release (its own row) with the highest number live at `at` (and now). */
export function findLatestPublishedAsOf(
  db: Executor,
  tenantId: string,
  templateId: string,
  at: string,
) {
  return (
    db
      .selectFrom('template_versions')
      .select(['id', 'version', 'tag', 'published_at'])
      .where('tenant_id', '=', tenantId)
      .where('template_id', '=', templateId)
      // A release scheduled for later is not live yet, whatever moment is asked about.
      .where(isLive(undefined, at))
      .whereRef('id', '=', 'release_id')
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst()
  );
}

/** Whether the customer had any decision on the release (any locale's variant) by `at`. */
export async function hasDecisionOnVersionAsOf(
  db: Executor,
  tenantId: string,
  subjectId: string,
  templateId: string,
  releaseId: string,
  at: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('decisions')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .where('template_id', '=', templateId)
    // A decision on any locale's variant of the release.
    .where('consent_version_id', 'in', (eb) =>
      eb
        .selectFrom('template_versions')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('release_id', '=', releaseId),
    )
    .where('decided_at', '<=', decisionTimeBound(at))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The customer's most recent decision on the release (any locale's variant) made at or before
 * `at`, by the order of recording.
 */
export function findLastDecisionOnReleaseAsOf(
  db: Executor,
  tenantId: string,
  subjectId: string,
  templateId: string,
  releaseId: string,
  at: string,
) {
  return db
    .selectFrom('decisions')
    .select(['decision', 'decided_at'])
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .where('template_id', '=', templateId)
    .where('consent_version_id', 'in', (eb) =>
      eb
        .selectFrom('template_versions')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('release_id', '=', releaseId),
    )
    .where('decided_at', '<=', decisionTimeBound(at))
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}
