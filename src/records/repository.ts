import { sql } from 'kysely';
import type { DecisionValue } from '../decisions/index.js';
import type { Executor } from '../platform/db.js';
import { isLive } from '../templates/index.js';

/**
 * Read-only queries of a customer's record for the API. Every one filters by the tenant, and
 * each reaches its rows through a key that starts with (tenant_id, subject_id) or with the
 * template; history pages seek on `decisions_customer_time_idx` (migration 0004).
 */

/**
 * The customer's standing on each template they decided on, with that template's latest version
 * and their most recent decision on it (none: pending). The API and the back-office both read it.
 */
export function findTemplateStandings(db: Executor, tenantId: string, subjectId: string) {
  return (
    db
      .selectFrom('customer_template_states as s')
      .innerJoin('templates as t', (j) =>
        j.onRef('t.tenant_id', '=', 's.tenant_id').onRef('t.id', '=', 's.template_id'),
      )
      .innerJoin('template_versions as lv', (j) =>
        j
          .onRef('lv.tenant_id', '=', 's.tenant_id')
          .on('lv.id', '=', (eb) =>
            eb
              .selectFrom('template_versions as x')
              .select('x.id')
              .whereRef('x.tenant_id', '=', 's.tenant_id')
              .whereRef('x.template_id', '=', 's.template_id')
              .where(isLive('x'))
              .whereRef('x.id', '=', 'x.release_id')
              .orderBy('x.version', 'desc')
              .limit(1),
          ),
      )
      .innerJoin('template_versions as dv', (j) =>
        j
          .onRef('dv.tenant_id', '=', 's.tenant_id')
          .onRef('dv.id', '=', 's.last_consent_version_id'),
      )
      // Their state on the latest release: on its most recently decided locale's variant.
      .leftJoin('customer_version_states as cv', (j) =>
        j
          .onRef('cv.tenant_id', '=', 's.tenant_id')
          .onRef('cv.subject_id', '=', 's.subject_id')
          .on('cv.consent_version_id', '=', (eb) =>
            eb
              .selectFrom('customer_version_states as c')
              .select('c.consent_version_id')
              .whereRef('c.tenant_id', '=', 's.tenant_id')
              .whereRef('c.subject_id', '=', 's.subject_id')
              .where('c.consent_version_id', 'in', (y) =>
                y
                  .selectFrom('template_versions as y')
                  .select('y.id')
                  .whereRef('y.tenant_id', '=', 's.tenant_id')
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
      .where('s.tenant_id', '=', tenantId)
      .where('s.subject_id', '=', subjectId)
      .orderBy('t.code')
      .execute()
  );
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
function decisionsWithVersion(db: Executor, tenantId: string) {
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

/** Up to `limit` of the customer's decisions on every template, newest first, after `after`. */
export function findHistoryPage(
  db: Executor,
  tenantId: string,
  subjectId: string,
  limit: number,
  after: HistoryPosition | undefined,
) {
  let query = decisionsWithVersion(db, tenantId)
    .select([
      'd.id as decision_id',
      't.code as template_code',
      'd.consent_version_id',
      'd.version',
      'v.tag',
      'd.decision',
      'd.decided_at',
      'd.content_sha256',
      'v.locale',
    ])
    .where('d.subject_id', '=', subjectId);
  if (after) {
    const { decidedAt, id } = after;
    // A row comparison, so that both stores seek on the index rather than filter.
    query = query.where((eb) =>
      eb(eb.refTuple('d.decided_at', 'd.id'), '<', eb.tuple(decidedAt, id)),
    );
  }
  return query.orderBy('d.decided_at', 'desc').orderBy('d.id', 'desc').limit(limit).execute();
}

/** The customer's most recent decision on the template made at or before `at` (ISO 8601 UTC). */
export function findDecisionAsOf(
  db: Executor,
  tenantId: string,
  subjectId: string,
  templateId: string,
  at: string,
) {
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
        'd.content_sha256',
        'v.locale',
      ])
      .where('d.tenant_id', '=', tenantId)
      .where('d.subject_id', '=', subjectId)
      .where('d.template_id', '=', templateId)
      .where('d.decided_at', '<=', at)
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
    .where('decided_at', '<=', at)
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
    .where('decided_at', '<=', at)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Decisions with their evidence (sealed personal fields, the key that sent them), for the back-office. */
function evidenceRows(db: Executor, tenantId: string) {
  return decisionsWithVersion(db, tenantId)
    .leftJoin('api_keys as k', (j) =>
      j.onRef('k.tenant_id', '=', 'd.tenant_id').onRef('k.id', '=', 'd.api_key_id'),
    )
    .select([
      'd.id as decision_id',
      'd.subject_id',
      'd.personal',
      't.code as template_code',
      'd.version',
      'v.tag',
      'v.locale',
      'd.decision',
      'd.decided_at',
      'k.name as api_key_name',
      'k.prefix as api_key_prefix',
      'd.content_sha256',
    ]);
}

/** The customer's decisions with their evidence and place in the log, newest first. */
export function findCustomerEvidence(
  db: Executor,
  tenantId: string,
  subjectId: string,
  limit: number,
) {
  return withLogPlace(evidenceRows(db, tenantId))
    .where('d.subject_id', '=', subjectId)
    .orderBy('d.decided_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute();
}

export interface EvidenceFilter {
  templateId?: string | undefined;
  /** Only decisions on the templates of this product. */
  productId?: string | undefined;
  /** Only decisions on this release (any locale's variant of it). */
  versionId?: string | undefined;
  /**
   * Only decisions on a text in one of the `anyOf` locales, or in a locale under `under` taken
   * as a language range (`th` takes in `th-TH`): templates' `localeRange`.
   */
  locale?: { anyOf: readonly string[]; under: string } | undefined;
  /** Only the decisions of this customer (their subject's id). */
  subjectId?: string | undefined;
  decision?: DecisionValue | undefined;
  /** Only decisions sent with this API key. */
  apiKeyId?: string | undefined;
  /** Inclusive lower bound on `decided_at` (ISO 8601). */
  from?: string | undefined;
  /** Exclusive upper bound on `decided_at` (ISO 8601). */
  until?: string | undefined;
}

/** Decisions with their evidence that pass the filter. */
function filteredEvidence(db: Executor, tenantId: string, filter: EvidenceFilter) {
  let query = evidenceRows(db, tenantId);
  const { templateId, productId, versionId, locale, decision, apiKeyId, from, until } = filter;
  if (filter.subjectId !== undefined) query = query.where('d.subject_id', '=', filter.subjectId);
  if (templateId !== undefined) query = query.where('d.template_id', '=', templateId);
  if (productId !== undefined) {
    query = query.where('d.template_id', 'in', (eb) =>
      eb
        .selectFrom('templates')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('product_id', '=', productId),
    );
  }
  if (versionId !== undefined) query = query.where('v.release_id', '=', versionId);
  if (locale !== undefined) {
    // Canonical tags hold letters, digits and '-' only: nothing LIKE would read as a wildcard.
    query = query.where((eb) =>
      eb.or([eb('v.locale', 'in', [...locale.anyOf]), eb('v.locale', 'like', `${locale.under}-%`)]),
    );
  }
  if (decision !== undefined) query = query.where('d.decision', '=', decision);
  if (apiKeyId !== undefined) query = query.where('d.api_key_id', '=', apiKeyId);
  if (from !== undefined) query = query.where('d.decided_at', '>=', from);
  if (until !== undefined) query = query.where('d.decided_at', '<', until);
  return query;
}

/** Up to `limit` decisions passing the filter with their evidence, oldest first, after `after`. */
export function findEvidencePage(
  db: Executor,
  tenantId: string,
  filter: EvidenceFilter,
  after: HistoryPosition | undefined,
  limit: number,
) {
  let query = filteredEvidence(db, tenantId, filter);
  if (after) {
    const { decidedAt, id } = after;
    query = query.where((eb) =>
      eb.or([
        eb('d.decided_at', '>', decidedAt),
        eb.and([eb('d.decided_at', '=', decidedAt), eb('d.id', '>', id)]),
      ]),
    );
  }
  return query.orderBy('d.decided_at', 'asc').orderBy('d.id', 'asc').limit(limit).execute();
}

/**
 * Up to `limit` decisions passing the filter with their evidence and place in the log, newest
 * first, before `before`: the pages of the Decisions list.
 */
export function findEvidencePageNewestFirst(
  db: Executor,
  tenantId: string,
  filter: EvidenceFilter,
  before: HistoryPosition | undefined,
  limit: number,
) {
  let query = withLogPlace(filteredEvidence(db, tenantId, filter));
  if (before) {
    const { decidedAt, id } = before;
    query = query.where((eb) =>
      eb.or([
        eb('d.decided_at', '<', decidedAt),
        eb.and([eb('d.decided_at', '=', decidedAt), eb('d.id', '<', id)]),
      ]),
    );
  }
  return query.orderBy('d.decided_at', 'desc').orderBy('d.id', 'desc').limit(limit).execute();
}

/** One decision with its evidence, the text the customer was shown and its place in the log. */
export function findDecisionEvidence(db: Executor, tenantId: string, decisionId: string) {
  return withLogPlace(evidenceRows(db, tenantId))
    .select([
      'v.content_html',
      'v.id as version_id',
      'v.allow_reconsent',
      't.name as template_name',
      'k.id as api_key_id',
    ])
    .where('d.id', '=', decisionId)
    .executeTakeFirst();
}

function withLogPlace(query: ReturnType<typeof evidenceRows>) {
  return query
    .leftJoin('tlog_entries as e', (j) =>
      j.onRef('e.log_id', '=', 'd.tenant_id').onRef('e.record_id', '=', 'd.id'),
    )
    .select('e.idx as log_index');
}

/** Decisions per template, day (UTC) and value from `since` on. */
export function countDecisionsPerDay(db: Executor, tenantId: string, since: string) {
  const day = sql<string>`substr(${sql.ref('decided_at')}, 1, 10)`;
  return db
    .selectFrom('decisions')
    .select((eb) => [
      'template_id',
      day.as('day'),
      'decision',
      eb.fn.countAll<number | string>().as('count'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('decided_at', '>=', since)
    .groupBy(['template_id', day, 'decision'])
    .execute();
}

/**
 * Customers per release and last decision on it, for these releases of the tenant. A customer
 * who decided on two locales' variants of one release counts once, by the later.
 */
export function countCustomersPerVersionAndDecision(
  db: Executor,
  tenantId: string,
  releaseIds: readonly string[],
) {
  if (releaseIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('customer_version_states as cv')
    .innerJoin('template_versions as v', (j) =>
      j.onRef('v.tenant_id', '=', 'cv.tenant_id').onRef('v.id', '=', 'cv.consent_version_id'),
    )
    .select((eb) => [
      'v.release_id as consent_version_id',
      'cv.last_decision',
      eb.fn.countAll<number | string>().as('count'),
    ])
    .where('cv.tenant_id', '=', tenantId)
    .where('v.release_id', 'in', releaseIds)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('customer_version_states as later')
            .innerJoin('template_versions as lv', (j) =>
              j
                .onRef('lv.tenant_id', '=', 'later.tenant_id')
                .onRef('lv.id', '=', 'later.consent_version_id'),
            )
            .select('later.consent_version_id')
            .whereRef('later.tenant_id', '=', 'cv.tenant_id')
            .whereRef('later.subject_id', '=', 'cv.subject_id')
            .whereRef('lv.release_id', '=', 'v.release_id')
            .whereRef('later.last_decided_at', '>', 'cv.last_decided_at'),
        ),
      ),
    )
    .groupBy(['v.release_id', 'cv.last_decision'])
    .execute();
}

/** A page of the tenant's changes of controls in a range, oldest first, after a position. */
export interface ControlPageQuery {
  from?: string | undefined;
  to?: string | undefined;
  after?: { changedAt: string; id: string } | undefined;
  limit: number;
}

export function findChannelChangesPage(db: Executor, tenantId: string, q: ControlPageQuery) {
  let query = db
    .selectFrom('channel_changes')
    .select([
      'id',
      'subject_id',
      'personal',
      'changed_at',
      'product_code',
      'channel',
      'blocked',
      'api_key_id',
      'user_id',
      'idempotency_key',
    ])
    .where('tenant_id', '=', tenantId);
  if (q.from) query = query.where('changed_at', '>=', q.from);
  if (q.to) query = query.where('changed_at', '<', q.to);
  const after = q.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('changed_at', '>', after.changedAt),
        eb.and([eb('changed_at', '=', after.changedAt), eb('id', '>', after.id)]),
      ]),
    );
  }
  return query.orderBy('changed_at').orderBy('id').limit(q.limit).execute();
}

export function findPartnerBlockChangesPage(db: Executor, tenantId: string, q: ControlPageQuery) {
  let query = db
    .selectFrom('partner_block_changes')
    .select([
      'id',
      'subject_id',
      'personal',
      'changed_at',
      'decision_id',
      'partner_code',
      'blocked',
      'api_key_id',
      'user_id',
      'idempotency_key',
    ])
    .where('tenant_id', '=', tenantId);
  if (q.from) query = query.where('changed_at', '>=', q.from);
  if (q.to) query = query.where('changed_at', '<', q.to);
  const after = q.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('changed_at', '>', after.changedAt),
        eb.and([eb('changed_at', '=', after.changedAt), eb('id', '>', after.id)]),
      ]),
    );
  }
  return query.orderBy('changed_at').orderBy('id').limit(q.limit).execute();
}
