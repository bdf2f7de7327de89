import type { Executor } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import {
  type AuditCursor,
  type AuditFilter,
  type AuditListRow,
  type AuditScope,
  distinctActions,
  findAuditEntries,
  insertAuditEntry,
} from './repository.js';
import type { AuditRow } from './table.js';

export type { AuditCursor, AuditFilter, AuditScope };

/** One entry as it is shown and exported, with the alias of the tenant it concerns. */
export interface AuditListItem {
  id: string;
  createdAt: string;
  tenantAlias: string | null;
  actorKind: AuditRow['actor_kind'];
  actor: string;
  actorName: string | null;
  action: string;
  target: string | null;
  /** JSON object with the particulars, as recorded, or null. */
  details: string | null;
  ip: string;
  userAgent: string | null;
}

function listItem(row: AuditListRow): AuditListItem {
  return {
    id: row.id,
    createdAt: row.created_at,
    tenantAlias: row.tenant_alias,
    actorKind: row.actor_kind,
    actor: row.actor,
    actorName: row.actor_name,
    action: row.action,
    target: row.target,
    details: row.details,
    ip: row.ip,
    userAgent: row.user_agent,
  };
}

/** What happened, by whom, from where: one row of the audit log. */
export interface AuditEntry {
  tenantId: string | null;
  actorKind: AuditRow['actor_kind'];
  actor: string;
  /** The user's or operator's name, when they have one. */
  actorName?: string | null;
  action: string;
  target?: string | null;
  details?: Record<string, unknown> | null;
  ip: string;
  userAgent: string | null;
}

/** Who acts and from where: an entry without what was done, which the action adds. */
export type Actor = Omit<AuditEntry, 'action' | 'target' | 'details'>;

/** Appends `entry`; called inside the transaction of the action it records. */
export async function recordAudit(db: Executor, entry: AuditEntry): Promise<void> {
  await insertAuditEntry(db, {
    id: newId(),
    tenant_id: entry.tenantId,
    actor_kind: entry.actorKind,
    actor: entry.actor.slice(0, 254),
    actor_name: entry.actorName ? entry.actorName.slice(0, 200) : null,
    action: entry.action,
    target: entry.target ?? null,
    details: entry.details ? JSON.stringify(entry.details) : null,
    ip: entry.ip,
    user_agent: entry.userAgent?.slice(0, 512) ?? null,
    created_at: nowIso(),
  });
}

/** A page of the log, newest first, and the cursor of the next page (when there is one). */
export async function listAudit(
  db: Executor,
  scope: AuditScope,
  filter: AuditFilter,
  before: AuditCursor | undefined,
  limit = 50,
): Promise<{ items: AuditListItem[]; next: AuditCursor | undefined }> {
  const rows = await findAuditEntries(db, scope, filter, 'desc', before, limit + 1);
  const items = rows.slice(0, limit).map(listItem);
  const last = items.at(-1);
  return {
    items,
    next: rows.length > limit && last ? { createdAt: last.createdAt, id: last.id } : undefined,
  };
}

/**
 * The whole log of the scope, oldest first, read a page at a time (each page its own short
 * query), so an export of any size holds one page in memory and no connection for long.
 */
async function* auditEntries(
  db: Executor,
  scope: AuditScope,
  filter: AuditFilter,
  pageSize = 1000,
): AsyncGenerator<AuditListItem> {
  let after: AuditCursor | undefined;
  for (;;) {
    const rows = await findAuditEntries(db, scope, filter, 'asc', after, pageSize);
    yield* rows.map(listItem);
    const last = rows.at(-1);
    if (rows.length < pageSize || !last) return;
    after = { createdAt: last.created_at, id: last.id };
  }
}

/**
 * The log of the scope, as filtered, for a download: taking it is itself recorded with the
 * filter (before the first row is read), then the entries follow oldest first.
 */
export async function exportAudit(
  db: Executor,
  scope: AuditScope,
  filter: AuditFilter,
  actor: Actor,
): Promise<AsyncGenerator<AuditListItem>> {
  const used = Object.fromEntries(Object.entries(filter).filter(([, v]) => v));
  await recordAudit(db, {
    ...actor,
    action: 'export.audit',
    ...(Object.keys(used).length > 0 ? { details: { filter: used } } : {}),
  });
  return auditEntries(db, scope, filter);
}

/** The action codes recorded in the scope, for choosing one to filter by. */
export function auditActions(db: Executor, scope: AuditScope): Promise<string[]> {
  return distinctActions(db, scope);
}
