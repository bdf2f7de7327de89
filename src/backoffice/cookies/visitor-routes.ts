import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { countVisitorChoices, eraseCookieVisitor } from '../../cookies/index.js';
import type { Db } from '../../platform/db.js';
import type { Registry } from '../../record-kinds/index.js';
import type { SubjectVault } from '../../subjects/index.js';
import { auditBy, tenantOf } from '../web/context.js';
import { confirmed, parseForm } from '../web/forms.js';
import { csrfToken } from '../web/layout.js';
import { invalidVisitorId, VisitorForm, visitorFormOptions } from './schemas.js';
import { cookiesPage } from './section.js';
import {
  visitorErasureConfirmation,
  visitorErasureDone,
  visitorErasureStart,
} from './visitor-views.js';

/**
 * Erasing a website visitor, as `cookie visitor erase` does: their id, then what will happen and
 * a box to tick, then the erasure and what it did. It needs `customers:erase`, the one
 * permission to erase a person's data, whoever they are to the tenant (docs/team.md). The id
 * travels in form bodies only, never in a URL: a URL is written to the request log.
 */
export async function visitorErasureRoutes(
  app: FastifyInstance,
  { db, vault, registry }: { db: Db; vault: SubjectVault; registry: Registry },
) {
  const mayView = (request: FastifyRequest) => tenantOf(request).permissions.has('cookies:view');

  /** The first step again: empty, with what is wrong with the id, or with nothing to erase. */
  const start = (
    request: FastifyRequest,
    reply: FastifyReply,
    o: { visitor?: string; error?: string; nothingKept?: boolean } = {},
  ) => {
    const body = visitorErasureStart({
      csrfToken: csrfToken(reply),
      visitor: o.visitor ?? '',
      error: o.error,
      nothingKept: o.nothingKept ?? false,
      mayView: mayView(request),
    });
    return cookiesPage(request, reply, 'Erase a visitor', body, o.error ? 400 : 200);
  };

  /** The visitor id of a form, or the first step again saying what is wrong with it. */
  const visitorOf = (request: FastifyRequest, reply: FastifyReply) => {
    const form = parseForm(VisitorForm, request.body, visitorFormOptions);
    if (form.ok) return { visitor: form.values.visitor.toLowerCase() } as const;
    const error = form.refusal.fields.visitor ?? invalidVisitorId;
    return { refused: start(request, reply, { visitor: form.input.visitor ?? '', error }) };
  };

  app.get(
    '/cookies/visitors/erase',
    { config: { permission: 'customers:erase' } },
    async (request, reply) => start(request, reply),
  );

  app.post(
    '/cookies/visitors/erase/confirmation',
    { config: { permission: 'customers:erase' } },
    async (request, reply) => {
      const parsed = visitorOf(request, reply);
      if ('refused' in parsed) return parsed.refused;
      const { visitor } = parsed;
      const choices = await countVisitorChoices(db, vault, tenantOf(request).tenantId, visitor);
      if (choices === 0) return start(request, reply, { visitor, nothingKept: true });
      const body = visitorErasureConfirmation({
        csrfToken: csrfToken(reply),
        visitor,
        choices,
        errors: [],
        mayView: mayView(request),
      });
      return cookiesPage(request, reply, `Erase visitor ${visitor}`, body);
    },
  );

  app.post(
    '/cookies/visitors/erase',
    { config: { permission: 'customers:erase' } },
    async (request, reply) => {
      const user = tenantOf(request);
      const parsed = visitorOf(request, reply);
      if ('refused' in parsed) return parsed.refused;
      const { visitor } = parsed;
      if (!confirmed(request.body)) {
        const choices = await countVisitorChoices(db, vault, user.tenantId, visitor);
        if (choices === 0) return start(request, reply, { visitor, nothingKept: true });
        const body = visitorErasureConfirmation({
          csrfToken: csrfToken(reply),
          visitor,
          choices,
          errors: ['Tick the box to confirm the erasure.'],
          mayView: mayView(request),
        });
        return cookiesPage(request, reply, `Erase visitor ${visitor}`, body, 400);
      }
      const { actorKind, actor, actorName, ip, userAgent } = auditBy(request);
      const result = await eraseCookieVisitor(db, vault, registry, user.tenantId, visitor, {
        actorKind,
        actor,
        actorName,
        ip,
        userAgent,
      });
      if (!result.erased || result.subject_id === null || result.erased_at === null) {
        return start(request, reply, { visitor, nothingKept: true });
      }
      // The page answers the form itself, with no redirect: the visitor id it names would
      // otherwise travel in the URL.
      const body = visitorErasureDone({
        visitor,
        choices: result.cookie_decisions,
        subjectId: result.subject_id,
        erasedAt: result.erased_at,
        zone: user.timeZone,
        mayView: mayView(request),
        mayAudit: user.permissions.has('audit_log:view'),
      });
      return cookiesPage(request, reply, 'Visitor erased', body);
    },
  );
}
