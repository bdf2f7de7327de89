import cookie from '@fastify/cookie';
import csrfProtection from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  accountOfSession,
  decoyHash,
  ensureOperator,
  findSession,
  keepFlash,
  missingFactor,
} from '../accounts/index.js';
import type { ChannelChangeWriter } from '../channels/index.js';
import type { ScanRunner } from '../cookie-scanner/index.js';
import type { OutsideProofs } from '../decision-log/index.js';
import type { PartnerBlockWriter } from '../partner-blocks/index.js';
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { createMailer } from '../platform/mail.js';
import type { ReadOn } from '../platform/replicas.js';
import type { NoteSigner } from '../proof/index.js';
import type { Registry } from '../record-kinds/index.js';
import type { DecisionPath } from '../requests/index.js';
import type { SubjectVault } from '../subjects/index.js';
import { keptFormMs } from './accounts/finish-sign-in.js';
import { linkRoutes } from './accounts/link-routes.js';
import { passkeyRoutes } from './accounts/passkey-routes.js';
import { accountRoutes, signInKeeping } from './accounts/routes.js';
import { sessionRoutes } from './accounts/session-routes.js';
import { twoFactorRoutes } from './accounts/two-factor-routes.js';
import { apiKeyRoutes } from './api-keys/routes.js';
import { auditRoutes } from './audit/routes.js';
import { channelPageRoutes } from './channels/routes.js';
import { cookiePageRoutes } from './cookies/routes.js';
import { customerRoutes } from './customers/routes.js';
import { dashboardRoutes } from './dashboard/routes.js';
import { decisionRoutes } from './decisions/routes.js';
import { exportRoutes } from './exports/routes.js';
import { logPageRoutes } from './log/routes.js';
import { operatorRoutes } from './operators/routes.js';
import { partnerRoutes } from './partners/routes.js';
import { preferenceCentreRoutes } from './preference-centre/routes.js';
import { processingRecordRoutes } from './processing-record/routes.js';
import { productRoutes } from './products/routes.js';
import { requestPageRoutes } from './requests/routes.js';
import { roleRoutes } from './roles/routes.js';
import { scimTokenRoutes } from './scim/routes.js';
import { settingsRoutes } from './settings/routes.js';
import { signInRuleRoutes } from './settings/sign-in-routes.js';
import { ssoSignInRoutes } from './sso/routes.js';
import { ssoSettingsRoutes } from './sso/settings-routes.js';
import { reviewRoutes } from './templates/review-routes.js';
import { templatePageRoutes } from './templates/routes.js';
import { tenantRecoveryRoutes } from './tenants/recovery-routes.js';
import { tenantAdminRoutes } from './tenants/routes.js';
import { userRoutes } from './users/routes.js';
import { assetRoutes } from './web/assets.js';
import { allows } from './web/context.js';
import { installErrorPages, setPageHeaders } from './web/errors.js';
import { html } from './web/html.js';
import { basePath, redirectTo } from './web/layout.js';
import { webhookRoutes } from './webhooks/routes.js';

export interface BackofficeOptions {
  db: Db;
  /**
   * Where the lists and downloads of records read (decisions, visitors' cookie decisions,
   * controls): a caught-up replica with `DATABASE_READ_URL`, else `db` (docs/scaling.md, "Read
   * replicas").
   */
  readOn: ReadOn;
  config: Config;
  /** The decision log's signing key (for the log page's key and empty checkpoint). */
  signer: NoteSigner;
  /** Opens customers' personal data, and erases it. */
  vault: SubjectVault;
  /** The kinds of record the service keeps (src/app/kinds.ts). */
  registry: Registry;
  /** Records the partner blocks a user sets on a decision (the hot path's writer). */
  partnerBlocks: PartnerBlockWriter;
  /** Runs an integration pass of the decision log now (an evidence pack's records first). */
  kick: () => Promise<void>;
  /** Witnesses and time-stamping authorities, whose proofs join an evidence pack. */
  outside?: OutsideProofs;
  /** Records a customer's channel change made on their page (the hot path's writer). */
  channelWriter: ChannelChangeWriter;
  /** Adds this instance's counts of refused origins to the store now (a system's page). */
  flushRefusedOrigins: () => Promise<void>;
  /** Records the withdrawals a withdrawal or objection request done makes (the hot path's writer). */
  decisions: DecisionPath;
  /** Runs the cookie scans started from a system's page, in the background. */
  scans: ScanRunner;
}

