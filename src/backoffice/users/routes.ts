import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  changeUser,
  disableUser,
  enableUser,
  endSessionsOfUser,
  getTeamMember,
  inviteUser,
  issuePasswordLink,
  listRoles,
  listTeam,
  openSessions,
  removeUserAs,
  resetUserSecondFactor,
  type SessionSettings,
  type TeamMember,
} from '../../accounts/index.js';
import type { Db } from '../../platform/db.js';
import { sessionTable } from '../accounts/session-views.js';
import { auditBy, tenantOf } from '../web/context.js';
import { confirmed, noRefusal, parseForm, type Refusal, refusalOf } from '../web/forms.js';
import { segment } from '../web/html.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { type LinkMailer, passwordLinkUrl, sendPasswordLink } from '../web/password-links.js';
import { InviteForm, inviteFormOptions, UserForm, userFormOptions } from './schemas.js';
import { inviteForm, linkIssued, teamPage, userPage } from './views.js';

export interface UserRouteOptions {
  db: Db;
  publicBaseUrl: string;
  /** Sends invitation and reset links; without it, the admin is shown the link once. */
  mailer: LinkMailer | undefined;
  /** How long a session lasts idle and at most, to tell which are still open. */
  sessions: SessionSettings;
}

type Params = { id: string };

const notices: Record<string, string> = {
  saved: 'Saved.',
  disabled: 'User disabled. Their sessions have ended.',
  enabled: 'User enabled.',
  removed: 'User removed.',
  'two-factor-reset': 'Second factor reset: they sign in with their password and set it up again.',
  'signed-out': 'Signed out everywhere: every session of theirs has ended.',
};

