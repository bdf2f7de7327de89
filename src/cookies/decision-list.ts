/**
 * The API's reads of a tenant's cookie decisions: a filtered list, newest first, a page at a
 * time, and one decision by its id; each with the visitor id opened and its receipt's URL.
 */
import { decodeCursor, encodeCursor } from '../platform/cursor.js';
import type { Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { storedInstant } from '../platform/time.js';
import { personalReader, type SubjectVault } from '../subjects/index.js';
import { listItem, storedFilter } from './decision-filters.js';
import {
  type CookieDecisionListRow,
  findCookieDecisionPage,
} from './decision-filters-repository.js';
import {
  type CookieDecisionItem,
  type CookieDecisionPage,
  type CookieDecisionsQuery,
  defaultDecisionsPerPage,
} from './schemas.js';

/** What the items need beside the rows: the tenant's visitors' keys and the service's address. */
interface Reading {
  db: Executor;
  vault: SubjectVault;
  tenantId: string;
  publicBaseUrl: string;
}

async function items(r: Reading, rows: CookieDecisionListRow[]): Promise<CookieDecisionItem[]> {
  const opened = await personalReader(r.db, r.vault, r.tenantId)(rows);
  return rows.map((row, i) => {
    const { system_name: _name, ...item } = listItem(row);
    return {
      ...item,
      visitor_id: opened[i]?.personal?.customer_id ?? null,
      receipt_url: `${r.publicBaseUrl}/api/v1/cookie-decisions/${item.decision_id}/receipt`,
    };
  });
}

/**
 * A page of the tenant's cookie decisions that pass the query's filters, newest first (then by
 * id, so choices of one millisecond keep one order), paged by keyset as a customer's history is:
 * a choice recorded while a client pages neither shifts nor repeats one. A visitor never seen
 * (or erased) has an empty list; a system that is not the tenant's is `404 1004`; `from` after
 * `to` is `400 1001`.
 */
export async function listCookieDecisions(
  r: Reading,
  query: CookieDecisionsQuery,
): Promise<CookieDecisionPage> {
  const limit = query.limit === undefined ? defaultDecisionsPerPage : Number(query.limit);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const from = query.from === undefined ? undefined : storedInstant(query.from, 'querystring.from');
  const until = query.to === undefined ? undefined : storedInstant(query.to, 'querystring.to');
  if (from !== undefined && until !== undefined && until < from) {
    throw new AppError('invalidRequest', {
      details: [{ field: 'querystring.to', issue: 'must not come before from' }],
    });
  }
  const stored = await storedFilter(r.db, r.vault, r.tenantId, {
    visitorId: query.visitor_id,
    customerId: query.customer_id,
    scope: query.system,
    from,
    until,
  });
  if (!stored) return { decisions: [], next_cursor: null };
  // One row more than the page tells whether another page follows.
  const rows = await findCookieDecisionPage(r.db, r.tenantId, stored, 'newest', after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    decisions: await items(r, page),
    next_cursor:
      rows.length > limit && last
        ? encodeCursor({ decidedAt: last.decided_at, id: last.id })
        : null,
  };
}

/** One of the tenant's cookie decisions, by its id; `404 1004` when it is not the tenant's. */
export async function getCookieDecision(
  r: Reading,
  decisionId: string,
): Promise<CookieDecisionItem> {
  const rows = await findCookieDecisionPage(
    r.db,
    r.tenantId,
    { decisionId: decisionId.toLowerCase() },
    'newest',
    undefined,
    1,
  );
  const [item] = await items(r, rows);
  if (!item) throw new AppError('notFound', { message: 'Cookie decision not found.' });
  return item;
}
