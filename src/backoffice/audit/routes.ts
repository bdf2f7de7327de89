import type { FastifyInstance } from 'fastify';
import {
  type AuditCursor,
  type AuditListItem,
  type AuditScope,
  exportAudit,
  listAudit,
} from '../../audit/service.js';
import type { Db } from '../../platform/db.js';
import { auditBy, type RouteAccess, signedInUser, zoneOf } from '../web/context.js';
import { type CsvColumn, sendCsv } from '../web/csv.js';
import { queryOf } from '../web/forms.js';
import { basePath, csrfToken, sendPage } from '../web/layout.js';
import { auditPage } from './views.js';

const columns: ReadonlyArray<CsvColumn<AuditListItem>> = [
  ['created_at', (e) => e.createdAt],
  ['tenant', (e) => e.tenantAlias],
  ['actor_kind', (e) => e.actorKind],
  ['actor', (e) => e.actor],
  ['action', (e) => e.action],
  ['target', (e) => e.target],
  ['details', (e) => e.details],
  ['ip', (e) => e.ip],
  ['user_agent', (e) => e.userAgent],
  ['id', (e) => e.id],
];

function cursorOf(value: string): AuditCursor | undefined {
  const match = /^(\d{4}-\d{2}-\d{2}T[\d:.]+Z)~([0-9a-f-]{36})$/.exec(value);
  return match?.[1] && match[2] ? { createdAt: match[1], id: match[2] } : undefined;
}

/**
 * The audit log: a tenant's users see their tenant's entries (at /audit), the operator everyone's
 * (at /operator/audit).
 */
export async function auditRoutes(
  app: FastifyInstance,
  { db, scope: who }: { db: Db; scope: 'tenant' | 'operator' },
) {
  const path = who === 'tenant' ? '/audit' : '/operator/audit';
  const scopeOf = (request: Parameters<typeof signedInUser>[0]): AuditScope => {
    const user = signedInUser(request);
    return user.kind === 'tenant' ? { tenantId: user.tenantId } : 'all';
  };

  const view: RouteAccess = who === 'tenant' ? 'audit_log:view' : 'operator';
  const download: RouteAccess = who === 'tenant' ? 'audit_log:export' : 'operator';

  app.get(path, { config: { permission: view } }, async (request, reply) => {
    const before = cursorOf(queryOf(request.query, 'before'));
    const { items, next } = await listAudit(db, scopeOf(request), before);
    return sendPage(reply, {
      title: 'Audit log',
      section: 'audit',
      user: request.backofficeUser,
      csrfToken: csrfToken(reply),
      body: auditPage({
        items,
        next,
        showTenant: who === 'operator',
        zone: zoneOf(request),
        path: `${basePath}${path}`,
        first: before === undefined,
      }),
    });
  });

  app.get(`${path}.csv`, { config: { permission: download } }, async (request, reply) => {
    const user = signedInUser(request);
    const entries = await exportAudit(db, scopeOf(request), auditBy(request));
    const name = user.kind === 'tenant' ? `audit-${user.tenantAlias}.csv` : 'audit.csv';
    return sendCsv(reply, name, columns, entries);
  });
}
