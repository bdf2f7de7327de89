import { sql } from 'kysely';
import type { Executor } from '../platform/db.js';
import { personalReader } from '../subjects/service.js';
import type { SubjectVault } from '../subjects/vault.js';
import type { DecisionValue } from './table.js';

/**
 * Read-only views of the record for the back-office: a customer's history, counts per day, and
 * exports. Every query filters by the tenant. Nothing here writes.
 */

/**
 * One recorded decision with what it was given on and by whom (the evidence). The customer id,
 * IP address and user agent are null once the customer was erased.
 */
export interface DecisionRecord {
  decision_id: string;
  customer_id: string | null;
  template_code: string;
  version: number;
  tag: string;
  decision: DecisionValue;
  decided_at: string;
  api_key_name: string | null;
  api_key_prefix: string | null;
  ip: string | null;
  user_agent: string | null;
  content_sha256: string;
}

function records(db: Executor, tenantId: string) {
  return db
    .selectFrom('decisions as d')
    .innerJoin('templates as t', (j) =>
      j.onRef('t.tenant_id', '=', 'd.tenant_id').onRef('t.id', '=', 'd.template_id'),
    )
    .innerJoin('template_versions as v', (j) =>
      j.onRef('v.tenant_id', '=', 'd.tenant_id').onRef('v.id', '=', 'd.consent_version_id'),
    )
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
      'd.decision',
      'd.decided_at',
      'k.name as api_key_name',
      'k.prefix as api_key_prefix',
      'd.content_sha256',
    ])
    .where('d.tenant_id', '=', tenantId);
}

/** A decision with its place in the tenant's decision log (null while queued). */
export interface LoggedDecisionRecord extends DecisionRecord {
  log_index: number | null;
}

/** A customer's decisions on every template, newest first (at most `limit`), by their subject. */
export async function customerHistory(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  subjectId: string,
  limit = 500,
): Promise<LoggedDecisionRecord[]> {
  const rows = await records(db, tenantId)
    .leftJoin('tlog_entries as e', (j) =>
      j.onRef('e.log_id', '=', 'd.tenant_id').onRef('e.record_id', '=', 'd.id'),
    )
    .select('e.idx as log_index')
    .where('d.subject_id', '=', subjectId)
    .orderBy('d.decided_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute();
  const opened = await opener(db, vault, tenantId)(rows);
  return opened.map((row) => ({
    ...row,
    log_index: row.log_index === null ? null : Number(row.log_index),
  }));
}

/** Rows with their personal fields opened in place of the sealed ones. */
function opener(db: Executor, vault: SubjectVault, tenantId: string) {
  const open = personalReader(db, vault, tenantId);
  return async <T extends { decision_id: string; subject_id: string; personal: string }>(
    rows: T[],
  ) => {
    const personal = await open(
      rows.map((r) => ({ id: r.decision_id, subject_id: r.subject_id, personal: r.personal })),
    );
    return rows.map(({ subject_id: _subject, personal: _sealed, ...row }, i) => {
      const fields = personal[i]?.personal ?? null;
      return {
        ...row,
        customer_id: fields?.customer_id ?? null,
        ip: fields?.ip ?? null,
        user_agent: fields?.user_agent ?? null,
      };
    });
  };
}

/** How many decisions of each value a template got on each day (UTC) from `since` on. */
export interface DailyCount {
  template_id: string;
  /** `YYYY-MM-DD`. */
  day: string;
  decision: DecisionValue;
  count: number;
}

export async function dailyDecisionCounts(
  db: Executor,
  tenantId: string,
  since: string,
): Promise<DailyCount[]> {
  const day = sql<string>`substr(${sql.ref('decided_at')}, 1, 10)`;
  const rows = await db
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
  return rows.map((row) => ({ ...row, count: Number(row.count) }));
}

/** Customers with at least one decision on the version: those a newer version makes pending. */
export async function countCustomersDecidedOn(
  db: Executor,
  tenantId: string,
  versionId: string,
): Promise<number> {
  const { count } = await db
    .selectFrom('customer_version_states')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('tenant_id', '=', tenantId)
    .where('consent_version_id', '=', versionId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Customers with at least one decision, per template id. */
export async function customersPerTemplate(
  db: Executor,
  tenantId: string,
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('customer_template_states')
    .select((eb) => ['template_id', eb.fn.countAll<number | string>().as('count')])
    .where('tenant_id', '=', tenantId)
    .groupBy('template_id')
    .execute();
  return new Map(rows.map((row) => [row.template_id, Number(row.count)]));
}

export interface DecisionFilter {
  templateId?: string | undefined;
  /** Inclusive lower bound on `decided_at` (ISO 8601). */
  from?: string | undefined;
  /** Exclusive upper bound on `decided_at` (ISO 8601). */
  until?: string | undefined;
}

/**
 * Every decision of the tenant that passes the filter, oldest first, read a page at a time in
 * order of (`decided_at`, id): each page is its own short query, so an export of a million rows
 * holds one page in memory, keeps no connection (SQLite has one) and no statement running for
 * longer than a page takes.
 */
export async function* decisionRecords(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  filter: DecisionFilter,
  pageSize = 1000,
): AsyncGenerator<DecisionRecord> {
  const open = opener(db, vault, tenantId);
  let after: { decidedAt: string; id: string } | undefined;
  for (;;) {
    let query = records(db, tenantId);
    if (filter.templateId !== undefined)
      query = query.where('d.template_id', '=', filter.templateId);
    if (filter.from !== undefined) query = query.where('d.decided_at', '>=', filter.from);
    if (filter.until !== undefined) query = query.where('d.decided_at', '<', filter.until);
    if (after) {
      const { decidedAt, id } = after;
      query = query.where((eb) =>
        eb.or([
          eb('d.decided_at', '>', decidedAt),
          eb.and([eb('d.decided_at', '=', decidedAt), eb('d.id', '>', id)]),
        ]),
      );
    }
    const rows = await query
      .orderBy('d.decided_at', 'asc')
      .orderBy('d.id', 'asc')
      .limit(pageSize)
      .execute();
    yield* await open(rows);
    const last = rows.at(-1);
    if (rows.length < pageSize || !last) return;
    after = { decidedAt: last.decided_at, id: last.decision_id };
  }
}
