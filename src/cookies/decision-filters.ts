import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor } from '../platform/db.js';
import type { ReadOn } from '../platform/replicas.js';
import { findSubjectId, personalOpener, type SubjectVault } from '../subjects/index.js';
import { type ChoiceMethod, standardCategories } from './banner-config.js';
import type { ConfigurationContent } from './content.js';
import {
  type CookieDecisionListRow,
  type CookiePosition,
  findCookieDecisionPage,
  findPublishedContents,
  type StoredCookieFilter,
} from './decision-filters-repository.js';
import type { CookieDecisionView } from './decisions.js';
import { findConfiguration } from './repository.js';
import { getSystem } from './systems.js';
import { findVisitorSubjectId } from './visitor.js';

/** Which of a tenant's cookie decisions to show or export; each part left out for "any". */
export interface CookieDecisionFilter {
  /** One decision, by its id (its receipt's): the UUID the choice was answered with. */
  decisionId?: string | undefined;
  /** One visitor's choices, by the id their browser keeps (`Consentrix.consent().visitor_id`). */
  visitorId?: string | undefined;
  /** One customer's choices, made while signed in as them (docs/cookies.md, "Signed-in visitors"). */
  customerId?: string | undefined;
  /** The system's scope. */
  scope?: string | undefined;
  configurationId?: string | undefined;
  category?: { key: string; granted?: boolean | undefined } | undefined;
  method?: ChoiceMethod | undefined;
  /** `[from, until)`, ISO instants (a range of days read in the tenant's zone by the caller). */
  from?: string | undefined;
  until?: string | undefined;
}

/** A visitor's choice as a list shows it: what was chosen, where and when; nothing personal. */
export interface CookieDecisionListItem {
  decision_id: string;
  system: string;
  system_name: string;
  configuration_id: string;
  configuration_version: number;
  method: ChoiceMethod;
  categories: Record<string, boolean>;
  locale: string;
  origin: string;
  /** Where the visitor was, when known. */
  region?: string;
  /** The A/B variant the visitor saw, when there were variants. */
  variant?: string;
  /** True for a choice made while signed in as a customer (absent otherwise). */
  signed_in?: true;
  decided_at: string;
}

export const cookieDecisionsPerPage = 50;

/**
 * The filter in the store's terms: the scope made the system's id (`404 1004` for none of the
 * tenant's), the visitor id their subject's. Undefined when the visitor id names no visitor of
 * the tenant (never seen, or erased), whom no decision can pass.
 */
export async function storedFilter(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  filter: CookieDecisionFilter,
): Promise<StoredCookieFilter | undefined> {
  const { scope, visitorId, customerId, decisionId, ...rest } = filter;
  const subjectId =
    visitorId === undefined
      ? undefined
      : await findVisitorSubjectId(db, vault, tenantId, visitorId);
  if (visitorId !== undefined && subjectId === undefined) return undefined;
  const customerSubjectId =
    customerId === undefined ? undefined : await findSubjectId(db, vault, tenantId, customerId);
  if (customerId !== undefined && customerSubjectId === undefined) return undefined;
  return {
    ...rest,
    ...(subjectId === undefined ? {} : { subjectId }),
    ...(customerSubjectId === undefined ? {} : { customerSubjectId }),
    // Ids are made in lower case; one typed in upper case names the same decision.
    ...(decisionId === undefined ? {} : { decisionId: decisionId.toLowerCase() }),
    ...(scope === undefined ? {} : { systemId: (await getSystem(db, tenantId, scope)).id }),
  };
}

export function listItem(row: CookieDecisionListRow): CookieDecisionListItem {
  return {
    decision_id: row.id,
    system: row.scope,
    system_name: row.system_name,
    configuration_id: row.configuration_id,
    configuration_version: Number(row.configuration_version),
    method: row.method,
    categories: JSON.parse(row.categories) as Record<string, boolean>,
    locale: row.locale,
    origin: row.origin,
    ...(row.region ? { region: row.region } : {}),
    ...(row.variant ? { variant: row.variant } : {}),
    ...(row.customer_subject_id ? { signed_in: true as const } : {}),
    decided_at: row.decided_at,
  };
}

/**
 * A page of the tenant's cookie decisions that pass the filter, newest first, and where the next
 * (older) page starts. It shows no visitor id, address or user agent, so reading it is not
 * itself recorded; the export, which has them, is.
 */