/**
 * The back-office web application under /backoffice: server-rendered pages that work without
 * scripts (htmx and a small script of its own only add to them).
 * Its own error pages, body parser, cookies and CSP stay inside this plugin; `/api` is untouched.
 */
export async function backoffice(
  app: FastifyInstance,
  {
    db,
    readOn,
    config,
    signer,
    vault,
    registry,
    partnerBlocks,
    channelWriter,
    kick,
    outside,
    flushRefusedOrigins,
    decisions,
    scans,
  }: BackofficeOptions,
) {
  // `__Host-` cookies are sent only over TLS, to this host, for every path: no subdomain can set
  // or overwrite them.
  const prefix = config.secureCookies ? '__Host-' : '';
  const cookies = {
    session: `${prefix}backoffice_session`,
    csrf: `${prefix}backoffice_csrf`,
    challenge: `${prefix}backoffice_challenge`,
    passkey: `${prefix}backoffice_passkey`,
  };

  const mailer = createMailer(config);
  if (mailer) app.addHook('onClose', async () => mailer.close());

  let operator: Promise<void> | undefined;
  const operatorReady = () => {
    operator ??= ensureOperator(db, config, app.log).catch((error: unknown) => {
      operator = undefined;
      app.log.error({ err: error }, 'could not make sure the back-office operator account exists');
    });
    return operator;
  };
  app.addHook('onReady', operatorReady);
  app.addHook('onReady', async () => {
    await decoyHash(config.passwordHashCost);
  });

  const sessionOf = async (request: FastifyRequest) =>
    (await findSession(db, request.cookies[cookies.session], {
      idleMinutes: config.sessionIdleMinutes,
      maxHours: config.sessionMaxHours,
    })) ?? null;

  await app.register(
    async (bo) => {
      // Cookies and form tokens here rather than on the pages alone: an error page (an unrouted
      // path's included) shows a signed-in user the navigation, with its sign-out form.
      await bo.register(cookie);
      await bo.register(csrfProtection, {
        cookieKey: cookies.csrf,
        cookieOpts: {
          path: '/',
          httpOnly: true,
          sameSite: 'strict',
          secure: config.secureCookies,
        },
      });
      installErrorPages(bo, config.secureCookies, async (request) => {
        // The pages' own hook has looked the session up: its answer stands.
        if (request.backofficeUser !== undefined) return request.backofficeUser;
        // A path no route serves is refused before any hook of the back-office runs.
        request.cookies ??= bo.parseCookie(request.headers.cookie ?? '');
        return sessionOf(request);
      });
      bo.addHook('onRequest', async (_request, reply) => {
        setPageHeaders(reply, config.secureCookies);
      });
      await bo.register(assetRoutes);

      await bo.register(async (pages) => {
        pages.addHook('onRequest', async (_request, reply) => {
          reply.header('cache-control', 'no-store');
        });
        // Forms only here: the API keeps answering 415 to anything but JSON.
        await pages.register(formbody);
        pages.decorateRequest('backofficeUser', null);
        pages.decorateRequest('backofficeSessionToken', null);
        pages.addHook('onRequest', async (request) => {
          request.backofficeUser = await sessionOf(request);
          request.backofficeSessionToken = request.backofficeUser
            ? (request.cookies[cookies.session] ?? null)
            : null;
        });
        pages.addHook('onRequest', checkAccess(cookies.session));
        // Every state-changing form: sent from a page of this site, with its form token.
        pages.addHook('preHandler', (request, reply, done) => {
          if (request.method === 'GET' || request.method === 'HEAD') return done();
          const site = request.headers['sec-fetch-site'];
          if (site !== undefined && site !== 'same-origin' && site !== 'none') {
            return done(new AppError('crossSiteForm'));
          }
          pages.csrfProtection(request, reply, done);
        });

        await pages.register(accountRoutes, { db, config, cookies, operatorReady });
        await pages.register(ssoSignInRoutes, { db, config, cookies, vault });
        await pages.register(sessionRoutes, { db, config });
        await pages.register(passkeyRoutes, { db, config, cookies });
        await pages.register(linkRoutes, { db, config, mailer });
        await pages.register(twoFactorRoutes, {
          db,
          config,
          cookies,
          secrets: vault.accountSecrets,
        });

        await pages.register(async (tenantPages) => {
          // A draft sent after its session ran out (its form token checked by now): kept under
          // that session until the same account signs in again, then its page shows it.
          tenantPages.addHook('preHandler', async (request, reply) => {
            const formPage = request.routeOptions.config.formPage;
            if (request.backofficeUser || !formPage) return;
            const page = `${basePath}${formPage(request)}`;
            const previous = request.cookies[cookies.session];
            if (!previous || !(await accountOfSession(db, previous))) {
              return redirectTo(reply, `/sign-in?next=${encodeURIComponent(page)}`);
            }
            const fields = { ...(request.body as Record<string, unknown>) };
            delete fields._csrf;
            await keepFlash(db, previous, `form:${page}`, JSON.stringify(fields), keptFormMs);
            return signInKeeping(reply, page);
          });
          await tenantPages.register(dashboardRoutes, { db });
          await tenantPages.register(userRoutes, {
            db,
            publicBaseUrl: config.publicBaseUrl,
            mailer,
            sessions: {
              idleMinutes: config.sessionIdleMinutes,
              maxHours: config.sessionMaxHours,
            },
          });
          await tenantPages.register(roleRoutes, { db });
          await tenantPages.register(settingsRoutes, { db });
          await tenantPages.register(signInRuleRoutes, { db });
          await tenantPages.register(ssoSettingsRoutes, {
            db,
            secrets: vault.accountSecrets,
            publicBaseUrl: config.publicBaseUrl,
          });
          await tenantPages.register(scimTokenRoutes, {
            db,
            publicBaseUrl: config.publicBaseUrl,
          });
          await tenantPages.register(processingRecordRoutes, { db });
          await tenantPages.register(preferenceCentreRoutes, {
            db,
            publicBaseUrl: config.publicBaseUrl,
            canMail: mailer !== undefined,
          });
          await tenantPages.register(productRoutes, { db });
          await tenantPages.register(partnerRoutes, { db });
          await tenantPages.register(requestPageRoutes, {
            db,
            vault,
            fulfil: { registry, decisions },
            publicBaseUrl: config.publicBaseUrl,
          });
          await tenantPages.register(channelPageRoutes, { db });
          await tenantPages.register(templatePageRoutes, { db });
          await tenantPages.register(reviewRoutes, {
            db,
            mailer,
            publicBaseUrl: config.publicBaseUrl,
          });
          await tenantPages.register(apiKeyRoutes, { db });
          await tenantPages.register(webhookRoutes, {
            db,
            vault,
            settings: config.webhooks,
            kinds: registry,
          });
          await tenantPages.register(customerRoutes, {
            db,
            vault,
            registry,
            signer,
            kick,
            channelWriter,
            ...(outside ? { outside } : {}),
          });
          await tenantPages.register(decisionRoutes, { db, readOn, vault, partnerBlocks });
          await tenantPages.register(cookiePageRoutes, {
            db,
            readOn,
            vault,
            registry,
            publicBaseUrl: config.publicBaseUrl,
            flushRefusedOrigins,
            scans,
          });
          await tenantPages.register(exportRoutes, { db, readOn, vault, registry });
          await tenantPages.register(auditRoutes, { db, scope: 'tenant' });
          await tenantPages.register(logPageRoutes, { db, signer, vault, registry });
        });

        await pages.register(tenantAdminRoutes, {
          db,
          publicBaseUrl: config.publicBaseUrl,
          mailer,
        });
        await pages.register(tenantRecoveryRoutes, {
          db,
          publicBaseUrl: config.publicBaseUrl,
          mailer,
        });
        await pages.register(operatorRoutes, {
          db,
          publicBaseUrl: config.publicBaseUrl,
          mailer,
        });
        await pages.register(auditRoutes, { db, scope: 'operator' });
      });
    },
    { prefix: basePath },
  );
}

