/**
 * The reads of a status request: every customer's standing on one template as of a moment, in
 * two statements whatever the number of customers (one for the customers, one for the partner
 * blocks on their decisions). The stores differ in how the list of ids becomes a table and how
 * each customer's decisions are joined (`findStatuses`). On SQLite too: a thousand prepared
 * look-ups cost more in the driver and the query builder than the one statement's work.
 *
 * Indexes: `subjects_lookup_uq` (tenant_id, lookup); `decisions_history_uq` (subject_id,
 * template_id, seq; the tenant first on SQLite, migration 0054), read backwards from the
 * customer's latest decision on the template; `channel_changes_channel_idx` (tenant_id,
 * subject_id, product_id, channel, changed_at); `partner_block_changes_decision_idx`
 * (tenant_id, decision_id, partner_code, changed_at).
 */
import { sql } from 'kysely';
import type { DecisionValue } from '../decisions/index.js';
import { type Executor, isPostgres } from '../platform/db.js';
import { idArrayType, resolveIdType, subjectLookup } from '../platform/id-type.js';
import { sqliteIdOf } from '../platform/sqlite-ids.js';
import { decisionTimeBound } from '../platform/time.js';
import { isLive } from '../templates/index.js';

/** What every customer of a request is asked about. */
export interface StatusQuery {
  tenantId: string;
  templateId: string;
  /** The moment, as times are stored (UTC, milliseconds). */
  at: string;
  /** The latest release live at `at` (its own row's id) and its number; null before the first. */
  releaseId: string | null;
  releaseVersion: number | null;
  /** The product and channel asked about, if any. */
  channel: { productId: string; channel: string } | null;
}

/** One customer's rows as of the moment: nulls where there is none. */
export interface StoredStatus {
  subject_id: string | null;
  last_id: string | null;
  last_decision: DecisionValue | null;
  last_decided_at: string | null;
  last_version_id: string | null;
  last_version: number | null;
  on_latest_id: string | null;
  on_latest_decision: DecisionValue | null;
  on_latest_decided_at: string | null;
  channel_change_id: string | null;
  channel_blocked: number | null;
  channel_since: string | null;
}