export async function browseCookieDecisions(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  filter: CookieDecisionFilter,
  before: CookiePosition | undefined,
): Promise<{ decisions: CookieDecisionListItem[]; next: CookiePosition | undefined }> {
  const stored = await storedFilter(db, vault, tenantId, filter);
  if (!stored) return { decisions: [], next: undefined };
  const rows = await findCookieDecisionPage(
    db,
    tenantId,
    stored,
    'newest',
    before,
    cookieDecisionsPerPage + 1,
  );
  const decisions = rows.slice(0, cookieDecisionsPerPage).map(listItem);
  const last = decisions.at(-1);
  return {
    decisions,
    next:
      rows.length > cookieDecisionsPerPage && last
        ? { decidedAt: last.decided_at, id: last.decision_id }
        : undefined,
  };
}

/**
 * The category keys of the configurations ever published of the filter's system (the
 * configuration's, when only that is given; every system's when neither is): `necessary`, the
 * standard four in their order, then the tenant's own as they first appeared. A download's
 * columns, the same whatever the days or other filters.
 */
async function categoryKeys(
  db: Executor,
  tenantId: string,
  stored: StoredCookieFilter,
): Promise<string[]> {
  const systemId =
    stored.systemId ??
    (stored.configurationId === undefined
      ? undefined
      : (await findConfiguration(db, tenantId, stored.configurationId))?.system_id);
  const seen: string[] = [];
  for (const { content } of await findPublishedContents(db, tenantId, systemId)) {
    for (const { key } of (JSON.parse(content) as ConfigurationContent).categories) {
      if (!seen.includes(key)) seen.push(key);
    }
  }
  const fixed = ['necessary', ...standardCategories].filter((key) => seen.includes(key));
  return [...fixed, ...seen.filter((key) => !fixed.includes(key))];
}

/** Decisions read per page of an export: each page its own short query. */
const exportPage = 500;

/**
 * The decisions passing the filter for a download, oldest first, with the visitor's id, address
 * and user agent (null once erased), and the category keys its columns name. Taking them is
 * recorded first on `db`, the primary (`export.cookie_decisions`, with the filter as asked and
 * the time zone its days were read in; a visitor asked for as their subject's random id, null
 * when it names none: the audit log never keeps a visitor id, which erasing them could not
 * reach); each page of decisions is then read through `readOn`, on a replica that has replayed
 * that record (docs/scaling.md, "Read replicas").
 */
export async function exportCookieDecisions(
  db: Executor,
  readOn: ReadOn,
  vault: SubjectVault,
  tenantId: string,
  filter: CookieDecisionFilter,
  asked: Readonly<Record<string, string>>,
  actor: Actor,
): Promise<{ categories: string[]; decisions: AsyncGenerator<CookieDecisionView> }> {
  const stored = await storedFilter(db, vault, tenantId, filter);
  const details: Record<string, string | null> = Object.fromEntries(
    Object.entries(asked).filter(([, value]) => value !== ''),
  );
  if (details.visitor !== undefined) details.visitor = stored?.subjectId ?? null;
  await recordAudit(db, {
    ...actor,
    action: 'export.cookie_decisions',
    target: filter.scope ?? null,
    details,
  });
  // A visitor no one knows passes nothing; the columns are still those of the other filters.
  const columns =
    stored ?? (await storedFilter(db, vault, tenantId, { ...filter, visitorId: undefined }));
  return {
    categories: await categoryKeys(db, tenantId, columns ?? {}),
    decisions: exportedDecisions(readOn, vault, tenantId, stored),
  };
}

/** Each page its own read: a replica that goes away between pages costs the download nothing. */
async function* exportedDecisions(
  readOn: ReadOn,
  vault: SubjectVault,
  tenantId: string,
  stored: StoredCookieFilter | undefined,
): AsyncGenerator<CookieDecisionView> {
  if (!stored) return;
  const open = personalOpener(vault, tenantId);
  let after: CookiePosition | undefined;
  for (;;) {
    const position = after;
    const { rows, opened } = await readOn(async (on) => {
      const rows = await findCookieDecisionPage(
        on,
        tenantId,
        stored,
        'oldest',
        position,
        exportPage,
      );
      return { rows, opened: await open(on, rows) };
    });
    for (const [i, row] of rows.entries()) {
      const personal = opened[i]?.personal ?? null;
      const { system_name: _name, ...item } = listItem(row);
      yield {
        ...item,
        visitor_id: personal?.customer_id ?? null,
        ip: personal?.ip ?? null,
        user_agent: personal?.user_agent ?? null,
      };
    }
    const last = rows.at(-1);
    if (!last || rows.length < exportPage) return;
    after = { decidedAt: last.decided_at, id: last.id };
  }
}
