import { create as contentDisposition } from 'content-disposition';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import { downloadEvidencePack, type PackContext } from '../evidence/index.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Mailer } from '../platform/mail.js';
import { validate } from '../platform/validation.js';
import {
  type ChangeResult,
  customerOverview,
  decideOnPage,
  emailSignInKey,
  formToken,
  isFormToken,
  type LinkRefusal,
  openPreferenceLink,
  openSession,
  type PageLocale,
  type PreferenceSecrets,
  type PreferenceWriters,
  pagePath,
  type SessionClaims,
  sealSession,
  setChannelOnPage,
  setPartnerOnPage,
  templateOverviews,
} from '../preference-centre/index.js';
import { customerRequests, openRequest, requestKindNames } from '../requests/index.js';
import { findSubjectId } from '../subjects/index.js';
import { frameOf, type TenantFrame, tenantFrame } from './frame.js';
import { localeOf } from './locale.js';
import { signInRoutes } from './sign-in-routes.js';
import { messagePage, overviewPage, withdrawPage } from './views.js';
import { words } from './words.js';

export interface PageRouteOptions {
  writers: PreferenceWriters;
  secrets: PreferenceSecrets;
  evidence: PackContext;
  /** Cookies carry `Secure` (always when the page is framed, which needs `SameSite=None`). */
  secureCookies: boolean;
  /** Sends e-mail sign-in codes; none without `SMTP_URL`, and then there is no e-mail sign-in. */
  mailer: Mailer | undefined;
}

/** A session idles out after this long without a page, and ends after `maxMs` whatever. */
const idleMs = 15 * 60 * 1000;
const maxMs = 2 * 60 * 60 * 1000;

const AliasParams = Type.Object({ alias: Type.String({ minLength: 1, maxLength: 100 }) });
const OpenQuery = Type.Object({ token: Type.Optional(Type.String({ maxLength: 4096 })) });
const csrf = Type.String({ minLength: 1, maxLength: 200 });
const DecisionForm = Type.Object(
  {
    _csrf: csrf,
    version_id: Type.String({ pattern: '^[0-9a-fA-F-]{36}$' }),
    decision: Type.Union([Type.Literal('given'), Type.Literal('withdraw')]),
    form_id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,200}$' }),
    /** The separate tick of a consent to sensitive data. */
    explicit: Type.Optional(Type.Literal('true')),
  },
  { additionalProperties: false },
);
const ChannelForm = Type.Object(
  {
    _csrf: csrf,
    product_code: Type.String({ minLength: 1, maxLength: 100 }),
    channel: Type.String({ minLength: 1, maxLength: 100 }),
    blocked: Type.Union([Type.Literal('true'), Type.Literal('false')]),
  },
  { additionalProperties: false },
);
const PartnerForm = Type.Object(
  {
    _csrf: csrf,
    decision_id: Type.String({ pattern: '^[0-9a-fA-F-]{36}$' }),
    partner_code: Type.String({ minLength: 1, maxLength: 100 }),
    blocked: Type.Union([Type.Literal('true'), Type.Literal('false')]),
  },
  { additionalProperties: false },
);
const TokenForm = Type.Object({ _csrf: csrf }, { additionalProperties: false });
const RequestForm = Type.Object(
  {
    _csrf: csrf,
    kind: Type.Enum(requestKindNames),
    details: Type.Optional(Type.String({ maxLength: 4000 })),
  },
  { additionalProperties: false },
);
const WithdrawQuery = Type.Object(
  { template: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);
const NoticeQuery = Type.Object({
  done: Type.Optional(Type.String({ maxLength: 40 })),
  record: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F-]{36}$' })),
});

