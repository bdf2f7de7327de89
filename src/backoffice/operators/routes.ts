import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { inviteOperator, listOperators, setOperatorDisabled } from '../../accounts/index.js';
import type { Db } from '../../platform/db.js';
import { linkIssued } from '../users/views.js';
import { auditBy, signedInUser } from '../web/context.js';
import { noRefusal, parseForm, type Refusal, refusalOf } from '../web/forms.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { type LinkMailer, passwordLinkUrl, sendPasswordLink } from '../web/password-links.js';
import { OperatorInviteForm, operatorInviteOptions } from './schemas.js';
import { operatorsPage } from './views.js';

const notices: Record<string, string> = {
  disabled: 'Operator disabled: their sessions have ended.',
  enabled: 'Operator enabled.',
};

/** The operators' own team: list, invite, disable, enable. */
export async function operatorRoutes(
  app: FastifyInstance,
  o: { db: Db; publicBaseUrl: string; mailer: LinkMailer | undefined },
) {
  const { db } = o;
  const page = sectionPage('operators', notices);
  const selfOf = (request: FastifyRequest) => {
    const user = signedInUser(request);
    return user.kind === 'operator' ? user : undefined;
  };

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    values = { name: '', email: '' },
    refusal: Refusal = noRefusal,
    status = 200,
  ) =>
    page(
      request,
      reply,
      'Operators',
      operatorsPage({
        operators: await listOperators(db),
        selfId: selfOf(request)?.operatorId ?? '',
        csrfToken: csrfToken(reply),
        values,
        errors: refusal.form,
        fieldErrors: refusal.fields,
        mailed: o.mailer !== undefined,
      }),
      status,
    );

  app.get('/operator/operators', { config: { permission: 'operator' } }, (request, reply) =>
    show(request, reply),
  );

  app.post(
    '/operator/operators',
    { config: { permission: 'operator' } },
    async (request, reply) => {
      const form = parseForm(OperatorInviteForm, request.body, operatorInviteOptions);
      const values = { name: form.input.name ?? '', email: form.input.email ?? '' };
      if (!form.ok) return show(request, reply, values, form.refusal, 400);
      const fields = form.values;
      let invited: Awaited<ReturnType<typeof inviteOperator>>;
      try {
        invited = await db
          .transaction()
          .execute((trx) => inviteOperator(trx, auditBy(request), fields));
      } catch (error) {
        const refusal = refusalOf(error, operatorInviteOptions.messages);
        if (!refusal) throw error;
        return show(request, reply, values, refusal, 400);
      }
      const self = selfOf(request);
      const link = passwordLinkUrl(o.publicBaseUrl, invited.token);
      const mailed = await sendPasswordLink(
        o.mailer,
        invited.operator,
        'invitation',
        link,
        { name: self?.name ?? '', email: self?.email ?? '' },
        request.log,
      );
      return page(
        request,
        reply,
        'Invitation ready',
        linkIssued({
          member: invited.operator,
          purpose: 'invitation',
          link: mailed ? undefined : link,
          back: '/operator/operators',
        }),
      );
    },
  );

  for (const [path, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    app.post<{ Params: { id: string } }>(
      `/operator/operators/:id/${path}`,
      { config: { permission: 'operator' } },
      async (request, reply) => {
        const actor = { ...auditBy(request), operatorId: selfOf(request)?.operatorId ?? '' };
        try {
          await db
            .transaction()
            .execute((trx) => setOperatorDisabled(trx, actor, request.params.id, disabled));
        } catch (error) {
          const refusal = refusalOf(error, {});
          if (!refusal) throw error;
          return show(request, reply, undefined, refusal, 409);
        }
        return redirectTo(reply, `/operator/operators?notice=${path}d`);
      },
    );
  }
}
