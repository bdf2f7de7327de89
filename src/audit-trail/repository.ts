import { type Insertable, sql } from 'kysely';
import { type Executor, isPostgres } from '../platform/db.js';
import { containsText } from '../platform/like.js';
import { sqliteIdText } from '../platform/sqlite-ids.js';
import type { AuditLogTable, AuditRow } from './table.js';

/** Whose entries: one tenant's (a tenant's user), or everyone's (the operator). */
export type AuditScope = { tenantId: string } | 'all';

/** An entry with the alias of the tenant it concerns. */
export interface AuditListRow extends AuditRow {
  tenant_alias: string | null;
}

/** Which entries: any of these left out means any value. */
export interface AuditFilter {
  /** From this instant on (ISO 8601 UTC, included). */
  from?: string;
  /** Before this instant (ISO 8601 UTC, left out). */
  to?: string;
  /** Who acted: their e-mail, in any case. */
  actor?: string;
  /** The action's code, exactly (`version.published`). */
  action?: string;
  /** Part of what it was on, in any case. */
  target?: string;
}

/** Position in the log: the entry's time, then its id to order entries of the same time. */
export interface AuditCursor {
  createdAt: string;
  id: string;
}

export async function insertAuditEntry(
  db: Executor,
  row: Insertable<AuditLogTable>,
): Promise<void> {
  await db.insertInto('audit_log').values(row).execute();
}

function scoped(db: Executor, scope: AuditScope, filter: AuditFilter) {
  let query = db
    .selectFrom('audit_log as a')
    .leftJoin('tenants as t', 't.id', 'a.tenant_id')
    .selectAll('a')
    .select('t.alias as tenant_alias');
  if (scope !== 'all') query = query.where('a.tenant_id', '=', scope.tenantId);
  if (filter.from) query = query.where('a.created_at', '>=', filter.from);
  if (filter.to) query = query.where('a.created_at', '<', filter.to);
  if (filter.actor) {
    // An actor that is an id is held as its bytes on SQLite, as the parameter is bound there.
    const actor = filter.actor.toLowerCase();
    query = query.where(sql<boolean>`(a.actor = ${actor} or lower(a.actor) = ${actor})`);
  }
  if (filter.action) query = query.where('a.action', '=', filter.action);
  if (filter.target) {
    // lower() on both sides: SQLite's LIKE ignores ASCII case, PostgreSQL's does not.
    const target = isPostgres(db) ? 'a.target' : sql.raw(sqliteIdText('a.target'));
    query = query.where(containsText(target, filter.target));
  }
  return query;
}

/** The action codes found in the scope, for the filter's list. */
export async function distinctActions(db: Executor, scope: AuditScope): Promise<string[]> {
  let query = db.selectFrom('audit_log').select('action').distinct().orderBy('action');
  if (scope !== 'all') query = query.where('tenant_id', '=', scope.tenantId);
  return (await query.execute()).map((r) => r.action);
}

/**
 * Up to `limit` entries of the scope from `cursor` on: newest first and strictly older than the
 * cursor (`'desc'`), or oldest first and strictly newer (`'asc'`).
 */
export async function findAuditEntries(
  db: Executor,
  scope: AuditScope,
  filter: AuditFilter,
  order: 'asc' | 'desc',
  cursor: AuditCursor | undefined,
  limit: number,
): Promise<AuditListRow[]> {
  let query = scoped(db, scope, filter);
  if (cursor) {
    const beyond = order === 'desc' ? '<' : '>';
    query = query.where((eb) =>
      eb.or([
        eb('a.created_at', beyond, cursor.createdAt),
        eb.and([eb('a.created_at', '=', cursor.createdAt), eb('a.id', beyond, cursor.id)]),
      ]),
    );
  }
  return query.orderBy('a.created_at', order).orderBy('a.id', order).limit(limit).execute();
}
