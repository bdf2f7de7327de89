import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  changeRoleAs,
  createRoleAs,
  deleteRoleAs,
  getRole,
  holdersOfRoles,
  listRoles,
  type Role,
} from '../../accounts/index.js';
import type { Db } from '../../platform/db.js';
import { auditBy, tenantOf } from '../web/context.js';
import { confirmed, noRefusal, parseForm, type Refusal, refusalOf } from '../web/forms.js';
import { segment } from '../web/html.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { RoleForm, roleFormOptions } from './schemas.js';
import { roleForm, rolesPage } from './views.js';

type Params = { id: string };
type Values = { name: string; description: string; permissions: readonly string[] };

const notices: Record<string, string> = {
  created: 'Role created.',
  saved: 'Role saved. Its holders have its permissions from their next page on.',
  deleted: 'Role deleted.',
};

/** Roles: the built-in ones to read, the tenant's own to make from the permission matrix. */
export async function roleRoutes(app: FastifyInstance, { db }: { db: Db }) {
  const page = sectionPage('roles', notices);

  app.get('/roles', { config: { permission: 'roles:view' } }, async (request, reply) => {
    const user = tenantOf(request);
    const [roles, holders] = await Promise.all([
      listRoles(db, user.tenantId),
      holdersOfRoles(db, user.tenantId),
    ]);
    return page(
      request,
      reply,
      'Roles',
      rolesPage({ roles, holders, mayEdit: user.permissions.has('roles:edit') }),
    );
  });

  const showRole = async (
    request: FastifyRequest,
    reply: FastifyReply,
    role: Role | undefined,
    values: Values,
    refusal: Refusal = noRefusal,
    status = 200,
  ) => {
    const user = tenantOf(request);
    const holders = role ? ((await holdersOfRoles(db, user.tenantId)).get(role.id) ?? []) : [];
    const body = roleForm({
      holders,
      role,
      csrfToken: csrfToken(reply),
      values,
      errors: refusal.form,
      fieldErrors: refusal.fields,
      readOnly: role?.builtIn === true || !user.permissions.has('roles:edit'),
    });
    return page(request, reply, role?.name ?? 'New role', body, status);
  };

  app.get('/roles/new', { config: { permission: 'roles:edit' } }, (request, reply) =>
    showRole(request, reply, undefined, { name: '', description: '', permissions: [] }),
  );

  app.get<{ Params: Params }>(
    '/roles/:id',
    { config: { permission: 'roles:view' } },
    async (request, reply) => {
      const role = await getRole(db, tenantOf(request).tenantId, request.params.id);
      return showRole(request, reply, role, role);
    },
  );

  /** Creating (no role yet) or changing one: the same form, the same checks. */
  const save = async (request: FastifyRequest, reply: FastifyReply, role: Role | undefined) => {
    const { tenantId } = tenantOf(request);
    const form = parseForm(RoleForm, request.body, roleFormOptions);
    const values = {
      name: form.input.name ?? '',
      description: form.input.description ?? '',
      permissions: form.ok ? form.values.permissions : [],
    };
    if (!form.ok) return showRole(request, reply, role, values, form.refusal, 400);
    const input = form.values;
    let saved: Role;
    try {
      saved = await db
        .transaction()
        .execute((trx) =>
          role
            ? changeRoleAs(trx, auditBy(request), tenantId, role.id, input)
            : createRoleAs(trx, auditBy(request), tenantId, input),
        );
    } catch (error) {
      const refusal = refusalOf(error, roleFormOptions.messages);
      if (!refusal) throw error;
      return showRole(request, reply, role, values, refusal, 409);
    }
    return redirectTo(reply, `/roles/${segment(saved.id)}?notice=${role ? 'saved' : 'created'}`);
  };

  app.post('/roles', { config: { permission: 'roles:edit' } }, (request, reply) =>
    save(request, reply, undefined),
  );

  app.post<{ Params: Params }>(
    '/roles/:id',
    { config: { permission: 'roles:edit' } },
    async (request, reply) => {
      const role = await getRole(db, tenantOf(request).tenantId, request.params.id);
      return save(request, reply, role);
    },
  );

  app.post<{ Params: Params }>(
    '/roles/:id/delete',
    { config: { permission: 'roles:edit' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const role = await getRole(db, tenantId, request.params.id);
      if (!confirmed(request.body)) {
        const refusal = { fields: {}, form: ['Tick the box to confirm the deletion.'] };
        return showRole(request, reply, role, role, refusal, 400);
      }
      try {
        await db
          .transaction()
          .execute((trx) => deleteRoleAs(trx, auditBy(request), tenantId, role.id));
      } catch (error) {
        const refusal = refusalOf(error, {});
        if (!refusal) throw error;
        return showRole(request, reply, role, role, refusal, 409);
      }
      return redirectTo(reply, '/roles?notice=deleted');
    },
  );
}
