import type { Executor } from '../../platform/db.js';
import { newId } from '../../platform/ids.js';
import { nowIso } from '../../platform/time.js';
import type { AuditRow } from '../table.js';

/** What happened, by whom, from where: one row of the audit log. */
export interface AuditEntry {
  tenantId: string | null;
  actorKind: AuditRow['actor_kind'];
  actor: string;
  action: string;
  target?: string | null;
  details?: Record<string, unknown> | null;
  ip: string;
  userAgent: string | null;
}

export async function recordAudit(db: Executor, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: newId(),
      tenant_id: entry.tenantId,
      actor_kind: entry.actorKind,
      actor: entry.actor.slice(0, 254),
      action: entry.action,
      target: entry.target ?? null,
      details: entry.details ? JSON.stringify(entry.details) : null,
      ip: entry.ip,
      user_agent: entry.userAgent?.slice(0, 512) ?? null,
      created_at: nowIso(),
    })
    .execute();
}

/** Whose entries: one tenant's (a tenant's user), or everyone's (the operator). */
export type AuditScope = { tenantId: string } | 'all';

export interface AuditListItem extends AuditRow {
  tenant_alias: string | null;
}

/** Position in the log, newest first: entries strictly older than this one. */
export interface AuditCursor {
  createdAt: string;
  id: string;
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

/** A page of the log, newest first, and the cursor of the next page (when there is one). */
export async function listAudit(
  db: Executor,
  scope: AuditScope,
  before: AuditCursor | undefined,
  limit = 50,
): Promise<{ items: AuditListItem[]; next: AuditCursor | undefined }> {
  let query = scoped(db, scope);
  if (before) {
    query = query.where((eb) =>
      eb.or([
        eb('a.created_at', '<', before.createdAt),
        eb.and([eb('a.created_at', '=', before.createdAt), eb('a.id', '<', before.id)]),
      ]),
    );
  }
  const rows = await query
    .orderBy('a.created_at', 'desc')
    .orderBy('a.id', 'desc')
    .limit(limit + 1)
    .execute();
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items,
    next: rows.length > limit && last ? { createdAt: last.created_at, id: last.id } : undefined,
  };
}

/**
 * The whole log of the scope, oldest first, read a page at a time (each page its own short
 * query), so an export of any size holds one page in memory and no connection for long.
 */
export async function* auditEntries(
  db: Executor,
  scope: AuditScope,
  pageSize = 1000,
): AsyncGenerator<AuditListItem> {
  let after: AuditCursor | undefined;
  for (;;) {
    let query = scoped(db, scope);
    if (after) {
      const { createdAt, id } = after;
      query = query.where((eb) =>
        eb.or([
          eb('a.created_at', '>', createdAt),
          eb.and([eb('a.created_at', '=', createdAt), eb('a.id', '>', id)]),
        ]),
      );
    }
    const rows = await query
      .orderBy('a.created_at', 'asc')
      .orderBy('a.id', 'asc')
      .limit(pageSize)
      .execute();
    yield* rows;
    const last = rows.at(-1);
    if (rows.length < pageSize || !last) return;
    after = { createdAt: last.created_at, id: last.id };
  }
}
