import { sql } from 'kysely';
import type { DecisionValue } from '../decisions/index.js';
import type { Executor } from '../platform/db.js';
import {
  resolveIdType,
  resolveTimeType,
  sealedColumn,
  stateOfTenantRow,
} from '../platform/id-type.js';
import { entryOfRecord, type LogKey, resolveLogKey } from '../platform/log-key.js';
import { decisionTimeBound } from '../platform/time.js';
import { decisionsWithVersion, type HistoryPosition } from './repository.js';

// The back-office's reads of decisions with their evidence (who sent them, from where, their
// place in the log), and the counts its dashboard shows.

/**
 * Decisions with their evidence (sealed personal fields, the key that sent them), for the
 * back-office. Built once the store's types are read (`resolveIdType`): the sealed column's
 * read depends on its type.
 */
function evidenceRows(db: Executor, tenantId: string) {
  return decisionsWithVersion(db, tenantId)
    .leftJoin('api_keys as k', (j) =>
      j.onRef('k.tenant_id', '=', 'd.tenant_id').onRef('k.id', '=', 'd.api_key_id'),
    )
    .select([
      'd.id as decision_id',
      'd.subject_id',
      sealedColumn(db, 'd.personal').as('personal'),
      't.code as template_code',
      'd.version',
      'v.tag',
      'v.locale',
      'd.decision',
      'd.decided_at',
      'k.name as api_key_name',
      'k.prefix as api_key_prefix',
      'v.content_sha256',
    ]);
}

/** The customer's decisions with their evidence and place in the log, newest first. */
export async function findCustomerEvidence(
  db: Executor,
  tenantId: string,
  subjectId: string,
  limit: number,
) {
  await resolveIdType(db);
  return withLogPlace(await resolveLogKey(db), evidenceRows(db, tenantId))
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
  if (from !== undefined) query = query.where('d.decided_at', '>=', decisionTimeBound(from));
  if (until !== undefined) query = query.where('d.decided_at', '<', decisionTimeBound(until));
  return query;
}

/** Up to `limit` decisions passing the filter with their evidence, oldest first, after `after`. */
export async function findEvidencePage(
  db: Executor,
  tenantId: string,
  filter: EvidenceFilter,
  after: HistoryPosition | undefined,
  limit: number,
) {
  await resolveIdType(db);
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
export async function findEvidencePageNewestFirst(
  db: Executor,
  tenantId: string,
  filter: EvidenceFilter,
  before: HistoryPosition | undefined,
  limit: number,
) {
  await resolveIdType(db);
  let query = withLogPlace(await resolveLogKey(db), filteredEvidence(db, tenantId, filter));
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
export async function findDecisionEvidence(db: Executor, tenantId: string, decisionId: string) {
  await resolveIdType(db);
  return withLogPlace(await resolveLogKey(db), evidenceRows(db, tenantId))
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

function withLogPlace(key: LogKey, query: ReturnType<typeof evidenceRows>) {
  return query
    .leftJoin('tlog_entries as e', (j) => j.on(entryOfRecord(key, 'e', 'd.tenant_id', 'd.id')))
    .select('e.idx as log_index');
}

/** Decisions per template, day (UTC) and value from `since` on. */
export async function countDecisionsPerDay(db: Executor, tenantId: string, since: string) {
  const day =
    (await resolveTimeType(db)) === 'timestamptz'
      ? sql<string>`to_char(${sql.ref('decided_at')} at time zone 'UTC', 'YYYY-MM-DD')`
      : sql<string>`substr(${sql.ref('decided_at')}, 1, 10)`;
  return db
    .selectFrom('decisions')
    .select((eb) => [
      'template_id',
      day.as('day'),
      'decision',
      eb.fn.countAll<number | string>().as('count'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('decided_at', '>=', decisionTimeBound(since))
    .groupBy(['template_id', day, 'decision'])
    .execute();
}

/**
 * Customers per release and last decision on it, for these releases of the tenant. A customer
 * who decided on two locales' variants of one release counts once, by the later.
 */
export async function countCustomersPerVersionAndDecision(
  db: Executor,
  tenantId: string,
  releaseIds: readonly string[],
) {
  if (releaseIds.length === 0) return [];
  await resolveIdType(db);
  return db
    .selectFrom('customer_version_states as cv')
    .innerJoin('template_versions as v', (j) =>
      j.on('v.tenant_id', '=', tenantId).onRef('v.id', '=', 'cv.consent_version_id'),
    )
    .select((eb) => [
      'v.release_id as consent_version_id',
      'cv.last_decision',
      eb.fn.countAll<number | string>().as('count'),
    ])
    .where(stateOfTenantRow(db, 'cv', tenantId))
    .where('v.release_id', 'in', releaseIds)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('customer_version_states as later')
            .innerJoin('template_versions as lv', (j) =>
              j.on('lv.tenant_id', '=', tenantId).onRef('lv.id', '=', 'later.consent_version_id'),
            )
            .select('later.consent_version_id')
            .where(stateOfTenantRow(db, 'later', tenantId))
            .whereRef('later.subject_id', '=', 'cv.subject_id')
            .whereRef('lv.release_id', '=', 'v.release_id')
            .whereRef('later.last_decided_at', '>', 'cv.last_decided_at'),
        ),
      ),
    )
    .groupBy(['v.release_id', 'cv.last_decision'])
    .execute();
}