/**
 * What each route declares it needs (`config.permission`), enforced before anything else runs.
 * A visitor is sent to sign in (and back after, to a page that exists for GET; told why when
 * their session ended); a signed-in user without the permission gets the 403 page. The live
 * preview (htmx) is answered a short message instead, and a draft's form is left to the hook
 * that keeps its text. A route that declares nothing is refused: access is never granted by
 * forgetting to say who may have it.
 */
function checkAccess(sessionCookie: string) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const access = request.routeOptions.config.permission;
    if (access === undefined) {
      request.log.error(
        { url: request.routeOptions.url },
        'back-office route declares no permission',
      );
      throw new AppError('forbidden');
    }
    if (access === 'public') return;
    const user = request.backofficeUser;
    if (!user) {
      if (request.headers['hx-request'] === 'true') return sessionEndedFragment(reply);
      if (request.method === 'POST' && request.routeOptions.config.formPage) return;
      const ended = request.cookies[sessionCookie] ? '&notice=expired' : '';
      return redirectTo(reply, `/sign-in?next=${encodeURIComponent(pageOf(request))}${ended}`);
    }
    // A role (or a team) that requires a second factor or a passkey: a user without it sets it up
    // before anything else. Single sign-on answers to the provider's own rules.
    const missing =
      user.kind === 'tenant' && user.signInMethod !== 'sso' && access !== 'self'
        ? missingFactor(user.signInRequirement, { totp: user.twoFactor, passkey: user.passkey })
        : null;
    if (missing === 'passkey') {
      if (request.method === 'GET') return redirectTo(reply, '/account/passkeys');
      throw new AppError('forbidden', {
        message: 'Your role signs in with a passkey: add one under Account first.',
      });
    }
    if (missing === 'second_factor') {
      if (request.method === 'GET') return redirectTo(reply, '/account/two-factor');
      throw new AppError('forbidden', {
        message: 'Your team requires two-factor sign-in: set it up under Account first.',
      });
    }
    if (allows(user, access)) return;
    if (access === 'operator') {
      throw new AppError('forbidden', { message: 'This page is for the operator.' });
    }
    if (user.kind !== 'tenant') {
      throw new AppError('forbidden', { message: 'This page is for tenants.' });
    }
    throw new AppError('forbidden', {
      message: `Your roles do not allow this (it needs the permission ${access}). An admin of your team can give it to you.`,
    });
  };
}

/** Where to come back to after signing in: this page, or for a form, its page when it has one. */
function pageOf(request: FastifyRequest): string {
  if (request.method === 'GET' || request.method === 'HEAD') return request.url;
  const path = request.url.split('?')[0] ?? '';
  return request.server.hasRoute({ method: 'GET', url: request.routeOptions.url ?? '' })
    ? path
    : `${basePath}/`;
}

/** What an htmx request gets when the session has ended: its target keeps the page's text. */
function sessionEndedFragment(reply: FastifyReply): FastifyReply {
  return reply
    .code(401)
    .type('text/html; charset=utf-8')
    .send(
      html`<p class="session-ended" role="alert"><strong>Your session has ended.</strong> The preview stops until you sign in again; your text stays here. Press Save: you are asked to sign in, then the form comes back with your text.</p>`
        .text,
    );
}
