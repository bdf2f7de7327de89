/**
 * Passkeys: one's own (`/account/passkeys`: add with the browser, rename, remove) and signing in
 * with one (`/sign-in/passkey`). Each ceremony's challenge is kept as a flash for five minutes and
 * taken once: the account's own under its session, a sign-in's under a cookie of its own.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  type Account,
  addPasskey,
  type BackofficeUser,
  checkPasskeySignIn,
  keepFlash,
  listPasskeys,
  passkeyNameLength,
  recordFailedPasskeySignIn,
  registrationOptions,
  relyingPartyOf,
  removePasskey,
  renamePasskey,
  secondsUntilAllowed,
  signInOptions,
  takeFlash,
} from '../../accounts/index.js';
import type { Config } from '../../platform/config.js';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { uuidPattern } from '../../platform/ids.js';
import { admitPasswordSignIn } from '../../sso/index.js';
import { auditBy, sessionTokenOf, signedInUser, zoneOf } from '../web/context.js';
import { parseForm, queryOf } from '../web/forms.js';
import { csrfToken, redirectTo, sendPage } from '../web/layout.js';
import { type BackofficeCookies, signInFinisher } from './finish-sign-in.js';
import { passkeysPage } from './passkey-views.js';
import { signInForm } from './views.js';

/** How long a ceremony's challenge waits for the browser's answer. */
const ceremonyMs = 5 * 60_000;
const registering = 'passkey:registration';
const signingIn = 'passkey:sign-in';

/** The browser's answer, as JSON text: a passkey's is a few hundred bytes, a long one a few KB. */
const Credential = Type.String({ minLength: 2, maxLength: 32_768 });
const AddForm = Type.Object({
  credential: Credential,
  name: Type.String({ maxLength: passkeyNameLength }),
});
const NameForm = Type.Object({ name: Type.String({ maxLength: passkeyNameLength }) });
const SignInForm = Type.Object({ credential: Credential, next: Type.String() });
const PasskeyParams = Type.Object({ id: Type.String({ pattern: uuidPattern }) });

const accountOf = (user: BackofficeUser): Account =>
  user.kind === 'tenant'
    ? { kind: 'user', id: user.userId }
    : { kind: 'operator', id: user.operatorId };