/** The team of a tenant: list, invite, change roles, disable, enable, remove, password links. */
export async function userRoutes(
  app: FastifyInstance,
  { db, publicBaseUrl, mailer, sessions: sessionSettings }: UserRouteOptions,
) {
  const page = sectionPage('users', notices);

  app.get('/users', { config: { permission: 'users:view' } }, async (request, reply) => {
    const user = tenantOf(request);
    const [members, roles] = await Promise.all([
      listTeam(db, user.tenantId),
      listRoles(db, user.tenantId),
    ]);
    return page(
      request,
      reply,
      'Users',
      teamPage({
        members,
        roles,
        mayInvite: user.permissions.has('users:create'),
        zone: user.timeZone,
      }),
    );
  });

  const showInvite = async (
    request: FastifyRequest,
    reply: FastifyReply,
    values: { name: string; email: string; roles: readonly string[] },
    refusal: Refusal = noRefusal,
    status = 200,
  ) => {
    const roles = await listRoles(db, tenantOf(request).tenantId);
    const body = inviteForm({
      csrfToken: csrfToken(reply),
      roles,
      values,
      errors: refusal.form,
      fieldErrors: refusal.fields,
      mailed: mailer !== undefined,
    });
    return page(request, reply, 'Invite a user', body, status);
  };

  app.get('/users/new', { config: { permission: 'users:create' } }, (request, reply) =>
    showInvite(request, reply, { name: '', email: '', roles: [] }),
  );

  /** Mails the link when it can (the page says so), or shows it this once. */
  const linkPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    member: TeamMember,
    purpose: 'invitation' | 'password_reset',
    token: string,
  ) => {
    const link = passwordLinkUrl(publicBaseUrl, token);
    const mailed = await sendPasswordLink(
      mailer,
      member,
      purpose,
      link,
      tenantOf(request),
      request.log,
    );
    return page(
      request,
      reply,
      purpose === 'invitation' ? 'Invitation ready' : 'Password link ready',
      linkIssued({ member, purpose, link: mailed ? undefined : link }),
    );
  };

  app.post('/users', { config: { permission: 'users:create' } }, async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const form = parseForm(InviteForm, request.body, inviteFormOptions);
    const values = {
      name: form.input.name ?? '',
      email: form.input.email ?? '',
      roles: form.ok ? form.values.roles : [],
    };
    if (!form.ok) return showInvite(request, reply, values, form.refusal, 400);
    const fields = form.values;
    let invited: Awaited<ReturnType<typeof inviteUser>>;
    try {
      invited = await db
        .transaction()
        .execute((trx) => inviteUser(trx, auditBy(request), tenantId, fields));
    } catch (error) {
      const refusal = refusalOf(error, inviteFormOptions.messages);
      if (!refusal) throw error;
      return showInvite(request, reply, values, refusal, 400);
    }
    return linkPage(request, reply, invited.user, 'invitation', invited.token);
  });

  const showUser = async (
    request: FastifyRequest,
    reply: FastifyReply,
    member: TeamMember,
    form?: { values: { name: string; roles: readonly string[] }; refusal: Refusal },
    status = 200,
  ) => {
    const user = tenantOf(request);
    const roles = await listRoles(db, user.tenantId);
    const open = await openSessions(db, { kind: 'user', id: member.id }, sessionSettings);
    const body = userPage({
      member,
      sessions: sessionTable({
        sessions: open,
        zone: user.timeZone,
        current: user.sessionIdHash,
        caption: `Where ${member.name} is signed in`,
      }),
      openSessions: open.length,
      roles,
      csrfToken: csrfToken(reply),
      may: {
        edit: user.permissions.has('users:edit'),
        remove: user.permissions.has('users:delete'),
      },
      isSelf: member.id === user.userId,
      zone: user.timeZone,
      ...(form
        ? { values: form.values, errors: form.refusal.form, fieldErrors: form.refusal.fields }
        : {}),
    });
    return page(request, reply, member.name, body, status);
  };

  app.get<{ Params: Params }>(
    '/users/:id',
    { config: { permission: 'users:view' } },
    async (request, reply) => {
      const member = await getTeamMember(db, tenantOf(request).tenantId, request.params.id);
      return showUser(request, reply, member);
    },
  );

  app.post<{ Params: Params }>(
    '/users/:id',
    { config: { permission: 'users:edit' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const member = await getTeamMember(db, tenantId, request.params.id);
      const form = parseForm(UserForm, request.body, userFormOptions);
      const values = { name: form.input.name ?? '', roles: form.ok ? form.values.roles : [] };
      if (!form.ok) return showUser(request, reply, member, { values, refusal: form.refusal }, 400);
      const fields = form.values;
      try {
        await db
          .transaction()
          .execute((trx) => changeUser(trx, auditBy(request), tenantId, member.id, fields));
      } catch (error) {
        const refusal = refusalOf(error, userFormOptions.messages);
        if (!refusal) throw error;
        return showUser(request, reply, member, { values, refusal }, 409);
      }
      return redirectTo(reply, `/users/${segment(member.id)}?notice=saved`);
    },
  );

  /** One of the buttons of a user's page: the act, then the page, or the page with the refusal. */
  const act = (
    path: string,
    permission: 'users:edit' | 'users:delete',
    run: (...args: Parameters<typeof disableUser>) => Promise<unknown>,
    notice: string,
  ) =>
    app.post<{ Params: Params }>(
      `/users/:id/${path}`,
      { config: { permission } },
      async (request, reply) => {
        const { tenantId } = tenantOf(request);
        const member = await getTeamMember(db, tenantId, request.params.id);
        if (path === 'remove' && !confirmed(request.body)) {
          const refusal = { fields: {}, form: ['Tick the box to confirm the removal.'] };
          return showUser(request, reply, member, { values: member, refusal }, 400);
        }
        try {
          await db.transaction().execute((trx) => run(trx, auditBy(request), tenantId, member.id));
        } catch (error) {
          const refusal = refusalOf(error, {});
          if (!refusal) throw error;
          return showUser(request, reply, member, { values: member, refusal }, 409);
        }
        return redirectTo(
          reply,
          path === 'remove'
            ? '/users?notice=removed'
            : `/users/${segment(member.id)}?notice=${notice}`,
        );
      },
    );
  act('disable', 'users:edit', disableUser, 'disabled');
  act('enable', 'users:edit', enableUser, 'enabled');
  act('remove', 'users:delete', removeUserAs, 'removed');
  act('two-factor-reset', 'users:edit', resetUserSecondFactor, 'two-factor-reset');
  act('sign-out', 'users:edit', endSessionsOfUser, 'signed-out');

  app.post<{ Params: Params }>(
    '/users/:id/link',
    { config: { permission: 'users:edit' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const member = await getTeamMember(db, tenantId, request.params.id);
      let issued: Awaited<ReturnType<typeof issuePasswordLink>>;
      try {
        issued = await db
          .transaction()
          .execute((trx) => issuePasswordLink(trx, auditBy(request), tenantId, member.id));
      } catch (error) {
        const refusal = refusalOf(error, {});
        if (!refusal) throw error;
        return showUser(request, reply, member, { values: member, refusal }, 409);
      }
      const purpose = issued.user.status === 'invited' ? 'invitation' : 'password_reset';
      return linkPage(request, reply, issued.user, purpose, issued.token);
    },
  );
}
