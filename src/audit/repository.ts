import type { Insertable } from 'kysely';
import type { Executor } from '../platform/db.js';
import type { AuditLogTable, AuditRow } from './table.js';

/** Whose entries: one tenant's (a tenant's user), or everyone's (the operator). */
export type AuditScope = { tenantId: string } | 'all';

/** An entry with the alias of the tenant it concerns. */
export interface AuditListRow extends AuditRow {
  tenant_alias: string | null;
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

function scoped(db: Executor, scope: AuditScope) {
  let query = db
    .selectFrom('audit_log as a')
    .leftJoin('tenants as t', 't.id', 'a.tenant_id')
    .selectAll('a')
    .select('t.alias as tenant_alias');
  if (scope !== 'all') query = query.where('a.tenant_id', '=', scope.tenantId);
  return query;
}

/**
 * Up to `limit` entries of the scope from `cursor` on: newest first and strictly older than the
 * cursor (`'desc'`), or oldest first and strictly newer (`'asc'`).
 */
export async function findAuditEntries(
  db: Executor,
  scope: AuditScope,
  order: 'asc' | 'desc',
  cursor: AuditCursor | undefined,
  limit: number,
): Promise<AuditListRow[]> {
  let query = scoped(db, scope);
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
