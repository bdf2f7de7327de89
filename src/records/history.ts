import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { ActedBy, DecisionValue } from '../decisions/index.js';
import type { Executor } from '../platform/db.js';
import type { ReadOn } from '../platform/replicas.js';
import type { SubjectVault } from '../subjects/index.js';
import { findSubjectId, personalOpener } from '../subjects/index.js';
import {
  countCustomersPerVersionAndDecision,
  countDecisionsPerDay,
  type EvidenceFilter,
  findCustomerEvidence,
  findEvidencePage,
} from './evidence-repository.js';
import type { HistoryPosition } from './repository.js';

/**
 * Read-only views of the record for the back-office: a customer's history with its evidence,
 * counts per day and per template, and exports. Nothing here writes.
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
  /** The locale of the text the customer was shown. */
  locale: string;
  decision: DecisionValue;
  decided_at: string;
  api_key_name: string | null;
  api_key_prefix: string | null;
  ip: string | null;
  user_agent: string | null;
  content_sha256: string;
  /** Who acted, when the decision said (PDPA section 20). */
  acted_by?: ActedBy;
  /** The explicit act behind a consent to sensitive data (PDPA section 26), when there was one. */
  explicit?: { method: string; text_shown: string };
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
  const rows = await findCustomerEvidence(db, tenantId, subjectId, limit);
  const opened = await opener(vault, tenantId)(db, rows);
  return opened.map((row) => ({
    ...row,
    log_index: row.log_index === null ? null : Number(row.log_index),
  }));
}

/**
 * Rows with their personal fields opened in place of the sealed ones. The customers' keys it
 * unseals are kept for its next call, so the pages of one download, each read on an executor of
 * its own, unseal a customer's key once.
 */
export function opener(vault: SubjectVault, tenantId: string) {
  const open = personalOpener(vault, tenantId);
  return async <T extends { decision_id: string; subject_id: string; personal: string }>(
    db: Executor,
    rows: T[],
  ) => {
    const personal = await open(
      db,
      rows.map((r) => ({ id: r.decision_id, subject_id: r.subject_id, personal: r.personal })),
    );
    return rows.map(({ subject_id: _subject, personal: _sealed, ...row }, i) => {
      const fields = personal[i]?.personal ?? null;
      return {
        ...row,
        customer_id: fields?.customer_id ?? null,
        ip: fields?.ip ?? null,
        user_agent: fields?.user_agent ?? null,
        ...(fields?.acted_by ? { acted_by: fields.acted_by } : {}),
        ...(fields?.explicit ? { explicit: fields.explicit } : {}),
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
  const rows = await countDecisionsPerDay(db, tenantId, since);
  return rows.map((row) => ({ ...row, count: Number(row.count) }));
}

/** A filter of decision records as the back-office asks it: a customer by the id their systems send. */
export type DecisionFilter = Omit<EvidenceFilter, 'subjectId'> & {
  customerId?: string | undefined;
};

/**
 * The filter in the store's terms, the customer id made their subject's id (`subjectId`, for
 * the audit log, which never keeps a customer id); `filter` undefined when the id names no
 * customer of the tenant, whom nothing can pass.
 */
export async function storeFilter(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  { customerId, ...rest }: DecisionFilter,
): Promise<{ filter: EvidenceFilter | undefined; subjectId: string | null }> {
  if (customerId === undefined) return { filter: rest, subjectId: null };
  const subjectId = await findSubjectId(db, vault, tenantId, customerId);
  return { filter: subjectId ? { ...rest, subjectId } : undefined, subjectId: subjectId ?? null };
}

/**
 * The filters as asked, empty ones left out, for an audit entry: a customer id is recorded as
 * its subject's random id (null when it names none), never as given.
 */
export function askedForAudit(
  asked: Readonly<Record<string, string | undefined>>,
  subjectId: string | null,
): Record<string, string | null> {
  const kept: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(asked)) {
    if (value) kept[name] = name === 'customer' ? subjectId : value;
  }
  return kept;
}

/**
 * Every decision of the tenant that passes the filter, oldest first, read a page at a time in
 * order of (`decided_at`, id): each page is its own short query, so an export of a million rows
 * holds one page in memory, keeps no connection (SQLite has one) and no statement running for
 * longer than a page takes. Each page is read through `readOn`: on a replica, each is one that
 * has replayed every write answered before the page was asked, and a replica that goes away
 * between pages costs the export nothing.
 */
export async function* decisionRecords(
  readOn: ReadOn,
  vault: SubjectVault,
  tenantId: string,
  filter: EvidenceFilter,
  pageSize = 1000,
): AsyncGenerator<DecisionRecord> {
  const open = opener(vault, tenantId);
  let after: HistoryPosition | undefined;
  for (;;) {
    const position = after;
    const { rows, opened } = await readOn(async (on) => {
      const rows = await findEvidencePage(on, tenantId, filter, position, pageSize);
      return { rows, opened: await open(on, rows) };
    });
    yield* opened;
    const last = rows.at(-1);
    if (rows.length < pageSize || !last) return;
    after = { decidedAt: last.decided_at, id: last.decision_id };
  }
}

/** What an export of decision records was asked for, as the person typed it (for the audit log). */
export interface ExportRequest {
  template: string;
  from: string;
  to: string;
  /** Filters beyond the template and days, recorded only when given. */
  product?: string | undefined;
  version?: string | undefined;
  decision?: string | undefined;
  key?: string | undefined;
  locale?: string | undefined;
  /** The customer id typed: recorded as the customer's subject id. */
  customer?: string | undefined;
  /** The time zone the days were read in (the tenant's). */
  timeZone?: string | undefined;
}

/**
 * The decision records passing the filter, for a download: taking them is itself recorded on
 * `db`, the primary (before the first row is read), with the filters as asked; the rows are read
 * through `readOn` (`decisionRecords`).
 */
export async function exportDecisionRecords(
  db: Executor,
  readOn: ReadOn,
  vault: SubjectVault,
  tenantId: string,
  filter: DecisionFilter,
  asked: ExportRequest,
  actor: Actor,
): Promise<AsyncGenerator<DecisionRecord>> {
  const stored = await storeFilter(db, vault, tenantId, filter);
  const { product, version, decision, key, locale, customer } = asked;
  await recordAudit(db, {
    ...actor,
    action: 'export.decisions',
    target: asked.template || null,
    details: {
      template: asked.template || null,
      ...askedForAudit({ product, version, decision, key, locale, customer }, stored.subjectId),
      from: asked.from || null,
      to: asked.to || null,
      ...(asked.timeZone ? { time_zone: asked.timeZone } : {}),
    },
  });
  return stored.filter ? decisionRecords(readOn, vault, tenantId, stored.filter) : nothing();
}

async function* nothing(): AsyncGenerator<DecisionRecord> {}

/** How many customers' last decision on a version is each value. */
export type VersionStanding = Record<DecisionValue, number>;

/** For each of these versions (the templates' latest), its customers by their last decision. */
export async function standingsOnVersions(
  db: Executor,
  tenantId: string,
  versionIds: readonly string[],
): Promise<Map<string, VersionStanding>> {
  const standings = new Map<string, VersionStanding>(
    versionIds.map((id) => [id, { given: 0, reject: 0, withdraw: 0 }]),
  );
  for (const row of await countCustomersPerVersionAndDecision(db, tenantId, versionIds)) {
    const standing = standings.get(row.consent_version_id);
    if (standing) standing[row.last_decision] = Number(row.count);
  }
  return standings;
}