/** The template's release with the highest number live at `at` (as `as-of` reads it). */
export function findLatestReleaseAsOf(
  db: Executor,
  tenantId: string,
  templateId: string,
  at: string,
) {
  return db
    .selectFrom('template_versions')
    .select(['id', 'version'])
    .where('tenant_id', '=', tenantId)
    .where('template_id', '=', templateId)
    .where(isLive(undefined, at))
    .whereRef('id', '=', 'release_id')
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * The values asked, as a table of (position, look-up): PostgreSQL takes them as an array (of
 * text, or of the store's ids: `ids`), SQLite as a JSON array (`json_each`, its position
 * 0-based); the statement around them is the same.
 */
function askedTable(db: Executor, lookups: readonly string[], ids = false) {
  if (isPostgres(db)) {
    const arrayType = ids ? idArrayType(db) : sql.raw('text[]');
    return sql`(select i - 1 as i, lookup from unnest(${lookups}::${arrayType}) with ordinality as u(lookup, i))`;
  }
  // A JSON array's values are text: ids are taken in the form the store holds them.
  const value = sql.raw(ids ? sqliteIdOf('value') : 'value');
  return sql`(select key as i, ${value} as lookup from json_each(${JSON.stringify(lookups)}))`;
}

/**
 * Each customer's standing, by their keyed look-ups, answered in the order asked: one statement
 * for them all. "Most recent" is the order of recording (seq), never the clock: each customer's
 * latest decision at or before the moment is read backwards on `decisions_history_uq`, and the
 * latest on the release only for a customer whose latest is on another (any locale's variant of
 * the release has its number, as `as-of` reads it).
 */
export async function findStatuses(
  db: Executor,
  query: StatusQuery,
  lookups: readonly string[],
): Promise<StoredStatus[]> {
  if (lookups.length === 0) return [];
  // The look-ups are compared as `subjects.lookup` holds them, a type read once a store.
  await resolveIdType(db);
  const { tenantId, templateId, at, channel } = query;
  const asOf = sql`d.tenant_id = ${tenantId} and d.subject_id = s.id
    and d.template_id = ${templateId} and d.decided_at <= ${decisionTimeBound(at)}`;
  const onRelease = sql`and d.consent_version_id in (
    select v.id from template_versions as v
    where v.tenant_id = ${tenantId} and v.release_id = ${query.releaseId})`;
  const changeAsOf = channel
    ? sql`(select c.id from channel_changes as c
        where c.tenant_id = ${tenantId} and c.subject_id = s.id
          and c.product_id = ${channel.productId} and c.channel = ${channel.channel}
          and c.changed_at <= ${at}
        order by c.changed_at desc, c.id desc limit 1)`
    : sql`null`;
  const decisions = isPostgres(db)
    ? decisionsByLateralJoins(query, asOf, onRelease)
    : decisionsById(query, asOf, onRelease);
  const { rows } = await sql<StoredStatus & { i: number | string }>`
    select q.i, s.id as subject_id,
      ld.id as last_id, ld.decision as last_decision, ld.decided_at as last_decided_at,
      ld.consent_version_id as last_version_id, ld.version as last_version,
      ${decisions.onLatest},
      ch.id as channel_change_id, ch.blocked as channel_blocked, ch.changed_at as channel_since
    from ${askedTable(db, lookups)} as q
    left join subjects as s
      on s.tenant_id = ${tenantId} and s.lookup = ${subjectLookup(db, sql.ref('q.lookup'))}
    ${decisions.joins}
    left join channel_changes as ch on ch.tenant_id = ${tenantId} and ch.id = ${changeAsOf}
  `.execute(db);
  const byPosition: StoredStatus[] = [];
  for (const { i, ...status } of rows) byPosition[Number(i)] = status;
  return byPosition;
}

type Sql = ReturnType<typeof sql>;

/**
 * SQLite: each decision is joined on its id, the id chosen by a correlated subquery, which it
 * runs per customer on the index; the second look-up only for a customer whose last decision is
 * on another release than the latest.
 */
function decisionsById(query: StatusQuery, asOf: Sql, onRelease: Sql) {
  const { tenantId, releaseId, releaseVersion } = query;
  const idAsOf = (extra: Sql) => sql`(
    select d.id from decisions as d where ${asOf} ${extra} order by d.seq desc limit 1)`;
  return {
    onLatest: sql`ol.id as on_latest_id, ol.decision as on_latest_decision,
      ol.decided_at as on_latest_decided_at`,
    joins: sql`left join decisions as ld on ld.tenant_id = ${tenantId} and ld.id = ${idAsOf(sql``)}
    left join decisions as ol on ol.tenant_id = ${tenantId} and ol.id = case
      when cast(${releaseId} as text) is null then null
      when ld.version = ${releaseVersion} then ld.id
      else ${idAsOf(onRelease)} end`,
  };
}

/**
 * PostgreSQL: each decision is taken where the backward walk finds it (a lateral join), not
 * looked up again by its id, and the latest on the release is the latest decision itself when
 * that is on it: per customer one walk of the index instead of two look-ups more by id
 * (bench/notebook.md, "every read's pages in memory at 10 million, and bulk status's lateral
 * joins").
 */
function decisionsByLateralJoins(query: StatusQuery, asOf: Sql, onRelease: Sql) {
  const { releaseId, releaseVersion } = query;
  const onLatest = (column: string) =>
    sql`case when ld.version = ${releaseVersion} then ${sql.ref(`ld.${column}`)}
      else ${sql.ref(`ol.${column}`)} end`;
  return {
    onLatest: sql`${onLatest('id')} as on_latest_id,
      ${onLatest('decision')} as on_latest_decision,
      ${onLatest('decided_at')} as on_latest_decided_at`,
    joins: sql`left join lateral (
      select d.id, d.decision, d.decided_at, d.consent_version_id, d.version from decisions as d
      where ${asOf} order by d.seq desc limit 1) as ld on true
    left join lateral (
      select d.id, d.decision, d.decided_at from decisions as d
      where cast(${releaseId} as text) is not null
        and ld.version is distinct from ${releaseVersion} and ${asOf} ${onRelease}
      order by d.seq desc limit 1) as ol on true`,
  };
}

/** One partner's latest change on a decision at or before the moment. */
export interface PartnerBlockAsOf {
  decision_id: string;
  partner_code: string;
  blocked: number;
}

/**
 * Each decision's partners with the change in force at `at` (the latest at or before it; a
 * partner with none was never blocked by then): one statement for every decision.
 */
export async function findPartnerBlocksAsOf(
  db: Executor,
  tenantId: string,
  decisionIds: readonly string[],
  at: string,
): Promise<PartnerBlockAsOf[]> {
  if (decisionIds.length === 0) return [];
  await resolveIdType(db);
  const { rows } = await sql<PartnerBlockAsOf>`
    select p.decision_id, p.partner_code, p.blocked
    from partner_block_changes as p
    where p.tenant_id = ${tenantId} and p.changed_at <= ${at}
      and p.decision_id in (select q.lookup from ${askedTable(db, decisionIds, true)} as q)
    order by p.decision_id, p.partner_code, p.changed_at desc, p.id desc
  `.execute(db);
  // Newest first within each partner: the first row of a decision's partner is the one in force.
  const found: PartnerBlockAsOf[] = [];
  let previous: string | undefined;
  for (const row of rows) {
    const key = `${row.decision_id}\u0000${row.partner_code}`;
    if (key !== previous) found.push(row);
    previous = key;
  }
  return found;
}
