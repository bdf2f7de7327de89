/**
 * Signing in to the back-office through a tenant's identity provider (docs/team.md, "Single
 * sign-on"): the page that asks for the organisation, the start (a redirect to the provider, the
 * pending sign-in in a cookie of its own) and the callback, which ends as a password's sign-in
 * does (`signInFinisher`), the session saying it came by single sign-on.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../../platform/config.js';
import type { Db } from '../../platform/db.js';
import {
  finishSso,
  pendingKey,
  pendingSeconds,
  providerSignOutUrl,
  type SsoContext,
  type SsoFailure,
  startSso,
} from '../../sso/index.js';
import type { SubjectVault } from '../../subjects/index.js';
import { getTenantByAlias } from '../../tenants/index.js';
import { type BackofficeCookies, safeNext, signInFinisher } from '../accounts/finish-sign-in.js';
import { queryOf } from '../web/forms.js';
import { basePath, sendPage } from '../web/layout.js';
import { continueLink, failurePage, noProviderSignOut, organisationForm } from './views.js';

/**
 * The page's status: the provider not answering is the service's `503`; a sign-in that is no
 * longer pending, or an answer that failed its checks, a bad request; a person refused, `403`.
 */
const statusOf: Record<SsoFailure, number> = {
  'not-configured': 404,
  'provider-unavailable': 503,
  'invalid-response': 400,
  expired: 400,
  'no-email': 403,
  'email-unverified': 403,
  'unknown-user': 403,
  'other-tenant': 403,
  disabled: 403,
  'no-role': 403,
  'last-admin': 403,
};

/** The pending sign-in's cookie: only the callback reads it. */
const pendingCookie = 'consent_sso';
const cookiePath = `${basePath}/sso`;

export async function ssoSignInRoutes(
  app: FastifyInstance,
  o: { db: Db; config: Config; cookies: BackofficeCookies; vault: SubjectVault },
): Promise<void> {
  const { db, config } = o;
  const finishSignIn = signInFinisher(db, config, o.cookies);
  const ctx: SsoContext = {
    db,
    secrets: o.vault.accountSecrets,
    pendingKey: pendingKey(o.vault.dataKey),
    redirectUri: `${config.publicBaseUrl}${basePath}/sso/callback`,
  };
  const clientOf = (request: { ip: string; headers: Record<string, unknown> }) => ({
    ip: request.ip,
    userAgent: (request.headers['user-agent'] as string | undefined) ?? null,
  });
  const fail = (reply: FastifyReply, failure: SsoFailure) =>
    sendPage(reply, {
      status: statusOf[failure],
      title: 'Single sign-on',
      body: failurePage(failure),
    });

  app.get('/sso', { config: { permission: 'public' } }, async (request, reply) => {
    const organisation = queryOf(request.query, 'organisation').trim().slice(0, 64);
    const next = queryOf(request.query, 'next');
    if (organisation === '') {
      return sendPage(reply, {
        title: 'Single sign-on',
        body: organisationForm({ organisation, next, errors: [] }),
      });
    }
    // A link, not a redirect: the back-office's `form-action 'self'` would stop a form's
    // redirects at the provider's origin. The link is also the one to keep.
    const query = safeNext(next) === undefined ? '' : `?next=${encodeURIComponent(next)}`;
    return sendPage(reply, {
      title: 'Single sign-on',
      body: continueLink(
        `${basePath}/sso/${encodeURIComponent(organisation.toLowerCase())}${query}`,
        organisation,
      ),
    });
  });

  app.get<{ Params: { alias: string } }>(
    '/sso/:alias',
    { config: { permission: 'public' } },
    async (request, reply) => {
      if (request.params.alias === 'callback') return reply.callNotFound();
      const tenant = await getTenantByAlias(db, request.params.alias.slice(0, 64)).catch(
        () => undefined,
      );
      const next = queryOf(request.query, 'next');
      if (!tenant || tenant.disabled_at !== null) {
        return sendPage(reply, {
          status: 404,
          title: 'Single sign-on',
          body: organisationForm({
            organisation: request.params.alias,
            next,
            errors: ['No organisation here has that name.'],
          }),
        });
      }
      const started = await startSso(
        ctx,
        tenant.id,
        safeNext(next) === undefined ? '' : next,
        clientOf(request),
      );
      if (!started.ok) return fail(reply, started.failure);
      reply.setCookie(pendingCookie, started.pending, {
        path: cookiePath,
        httpOnly: true,
        // Lax: the provider sends the browser back with a top-level GET from its own site.
        sameSite: 'lax',
        secure: config.secureCookies,
        maxAge: pendingSeconds,
      });
      return reply.redirect(started.url, 302);
    },
  );

  // After signing out here: on to the provider's end-session endpoint, when it has one
  // (RP-Initiated Logout), and back to the sign-in page.
  app.get<{ Params: { alias: string } }>(
    '/sso/:alias/sign-out',
    { config: { permission: 'public' } },
    async (request, reply) => {
      const tenant = await getTenantByAlias(db, request.params.alias.slice(0, 64)).catch(
        () => undefined,
      );
      const back = `${config.publicBaseUrl}${basePath}/sign-in?notice=signed-out`;
      const url = tenant && (await providerSignOutUrl(ctx, tenant.id, back));
      if (!url) {
        return sendPage(reply, {
          status: 404,
          title: 'Single sign-on',
          body: noProviderSignOut(),
        });
      }
      return reply.redirect(url, 302);
    },
  );

  app.get('/sso/callback', { config: { permission: 'public' } }, async (request, reply) => {
    const pending = request.cookies[pendingCookie];
    // Used once: a second visit of the same callback finds no pending sign-in.
    reply.clearCookie(pendingCookie, { path: cookiePath });
    const url = new URL(`${config.publicBaseUrl}${request.url}`);
    const done = await finishSso(ctx, pending, url, clientOf(request));
    if (!done.ok) return fail(reply, done.failure);
    return finishSignIn(
      request,
      reply,
      {
        account: done.account,
        email: done.email,
        name: done.name,
        tenantId: done.tenantId,
        method: 'sso',
      },
      done.next,
    );
  });
}
