/**
 * The reads of a status request: every customer's standing on one template as of a moment, in a
 * fixed number of statements whatever the number of customers. On PostgreSQL one statement
 * answers every customer (the ids' look-ups as an array, each customer's rows found by lateral
 * joins) and one more the partner blocks; on SQLite, where a statement costs no round trip,
 * prepared look-ups by key a customer, as src/channels/standing-repository.ts does.
 *
 * Indexes: `subjects_lookup_uq` (tenant_id, lookup); `decisions_history_uq` (tenant_id,
 * subject_id, template_id, seq), read backwards from the customer's latest decision on the
 * template; `channel_changes_channel_idx` (tenant_id, subject_id, product_id, channel,
 * changed_at); `partner_block_changes_decision_idx` (tenant_id, decision_id, partner_code,
 * changed_at).
 */
import { sql } from 'kysely';
import type { DecisionValue } from '../decisions/index.js';
import { type Executor, isPostgres } from '../platform/db.js';
import { prepared } from '../platform/prepared.js';
import { findLiveSubjectRow } from '../subjects/index.js';
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

const none: StoredStatus = {
  subject_id: null,
  last_id: null,
  last_decision: null,
  last_decided_at: null,
  last_version_id: null,
  last_version: null,
  on_latest_id: null,
  on_latest_decision: null,
  on_latest_decided_at: null,
  channel_change_id: null,
  channel_blocked: null,
  channel_since: null,
};

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

/** Each customer's standing, by their keyed look-ups, answered in the order asked. */
export async function findStatuses(
  db: Executor,
  query: StatusQuery,
  lookups: readonly string[],
): Promise<StoredStatus[]> {
  if (lookups.length === 0) return [];
  if (!isPostgres(db)) {
    const found: StoredStatus[] = [];
    for (const lookup of lookups) found.push(await findStatus(db, query, lookup));
    return found;
  }
  const { tenantId, templateId, at, releaseId, channel } = query;
  // "Most recent" is the order of recording (seq), never the clock, as everywhere else.
  const channelJoin = channel
    ? sql`left join lateral (
        select c.id, c.blocked, c.changed_at from channel_changes as c
        where c.tenant_id = ${tenantId} and c.subject_id = s.id
          and c.product_id = ${channel.productId} and c.channel = ${channel.channel}
          and c.changed_at <= ${at}
        order by c.changed_at desc, c.id desc limit 1
      ) as ch on true`
    : sql`left join (select null::text as id, null::integer as blocked,
        null::text as changed_at) as ch on true`;
  const { rows } = await sql<StoredStatus & { i: string }>`
    select q.i, s.id as subject_id,
      ld.id as last_id, ld.decision as last_decision, ld.decided_at as last_decided_at,
      ld.consent_version_id as last_version_id, ld.version as last_version,
      ol.id as on_latest_id, ol.decision as on_latest_decision,
      ol.decided_at as on_latest_decided_at,
      ch.id as channel_change_id, ch.blocked as channel_blocked, ch.changed_at as channel_since
    from unnest(${lookups}::text[]) with ordinality as q(lookup, i)
    left join subjects as s on s.tenant_id = ${tenantId} and s.lookup = q.lookup
    left join lateral (
      select d.id, d.decision, d.decided_at, d.consent_version_id, d.version from decisions as d
      where d.tenant_id = ${tenantId} and d.subject_id = s.id and d.template_id = ${templateId}
        and d.decided_at <= ${at}
      order by d.seq desc limit 1
    ) as ld on true
    left join lateral (
      select d.id, d.decision, d.decided_at from decisions as d
      where d.tenant_id = ${tenantId} and d.subject_id = s.id and d.template_id = ${templateId}
        and d.decided_at <= ${at}
        and d.consent_version_id in (
          select v.id from template_versions as v
          where v.tenant_id = ${tenantId} and v.release_id = ${releaseId}
        )
      order by d.seq desc limit 1
    ) as ol on true
    ${channelJoin}
  `.execute(db);
  const byPosition: StoredStatus[] = [];
  for (const { i, ...status } of rows) byPosition[Number(i) - 1] = status;
  return byPosition;
}

type Param = (name: 'tenantId' | 'subjectId' | 'templateId' | 'at') => never;

const lastDecision = prepared((db, p: Param) =>
  db
    .selectFrom('decisions')
    .select(['id', 'decision', 'decided_at', 'consent_version_id', 'version'])
    .where('tenant_id', '=', p('tenantId'))
    .where('subject_id', '=', p('subjectId'))
    .where('template_id', '=', p('templateId'))
    .where('decided_at', '<=', p('at'))
    .orderBy('seq', 'desc')
    .limit(1),
);

