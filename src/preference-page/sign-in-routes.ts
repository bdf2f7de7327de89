import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import type { Mailer } from '../platform/mail.js';
import { validate } from '../platform/validation.js';
import {
  anonymousFormToken,
  askSignInCode,
  customerAddress,
  emailSignInKey,
  isAnonymousFormToken,
  type PageLocale,
  type PreferenceSecrets,
  pagePath,
  type SessionClaims,
  useSignInCode,
} from '../preference-centre/index.js';
import type { SubjectVault } from '../subjects/index.js';
import { frameOf, type TenantFrame, tenantFrame } from './frame.js';
import { codePage, signInPage, signInRefusalPage } from './sign-in-views.js';
import { words } from './words.js';

/** What the sign-in pages share with the other pages of `routes.ts`. */
export interface SignInKit {
  db: Db;
  vault: SubjectVault;
  secrets: PreferenceSecrets;
  mailer: Mailer | undefined;
  secureCookies: boolean;
  cookieOptions: (
    request: FastifyRequest,
    alias: string,
  ) => { path: string; httpOnly: boolean; sameSite: 'none' | 'lax'; secure: boolean };
  pageLocale: (request: FastifyRequest) => PageLocale;
  send: (reply: FastifyReply, tenant: TenantFrame, status: number, body: string) => FastifyReply;
  renew: (
    request: FastifyRequest,
    reply: FastifyReply,
    tenant: TenantFrame,
    session: SessionClaims,
  ) => Promise<void>;
}

const AliasParams = Type.Object({ alias: Type.String({ minLength: 1, maxLength: 100 }) });
const csrf = Type.String({ minLength: 1, maxLength: 200 });
const SignInForm = Type.Object(
  { _csrf: csrf, email: Type.String({ maxLength: 320 }) },
  { additionalProperties: false },
);
const CodeForm = Type.Object(
  {
    _csrf: csrf,
    code_id: Type.String({ pattern: '^[0-9a-fA-F-]{36}$' }),
    email: Type.String({ maxLength: 320 }),
    code: Type.String({ maxLength: 20 }),
  },
  { additionalProperties: false },
);

/** The form cookie lives long enough to ask for a code and give it (a code lives 10 minutes). */
const formCookieSeconds = 30 * 60;
const formCookiePattern = /^[A-Za-z0-9_-]{43}$/;

/**
 * E-mail sign-in, for tenants whose customer ids are e-mail addresses: an address gets a
 * one-time code, the code a session as a link's. Every page here answers the same whether the
 * address is known, and the e-mail goes only after the answer has been sent.
 */
export async function signInRoutes(app: FastifyInstance, kit: SignInKit) {
  const { db, vault, secrets, mailer } = kit;
  const formCookie = kit.secureCookies ? '__Secure-preference_form' : 'preference_form';
  /** E-mails waiting for their request's answer to be sent. */
  const afterAnswer = new WeakMap<FastifyRequest, () => Promise<void>>();

  app.addHook('onResponse', async (request) => {
    const job = afterAnswer.get(request);
    if (!job) return;
    afterAnswer.delete(request);
    void job();
  });

  /** The tenant and its sign-in key; `404` when e-mail sign-in is off or nothing can send mail. */
  const signInTenant = async (request: FastifyRequest) => {
    const { alias } = validate(AliasParams, request.params);
    const tenant = await tenantFrame(db, alias);
    const keyId = mailer ? await emailSignInKey(db, tenant.id, tenant.settings) : undefined;
    if (keyId === undefined) throw new AppError('notFound');
    return { tenant, keyId };
  };

  /** A posted form's double-submit check, after the browser's own word on where it came from. */
  const checkForm = (request: FastifyRequest, token: string) => {
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      throw new AppError('crossSiteForm');
    }
    const value = request.cookies[formCookie];
    if (!value || !isAnonymousFormToken(secrets, value, token)) {
      throw new AppError('crossSiteForm');
    }
    return anonymousFormToken(secrets, value);
  };

  app.get('/:alias/sign-in', async (request, reply) => {
    const { tenant } = await signInTenant(request);
    const kept = request.cookies[formCookie];
    const value =
      kept && formCookiePattern.test(kept) ? kept : randomBytes(32).toString('base64url');
    reply.setCookie(formCookie, value, {
      ...kit.cookieOptions(request, tenant.alias),
      maxAge: formCookieSeconds,
    });
    return kit.send(
      reply,
      tenant,
      200,
      signInPage({
        frame: frameOf(tenant, kit.pageLocale(request)),
        base: pagePath(tenant.alias),
        formToken: anonymousFormToken(secrets, value),
        address: '',
        error: false,
      }),
    );
  });

  app.post('/:alias/sign-in', async (request, reply) => {
    const { tenant } = await signInTenant(request);
    const form = validate(SignInForm, request.body);
    const formToken = checkForm(request, form._csrf);
    const locale = kit.pageLocale(request);
    const frame = frameOf(tenant, locale);
    const base = pagePath(tenant.alias);
    const address = customerAddress(form.email);
    if (address === undefined) {
      const view = { frame, base, formToken, address: form.email.trim(), error: true };
      return kit.send(reply, tenant, 400, signInPage(view));
    }
    const asked = await askSignInCode(db, vault, secrets, tenant.id, address);
    if (asked.kind === 'limited') {
      const w = words[locale];
      return kit.send(reply, tenant, 429, signInRefusalPage(frame, base, w.tooMany, w.tooManyText));
    }
    if (asked.known && mailer) {
      const w = words[locale];
      afterAnswer.set(request, async () => {
        try {
          await mailer.send({
            to: address,
            subject: w.mailSubject(frame.name),
            text: w.mailText(frame.name, asked.code),
          });
        } catch (error) {
          // Neither the code nor the address: the log is no way in.
          const reason = error instanceof Error ? error.message : 'unknown';
          request.log.warn({ codeId: asked.codeId, reason }, 'could not e-mail a sign-in code');
        }
      });
    }
    const view = { frame, base, formToken, codeId: asked.codeId, address, error: undefined };
    return kit.send(reply, tenant, 200, codePage(view));
  });

  app.post('/:alias/code', async (request, reply) => {
    const { tenant, keyId } = await signInTenant(request);
    const form = validate(CodeForm, request.body);
    const formToken = checkForm(request, form._csrf);
    const locale = kit.pageLocale(request);
    const frame = frameOf(tenant, locale);
    const base = pagePath(tenant.alias);
    const address = customerAddress(form.email);
    if (address === undefined) throw new AppError('invalidRequest');
    const code = form.code.replace(/\s/g, '');
    const again = (error: 'notACode' | 'wrongCode') =>
      kit.send(
        reply,
        tenant,
        400,
        codePage({ frame, base, formToken, codeId: form.code_id, address, error }),
      );
    if (!/^[0-9]{6}$/.test(code)) return again('notACode');
    const used = await useSignInCode(
      db,
      vault,
      secrets,
      tenant.id,
      keyId,
      { codeId: form.code_id, address, code },
      { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, locale },
    );
    if (used.ok) {
      await kit.renew(request, reply, tenant, used.session);
      reply.clearCookie(formCookie, { path: base });
      return reply.redirect(base, 303);
    }
    if (!used.dead) return again('wrongCode');
    const w = words[locale];
    // As a link's: gone (410) for a code that was good once, bad (400) for one that never was.
    const gone = used.why !== 'unknown' && used.why !== 'other-address';
    return kit.send(
      reply,
      tenant,
      gone ? 410 : 400,
      signInRefusalPage(frame, base, w.codeRefused, w.codeRefusedText),
    );
  });
}