/** The pages of a tenant's preference centre, under `/preferences/{alias}`. */
export async function pageRoutes(app: FastifyInstance, options: PageRouteOptions) {
  const { writers, secrets, evidence } = options;
  const { db } = writers;

  const cookieName = options.secureCookies ? '__Secure-preference_session' : 'preference_session';

  /**
   * The cookie's attributes: only this tenant's pages get it, never a script. In a frame on the
   * tenant's site, it is sent cross-site only with `SameSite=None`, which needs `Secure`, and
   * kept in that site's partition alone (CHIPS).
   */
  const cookieOptions = (request: FastifyRequest, alias: string) => {
    const framed = request.headers['sec-fetch-dest'] === 'iframe';
    return {
      path: pagePath(alias),
      httpOnly: true,
      sameSite: framed ? ('none' as const) : ('lax' as const),
      secure: framed || options.secureCookies,
      ...(framed ? { partitioned: true } : {}),
    };
  };

  /** The session of this tenant's page, or undefined: none, altered, idle, too old, another's. */
  const sessionOf = async (request: FastifyRequest, tenant: TenantFrame) => {
    const cookie = request.cookies[cookieName];
    if (!cookie) return undefined;
    const now = new Date();
    const session = await openSession(secrets, cookie, now);
    if (!session || session.tenantId !== tenant.id) return undefined;
    if (now.getTime() - session.startedAt.getTime() > maxMs) return undefined;
    return session;
  };

  /** Keeps the session alive for another idle period (each page shown renews it). */
  const renew = async (
    request: FastifyRequest,
    reply: FastifyReply,
    tenant: TenantFrame,
    session: SessionClaims,
  ) => {
    const idleUntil = new Date(Math.min(Date.now() + idleMs, session.startedAt.getTime() + maxMs));
    reply.setCookie(cookieName, await sealSession(secrets, session, idleUntil), {
      ...cookieOptions(request, tenant.alias),
      expires: idleUntil,
    });
  };

  const send = (reply: FastifyReply, tenant: TenantFrame, status: number, body: string) => {
    // The tenant's origins may frame the page: `frame-ancestors` says which, and the service's
    // `X-Frame-Options: SAMEORIGIN` would refuse them all.
    if (tenant.settings.allowedOrigins.length > 0) reply.removeHeader('x-frame-options');
    return reply.code(status).headers(tenant.headers).type('text/html; charset=utf-8').send(body);
  };

  /** The page every request without a live session gets: nothing of any customer on it. */
  const ended = async (request: FastifyRequest, reply: FastifyReply, tenant: TenantFrame) => {
    const { locale } = localeOf(request);
    const w = words[locale];
    const frame = frameOf(tenant, locale);
    return send(
      reply,
      tenant,
      401,
      messagePage(frame, w.sessionEnded, w.sessionEndedText, await signInOffer(tenant)),
    );
  };

  /** The way back in by e-mail, where the tenant offers it (and the service can send mail). */
  const signInOffer = async (tenant: TenantFrame) =>
    options.mailer && (await emailSignInKey(db, tenant.id, tenant.settings))
      ? `${pagePath(tenant.alias)}/sign-in`
      : undefined;

  /** A form of the page: this tenant's live session, and its token (sent from the page itself). */
  const formSession = async <S extends TSchema>(
    request: FastifyRequest,
    tenant: TenantFrame,
    schema: S,
  ): Promise<{ session: SessionClaims; form: Static<S> } | undefined> => {
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      throw new AppError('crossSiteForm');
    }
    const session = await sessionOf(request, tenant);
    if (!session) return undefined;
    const form = validate(schema, request.body);
    if (!isFormToken(secrets, session.sessionId, (form as { _csrf?: unknown })._csrf)) {
      throw new AppError('crossSiteForm');
    }
    return { session, form };
  };

  const customer = (request: FastifyRequest, session: SessionClaims) => ({
    session,
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
  });

  /** After a change: back to the page (a reload sends nothing again), saying what happened. */
  const after = (reply: FastifyReply, tenant: TenantFrame, result: ChangeResult, anchor = '') => {
    const query =
      result.kind === 'recorded'
        ? `done=recorded&record=${result.recordId}`
        : result.kind === 'unchanged'
          ? 'done=unchanged'
          : `done=${encodeURIComponent(result.reason)}`;
    return reply.redirect(`${pagePath(tenant.alias)}?${query}${anchor}`, 303);
  };

  await signInRoutes(app, {
    db,
    vault: writers.vault,
    secrets,
    mailer: options.mailer,
    secureCookies: options.secureCookies,
    cookieOptions,
    pageLocale: (request) => localeOf(request).locale,
    send,
    renew,
  });

  app.get('/:alias/open', async (request, reply) => {
    const { alias } = validate(AliasParams, request.params);
    const { token } = validate(OpenQuery, request.query);
    const tenant = await tenantFrame(db, alias);
    const opened = await openPreferenceLink(db, secrets, tenant.id, token ?? '', {
      ip: request.ip,
      userAgent: request.headers['user-agent'] ?? null,
    });
    if (!opened.ok) {
      const { locale } = localeOf(request);
      const w = words[locale];
      const texts: Record<LinkRefusal, string> = {
        reused: w.linkReused,
        expired: w.linkExpired,
        invalid: w.linkInvalid,
        'other-tenant': w.linkInvalid,
      };
      return send(
        reply,
        tenant,
        opened.why === 'invalid' || opened.why === 'other-tenant' ? 400 : 410,
        messagePage(frameOf(tenant, locale), w.linkRefused, texts[opened.why]),
      );
    }
    await renew(request, reply, tenant, opened.session);
    // The token leaves the address bar (and the history) at once.
    return reply.redirect(pagePath(tenant.alias), 303);
  });

  app.get('/:alias', async (request, reply) => {
    const { alias } = validate(AliasParams, request.params);
    const tenant = await tenantFrame(db, alias);
    const session = await sessionOf(request, tenant);
    if (!session) return ended(request, reply, tenant);
    const { requested, locale } = localeOf(request, session);
    const w = words[locale];
    const notice = noticeOf(w, validate(NoticeQuery, request.query));
    const overview = await customerOverview(
      db,
      writers.catalog,
      writers.vault,
      evidence.registry,
      tenant.id,
      session.customerId,
      requested,
      locale,
    );
    await renew(request, reply, tenant, session);
    return send(
      reply,
      tenant,
      200,
      overviewPage({
        frame: frameOf(tenant, locale),
        overview,
        formToken: formToken(secrets, session.sessionId),
        formId: newId(),
        notice,
        returnUrl: session.returnUrl,
        base: pagePath(tenant.alias),
        requests: await customerRequests(
          db,
          writers.vault,
          tenant.id,
          await findSubjectId(db, writers.vault, tenant.id, session.customerId),
        ),
      }),
    );
  });

  app.get('/:alias/withdraw', async (request, reply) => {
    const { alias } = validate(AliasParams, request.params);
    const tenant = await tenantFrame(db, alias);
    const session = await sessionOf(request, tenant);
    if (!session) return ended(request, reply, tenant);
    const { template: code } = validate(WithdrawQuery, request.query);
    const { requested, locale } = localeOf(request, session);
    const templates = await templateOverviews(
      db,
      writers.catalog,
      writers.vault,
      tenant.id,
      session.customerId,
      requested,
    );
    const template = templates.find((t) => t.code === code && t.consented);
    if (!template) return reply.redirect(`${pagePath(tenant.alias)}?done=nothingToWithdraw`, 303);
    await renew(request, reply, tenant, session);
    return send(
      reply,
      tenant,
      200,
      withdrawPage({
        frame: frameOf(tenant, locale),
        template,
        formToken: formToken(secrets, session.sessionId),
        formId: newId(),
        base: pagePath(tenant.alias),
      }),
    );
  });

  /**
   * A form of the page, posted under the tenant's alias: handled only with this tenant's live
   * session and the session's form token (else the page of a session ended, or a refusal).
   */
  const onForm = <S extends TSchema>(
    path: string,
    schema: S,
    handle: (
      request: FastifyRequest,
      reply: FastifyReply,
      tenant: TenantFrame,
      sent: { session: SessionClaims; form: Static<S> },
    ) => Promise<FastifyReply>,
  ) =>
    app.post(path, async (request, reply) => {
      const { alias } = validate(AliasParams, request.params);
      const tenant = await tenantFrame(db, alias);
      const sent = await formSession(request, tenant, schema);
      if (!sent) return ended(request, reply, tenant);
      return handle(request, reply, tenant, sent);
    });

  onForm('/:alias/decisions', DecisionForm, async (request, reply, tenant, sent) => {
    const { form } = sent;
    // The act recorded is the tick and the sentence the page showed next to it, in its language.
    const { locale } = localeOf(request, sent.session);
    const result = await decideOnPage(writers, customer(request, sent.session), {
      versionId: form.version_id,
      decision: form.decision,
      formId: form.form_id,
      explicit:
        form.explicit === 'true' && form.decision === 'given'
          ? { method: 'separate-tick', text_shown: words[locale].explicitConfirm }
          : undefined,
    });
    return after(reply, tenant, result);
  });

  onForm('/:alias/channels', ChannelForm, async (request, reply, tenant, sent) => {
    const { form } = sent;
    const result = await setChannelOnPage(writers, customer(request, sent.session), {
      productCode: form.product_code,
      channel: form.channel,
      blocked: form.blocked === 'true',
    });
    return after(reply, tenant, result, '#channels-title');
  });

  onForm('/:alias/partners', PartnerForm, async (request, reply, tenant, sent) => {
    const { form } = sent;
    const result = await setPartnerOnPage(writers, customer(request, sent.session), {
      decisionId: form.decision_id,
      partnerCode: form.partner_code,
      blocked: form.blocked === 'true',
    });
    return after(reply, tenant, result);
  });

  onForm('/:alias/evidence', TokenForm, async (request, reply, tenant, sent) => {
    const { session } = sent;
    try {
      const pack = await downloadEvidencePack(evidence, tenant.id, session.customerId, {
        tenantId: tenant.id,
        actorKind: 'customer',
        actor: session.sessionId,
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
      });
      return reply
        .type('application/zip')
        .header('content-disposition', contentDisposition(pack.fileName))
        .send(Buffer.from(pack.bytes));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.kind === 'notFound')
        return after(reply, tenant, { kind: 'refused', reason: 'noPack' });
      if (error.kind === 'unavailable') {
        return after(reply, tenant, { kind: 'refused', reason: 'packNotReady' });
      }
      throw error;
    }
  });

  onForm('/:alias/requests', RequestForm, async (request, reply, tenant, sent) => {
    const { session, form } = sent;
    const details = form.details?.trim();
    await openRequest(
      db,
      writers.vault,
      {
        tenantId: tenant.id,
        apiKeyId: session.apiKeyId,
        userId: null,
        via: 'preference-centre',
        auditedAs: {
          tenantId: tenant.id,
          actorKind: 'customer',
          actor: session.sessionId,
          ip: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
        },
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
      },
      { customerId: session.customerId, kind: form.kind, details: details || undefined },
    );
    return reply.redirect(`${pagePath(tenant.alias)}?done=requestOpened#requests-title`, 303);
  });

  app.post('/:alias/sign-out', async (request, reply) => {
    const { alias } = validate(AliasParams, request.params);
    const tenant = await tenantFrame(db, alias);
    const sent = await formSession(request, tenant, TokenForm);
    const { locale } = localeOf(request, sent?.session);
    const w = words[locale];
    reply.clearCookie(cookieName, cookieOptions(request, tenant.alias));
    return send(
      reply,
      tenant,
      200,
      messagePage(frameOf(tenant, locale), w.signedOut, w.signedOutText, await signInOffer(tenant)),
    );
  });
}

const refusals = [
  'nothingToWithdraw',
  'reconsentNotAllowed',
  'explicitConsentRequired',
  'representationRefused',
  'noPack',
  'packNotReady',
] as const;

function noticeOf(
  w: (typeof words)[PageLocale],
  query: { done?: string | undefined; record?: string | undefined },
): { text: string; warn: boolean } | undefined {
  if (query.done === 'recorded' && query.record) {
    return { text: `${w.recorded} ${query.record}`, warn: false };
  }
  if (query.done === 'unchanged') return { text: w.unchanged, warn: false };
  if (query.done === 'requestOpened') return { text: w.requestOpened, warn: false };
  const refusal = refusals.find((r) => r === query.done);
  if (refusal) return { text: w[refusal], warn: true };
  if (query.done !== undefined) return { text: w.refused, warn: true };
  return undefined;
}