const lastOnRelease = prepared((db, p: (name: Parameters<Param>[0] | 'releaseId') => never) =>
  db
    .selectFrom('decisions')
    .select(['id', 'decision', 'decided_at'])
    .where('tenant_id', '=', p('tenantId'))
    .where('subject_id', '=', p('subjectId'))
    .where('template_id', '=', p('templateId'))
    .where('decided_at', '<=', p('at'))
    .where('consent_version_id', 'in', (eb) =>
      eb
        .selectFrom('template_versions')
        .select('id')
        .where('tenant_id', '=', p('tenantId'))
        .where('release_id', '=', p('releaseId')),
    )
    .orderBy('seq', 'desc')
    .limit(1),
);

const channelChange = prepared(
  (db, p: (name: 'tenantId' | 'subjectId' | 'productId' | 'channel' | 'at') => never) =>
    db
      .selectFrom('channel_changes')
      .select(['id', 'blocked', 'changed_at'])
      .where('tenant_id', '=', p('tenantId'))
      .where('subject_id', '=', p('subjectId'))
      .where('product_id', '=', p('productId'))
      .where('channel', '=', p('channel'))
      .where('changed_at', '<=', p('at'))
      .orderBy('changed_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1),
);

async function findStatus(db: Executor, query: StatusQuery, lookup: string): Promise<StoredStatus> {
  const subject = await findLiveSubjectRow(db, query.tenantId, lookup);
  if (!subject) return none;
  const keys = {
    tenantId: query.tenantId,
    subjectId: subject.id,
    templateId: query.templateId,
    at: query.at,
  };
  const last = await lastDecision.first(db, keys);
  // The last decision is on the release when it has its number (any locale's variant), as
  // `as-of` reads it: a second look-up only for a customer whose last decision is on another.
  const onLatest =
    last && query.releaseId !== null
      ? Number(last.version) === query.releaseVersion
        ? last
        : await lastOnRelease.first(db, { ...keys, releaseId: query.releaseId })
      : undefined;
  const change = query.channel
    ? await channelChange.first(db, {
        tenantId: query.tenantId,
        subjectId: subject.id,
        productId: query.channel.productId,
        channel: query.channel.channel,
        at: query.at,
      })
    : undefined;
  return {
    subject_id: subject.id,
    last_id: last?.id ?? null,
    last_decision: last?.decision ?? null,
    last_decided_at: last?.decided_at ?? null,
    last_version_id: last?.consent_version_id ?? null,
    last_version: last?.version ?? null,
    on_latest_id: onLatest?.id ?? null,
    on_latest_decision: onLatest?.decision ?? null,
    on_latest_decided_at: onLatest?.decided_at ?? null,
    channel_change_id: change?.id ?? null,
    channel_blocked: change?.blocked ?? null,
    channel_since: change?.changed_at ?? null,
  };
}

/** One partner's latest change on a decision at or before the moment. */
export interface PartnerBlockAsOf {
  decision_id: string;
  partner_code: string;
  blocked: number;
}

const partnerChanges = prepared((db, p: (name: 'tenantId' | 'decisionId' | 'at') => never) =>
  db
    .selectFrom('partner_block_changes')
    .select(['decision_id', 'partner_code', 'blocked'])
    .where('tenant_id', '=', p('tenantId'))
    .where('decision_id', '=', p('decisionId'))
    .where('changed_at', '<=', p('at'))
    .orderBy('partner_code')
    .orderBy('changed_at', 'desc')
    .orderBy('id', 'desc'),
);

/**
 * Each decision's partners with the change in force at `at` (the latest at or before it; a
 * partner with none was never blocked by then).
 */
export async function findPartnerBlocksAsOf(
  db: Executor,
  tenantId: string,
  decisionIds: readonly string[],
  at: string,
): Promise<PartnerBlockAsOf[]> {
  if (decisionIds.length === 0) return [];
  if (isPostgres(db)) {
    const { rows } = await sql<PartnerBlockAsOf>`
      select distinct on (decision_id, partner_code) decision_id, partner_code, blocked
      from partner_block_changes
      where tenant_id = ${tenantId} and decision_id = any(${decisionIds}::text[])
        and changed_at <= ${at}
      order by decision_id, partner_code, changed_at desc, id desc
    `.execute(db);
    return rows;
  }
  const found: PartnerBlockAsOf[] = [];
  for (const decisionId of decisionIds) {
    const { rows } = await partnerChanges.run(db, { tenantId, decisionId, at });
    // Newest first within each partner: the first row of a partner is the one in force.
    let previous: string | undefined;
    for (const row of rows) {
      if (row.partner_code !== previous) found.push(row);
      previous = row.partner_code;
    }
  }
  return found;
}
