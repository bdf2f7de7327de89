import type { FastifyInstance, FastifyRequest } from 'fastify';
import { listTeam } from '../../accounts/index.js';
import {
  type AuditCursor,
  type AuditFilter,
  type AuditListItem,
  type AuditScope,
  auditActions,
  exportAudit,
  listAudit,
} from '../../audit-trail/index.js';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { listScimTokens } from '../../scim/index.js';
import { allows, auditBy, type RouteAccess, signedInUser, zoneOf } from '../web/context.js';
import { type CsvColumn, sendCsv } from '../web/csv.js';
import { dayRange, keysetPosition } from '../web/filters.js';
import { parseForm, queryOf } from '../web/forms.js';
import { basePath, csrfToken, sendPage } from '../web/layout.js';
import { AuditFilterForm, auditFilterOptions } from './schemas.js';
import { auditPage } from './views.js';

const columns: ReadonlyArray<CsvColumn<AuditListItem>> = [
  ['created_at', (e) => e.createdAt],
  ['tenant', (e) => e.tenantAlias],
  ['actor_kind', (e) => e.actorKind],
  ['actor', (e) => e.actor],
  ['actor_name', (e) => e.actorName],
  ['action', (e) => e.action],
  ['target', (e) => e.target],
  ['details', (e) => e.details],
  ['ip', (e) => e.ip],
  ['user_agent', (e) => e.userAgent],
  ['id', (e) => e.id],
];

function cursorOf(value: string): AuditCursor | undefined {
  const position = keysetPosition(value);
  return position && { createdAt: position.at, id: position.id };
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

  /**
   * The filter of the query string, its days taken in the user's zone; or the form's messages
   * (a day that is none, a range that ends before it starts).
   */
  const filterOf = (request: FastifyRequest) => {
    const form = parseForm(AuditFilterForm, request.query, auditFilterOptions);
    const values = { from: '', to: '', actor: '', action: '', target: '', ...form.input };
    if (!form.ok) return { values, refusal: form.refusal };
    const days = dayRange(values, zoneOf(request));
    if ('errors' in days) return { values, refusal: { fields: days.errors, form: [] } };
    const filter: AuditFilter = {
      ...(days.from ? { from: days.from } : {}),
      ...(days.until ? { to: days.until } : {}),
      ...(values.actor ? { actor: values.actor } : {}),
      ...(values.action ? { action: values.action } : {}),
      ...(values.target ? { target: values.target } : {}),
    };
    return { values, filter };
  };

  app.get(path, { config: { permission: view } }, async (request, reply) => {
    const user = signedInUser(request);
    const scope = scopeOf(request);
    const parsed = filterOf(request);
    const before = cursorOf(queryOf(request.query, 'before'));
    const [page, actions, team, tokens] = await Promise.all([
      parsed.filter ? listAudit(db, scope, parsed.filter, before) : undefined,
      auditActions(db, scope),
      user.kind === 'tenant' ? listTeam(db, user.tenantId) : undefined,
      user.kind === 'tenant' ? listScimTokens(db, user.tenantId) : [],
    ]);
    return sendPage(reply, {
      status: parsed.filter ? 200 : 400,
      title: 'Audit log',
      section: 'audit',
      user,
      csrfToken: csrfToken(reply),
      body: auditPage({
        items: page?.items ?? [],
        next: page?.next,
        showTenant: who === 'operator',
        zone: zoneOf(request),
        path: `${basePath}${path}`,
        first: before === undefined,
        values: parsed.values,
        fieldErrors: parsed.refusal?.fields ?? {},
        actions,
        // A SCIM token acts as `scim:<prefix>` (docs/team.md, "Provisioning with SCIM").
        people: team && [
          ...team.map((m) => ({ email: m.email, name: m.name })),
          ...tokens.map((t) => ({ email: `scim:${t.prefix}`, name: `SCIM token ${t.name}` })),
        ],
        mayDownload: allows(user, download),
      }),
    });
  });

  app.get(`${path}.csv`, { config: { permission: download } }, async (request, reply) => {
    const user = signedInUser(request);
    const parsed = filterOf(request);
    if (!parsed.filter) {
      throw new AppError('invalidRequest', { message: 'The filter of the download is not valid.' });
    }
    const entries = await exportAudit(db, scopeOf(request), parsed.filter, auditBy(request));
    const name = user.kind === 'tenant' ? `audit-${user.tenantAlias}.csv` : 'audit.csv';
    return sendCsv(reply, name, columns, entries);
  });
}
