import { sql } from 'kysely';
import type { Executor } from '../platform/db.js';
import { resolveIdType } from '../platform/id-type.js';
import type { ChoiceMethod } from './banner-config.js';
import { choiceSelection } from './decisions-repository.js';
import type { CookieDecisionRow } from './table.js';

/** A filter of a tenant's cookie decisions, as the store reads it. */
export interface StoredCookieFilter {
  /** One decision, by its id (its receipt's), in lower case. */
  decisionId?: string | undefined;
  /** One visitor's choices, by their subject (the visitor id is sealed; visitor.ts). */
  subjectId?: string | undefined;
  /** The choices of one signed-in customer, by their subject. */
  customerSubjectId?: string | undefined;
  systemId?: string | undefined;
  configurationId?: string | undefined;
  /** A category in the choice: granted (true), denied (false), or either. */
  category?: { key: string; granted?: boolean | undefined } | undefined;
  method?: ChoiceMethod | undefined;
  /** `[from, until)`, ISO instants. */
  from?: string | undefined;
  until?: string | undefined;
}

/** A keyset position: a decision's time and id. */
export interface CookiePosition {
  decidedAt: string;
  id: string;
}

export type CookieDecisionListRow = CookieDecisionRow & { scope: string; system_name: string };

/**
 * A page of the filter's decisions with their system, newest or oldest first, from past a
 * position. The category is matched in the stored JSON (`{"analytics":true,…}`, written
 * by `JSON.stringify`, so without spaces) as `"key":true`, `"key":false` or `"key":` (either),
 * the same text on both stores; a key is `[a-z][a-z0-9_]*`, its `_` escaped for LIKE.
 */
export async function findCookieDecisionPage(
  db: Executor,
  tenantId: string,
  filter: StoredCookieFilter,
  order: 'newest' | 'oldest',
  /** Where the previous page ended: the page goes on past it, in the order asked. */
  past: CookiePosition | undefined,
  limit: number,
): Promise<CookieDecisionListRow[]> {
  await resolveIdType(db);
  let query = db
    .selectFrom('cookie_decisions as d')
    .innerJoin('cookie_systems as s', (j) =>
      j.onRef('s.tenant_id', '=', 'd.tenant_id').onRef('s.id', '=', 'd.system_id'),
    )
    .select(choiceSelection(db))
    .select(['s.scope', 's.name as system_name'])
    .where('d.tenant_id', '=', tenantId);
  if (filter.decisionId !== undefined) query = query.where('d.id', '=', filter.decisionId);
  if (filter.subjectId !== undefined) query = query.where('d.subject_id', '=', filter.subjectId);
  if (filter.customerSubjectId !== undefined) {
    query = query.where('d.customer_subject_id', '=', filter.customerSubjectId);
  }
  if (filter.systemId !== undefined) query = query.where('d.system_id', '=', filter.systemId);
  if (filter.configurationId !== undefined) {
    query = query.where('d.configuration_id', '=', filter.configurationId);
  }
  if (filter.method !== undefined) query = query.where('d.method', '=', filter.method);
  if (filter.from !== undefined) query = query.where('d.decided_at', '>=', filter.from);
  if (filter.until !== undefined) query = query.where('d.decided_at', '<', filter.until);
  const { category } = filter;
  if (category) {
    const answer = category.granted === undefined ? '' : String(category.granted);
    const pattern = `%"${category.key.replaceAll('_', '\\_')}":${answer}%`;
    query = query.where(sql<boolean>`d.categories like ${pattern} escape '\\'`);
  }
  if (past) {
    const beyond = order === 'newest' ? '<' : '>';
    query = query.where((eb) =>
      eb.or([
        eb('d.decided_at', beyond, past.decidedAt),
        eb.and([eb('d.decided_at', '=', past.decidedAt), eb('d.id', beyond, past.id)]),
      ]),
    );
  }
  const direction = order === 'newest' ? 'desc' : 'asc';
  return query.orderBy('d.decided_at', direction).orderBy('d.id', direction).limit(limit).execute();
}

/** The categories of the configurations ever published (of one system, or all), by version. */
export function findPublishedContents(
  db: Executor,
  tenantId: string,
  systemId: string | undefined,
): Promise<Array<{ content: string }>> {
  let query = db
    .selectFrom('cookie_configurations')
    .select('content')
    .where('tenant_id', '=', tenantId)
    .where('published_at', 'is not', null);
  if (systemId !== undefined) query = query.where('system_id', '=', systemId);
  return query.orderBy('version').orderBy('created_at').execute();
}