/** The browser's answer, parsed; anything that is not a JSON object is no answer. */
function answerOf(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

const notices: Record<string, string> = {
  added: 'Passkey added. You can sign in with it from now on.',
  renamed: 'Passkey renamed.',
  removed: 'Passkey removed: it no longer signs you in.',
};

export async function passkeyRoutes(
  app: FastifyInstance,
  o: { db: Db; config: Config; cookies: BackofficeCookies },
) {
  const { db, config, cookies } = o;
  const party = relyingPartyOf(config.publicBaseUrl);
  const finishSignIn = signInFinisher(db, config, cookies);

  const showOwn = async (
    request: FastifyRequest,
    reply: FastifyReply,
    problems: { errors?: string[]; fieldErrors?: Record<string, string> } = {},
    status = 200,
  ) => {
    const user = signedInUser(request);
    const notice = notices[queryOf(request.query, 'notice')];
    return sendPage(reply, {
      status,
      title: 'Passkeys',
      section: 'account',
      user,
      csrfToken: csrfToken(reply),
      ...(notice ? { notice } : {}),
      body: passkeysPage({
        csrfToken: csrfToken(reply),
        passkeys: await listPasskeys(db, accountOf(user)),
        required: user.kind === 'tenant' && user.signInRequirement === 'passkey' && !user.passkey,
        zone: zoneOf(request),
        ...problems,
      }),
    });
  };

  /** A change the service refused (`AppError` 400, 404, 409): said on the page. */
  const refusedOn = async (
    request: FastifyRequest,
    reply: FastifyReply,
    act: () => Promise<unknown>,
    done: string,
  ) => {
    try {
      await act();
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      return showOwn(request, reply, { errors: [error.message] }, error.status);
    }
    return redirectTo(reply, `/account/passkeys?notice=${done}`);
  };

  app.get('/account/passkeys', { config: { permission: 'self' } }, (request, reply) =>
    showOwn(request, reply),
  );

  app.post('/account/passkeys/options', { config: { permission: 'self' } }, async (request) => {
    const user = signedInUser(request);
    const options = await registrationOptions(db, party, accountOf(user), user.email, user.name);
    await keepFlash(db, sessionTokenOf(request), registering, options.challenge, ceremonyMs);
    return options;
  });

  app.post('/account/passkeys', { config: { permission: 'self' } }, async (request, reply) => {
    const user = signedInUser(request);
    const form = parseForm(AddForm, request.body, {
      messages: { name: `At most ${passkeyNameLength} characters.` },
    });
    if (!form.ok) return showOwn(request, reply, { fieldErrors: form.refusal.fields }, 400);
    const challenge = await takeFlash(db, sessionTokenOf(request), registering);
    const response = answerOf(form.values.credential);
    if (challenge === undefined || response === undefined) {
      return showOwn(
        request,
        reply,
        { errors: ['The passkey was not added in time. Try again.'] },
        400,
      );
    }
    return refusedOn(
      request,
      reply,
      () =>
        db
          .transaction()
          .execute((trx) =>
            addPasskey(
              trx,
              party,
              accountOf(user),
              { challenge, response, name: form.values.name },
              auditBy(request),
            ),
          ),
      'added',
    );
  });

  app.post<{ Params: { id: string } }>(
    '/account/passkeys/:id/rename',
    { config: { permission: 'self' }, schema: { params: PasskeyParams } },
    async (request, reply) => {
      const user = signedInUser(request);
      const form = parseForm(NameForm, request.body, { messages: {} });
      const name = form.ok ? form.values.name : '';
      return refusedOn(
        request,
        reply,
        () =>
          db
            .transaction()
            .execute((trx) =>
              renamePasskey(trx, accountOf(user), request.params.id, name, auditBy(request)),
            ),
        'renamed',
      );
    },
  );

  app.post<{ Params: { id: string } }>(
    '/account/passkeys/:id/remove',
    { config: { permission: 'self' }, schema: { params: PasskeyParams } },
    async (request, reply) => {
      const user = signedInUser(request);
      const keeps = {
        requirement: user.kind === 'tenant' ? user.signInRequirement : null,
        totp: user.twoFactor,
      };
      return refusedOn(
        request,
        reply,
        () =>
          db
            .transaction()
            .execute((trx) =>
              removePasskey(trx, accountOf(user), request.params.id, keeps, auditBy(request)),
            ),
        'removed',
      );
    },
  );

  // Signing in

  const refuseSignIn = (reply: FastifyReply, next: string, error: string, status: number) =>
    sendPage(reply, {
      status,
      title: 'Sign in',
      body: signInForm({ csrfToken: csrfToken(reply), email: '', next, errors: [error] }),
    });

  app.post('/sign-in/passkey/options', { config: { permission: 'public' } }, async (_, reply) => {
    const token = randomBytes(32).toString('base64url');
    const options = await signInOptions(party);
    await keepFlash(db, token, signingIn, options.challenge, ceremonyMs);
    reply.setCookie(cookies.passkey, token, {
      path: '/',
      httpOnly: true,
      sameSite: 'strict',
      secure: config.secureCookies,
    });
    return options;
  });

  app.post('/sign-in/passkey', { config: { permission: 'public' } }, async (request, reply) => {
    const form = parseForm(SignInForm, request.body, { messages: {} });
    const next = form.input.next ?? '';
    const token = request.cookies[cookies.passkey];
    reply.clearCookie(cookies.passkey, { path: '/' });
    const challenge = token ? await takeFlash(db, token, signingIn) : undefined;
    const response = form.ok ? answerOf(form.values.credential) : undefined;
    if (challenge === undefined || response === undefined) {
      return refuseSignIn(
        reply,
        next,
        'The passkey sign-in was not finished in time. Try again.',
        400,
      );
    }
    const keys = [{ key: `address:${request.ip}`, limit: config.signInFailuresPerAddress }].filter(
      (k) => k.limit > 0,
    );
    const wait = await secondsUntilAllowed(db, keys);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      return refuseSignIn(
        reply,
        next,
        `Too many failed sign-ins. Try again in ${wait} seconds.`,
        429,
      );
    }
    const outcome = await db
      .transaction()
      .execute((trx) => checkPasskeySignIn(trx, party, { challenge, response }));
    if (!outcome.ok) {
      const holder = outcome.reason === 'unknown_passkey' ? undefined : outcome.holder;
      const actor = holder
        ? { ...auditBy(request, holder.tenantId), actor: holder.email, actorName: holder.name }
        : null;
      await db
        .transaction()
        .execute((trx) => recordFailedPasskeySignIn(trx, keys, actor, outcome.reason));
      return refuseSignIn(
        reply,
        next,
        outcome.reason === 'unknown_passkey'
          ? 'This passkey is not registered here (it may have been removed). Sign in with your password.'
          : 'This passkey was not accepted (or the account is disabled).',
        401,
      );
    }
    const { holder } = outcome;
    // A tenant that requires single sign-on lets in by a passkey, too, only its break-glass user.
    if (
      holder.tenantId !== null &&
      holder.account.kind === 'user' &&
      !(await admitPasswordSignIn(db, holder.tenantId, holder.account.id, {
        ...auditBy(request, holder.tenantId),
        actor: holder.email,
      }))
    ) {
      return refuseSignIn(
        reply,
        next,
        'Your organisation signs you in with single sign-on: use “Sign in with single sign-on” below.',
        403,
      );
    }
    return finishSignIn(request, reply, { ...holder, method: 'passkey' }, next);
  });
}
