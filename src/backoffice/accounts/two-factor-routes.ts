import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BackofficeUser } from '../../accounts/index.js';
import {
  checkSecondFactor,
  closeChallenge,
  codeAlreadyUsed,
  confirmEnrolment,
  enrolment,
  type FactorOwner,
  failSecondFactor,
  findChallenge,
  keepFlash,
  renewRecoveryCodes,
  type SecretBox,
  secondsUntilAllowed,
  takeFlash,
  throttleKeys,
  turnOffSecondFactor,
  twoFactorState,
} from '../../accounts/index.js';
import type { Config } from '../../platform/config.js';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { auditBy, sessionTokenOf, signedInUser, zoneOf } from '../web/context.js';
import { parseForm, queryOf } from '../web/forms.js';
import { csrfToken, redirectTo, sendPage } from '../web/layout.js';
import { type BackofficeCookies, signInFinisher } from './finish-sign-in.js';
import { CodeForm, codeFormOptions } from './schemas.js';
import { codeForm, enrolPage, recoveryCodesPage, twoFactorPage } from './two-factor-views.js';

/** A right code of the app whose time step was used already: the next one will do. */
const usedCode = 'This code was already used: wait for the next one in your app.';

/** The code typed, cut at 20 characters: a longer one fails like any wrong one. */
const codeOf = (body: unknown) =>
  (parseForm(CodeForm, body, codeFormOptions).input.code ?? '').slice(0, 20);

/** How long a secret being enrolled waits for its first code. */
const enrolmentMs = 10 * 60_000;
const pendingSecret = 'two-factor:pending';

export function ownerOf(user: BackofficeUser): FactorOwner {
  return user.kind === 'tenant'
    ? { kind: 'user', id: user.userId }
    : { kind: 'operator', id: user.operatorId };
}

/**
 * Two-factor sign-in: the code asked after a right password (`/sign-in/code`), and one's own
 * second factor (`/account/two-factor`): set up with a QR code and a first code, recovery codes
 * shown once, new recovery codes, turning it off (unless the tenant requires it).
 */
export async function twoFactorRoutes(
  app: FastifyInstance,
  o: { db: Db; config: Config; cookies: BackofficeCookies; secrets: SecretBox },
) {
  const { db, config, cookies, secrets } = o;
  const finishSignIn = signInFinisher(db, config, cookies);
  const limits = {
    perAccount: config.signInFailuresPerAccount,
    perAddress: config.signInFailuresPerAddress,
  };

  const showCode = (reply: FastifyReply, email: string, errors: string[], status = 200) =>
    sendPage(reply, {
      status,
      title: 'Two-factor sign-in',
      body: codeForm({ csrfToken: csrfToken(reply), email, errors }),
    });

  app.get('/sign-in/code', { config: { permission: 'public' } }, async (request, reply) => {
    const challenge = await findChallenge(db, request.cookies[cookies.challenge]);
    if (!challenge) return redirectTo(reply, '/sign-in?notice=code-expired');
    return showCode(reply, challenge.email, []);
  });

  app.post('/sign-in/code', { config: { permission: 'public' } }, async (request, reply) => {
    const challenge = await findChallenge(db, request.cookies[cookies.challenge]);
    if (!challenge) return redirectTo(reply, '/sign-in?notice=code-expired');
    const keys = throttleKeys(challenge.email, request.ip, limits);
    const wait = await secondsUntilAllowed(db, keys);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      return showCode(
        reply,
        challenge.email,
        [`Too many wrong codes. Try again in ${wait} seconds.`],
        429,
      );
    }
    const typed = codeOf(request.body);
    const factor = await db
      .transaction()
      .execute(async (trx) =>
        typed ? checkSecondFactor(trx, secrets, challenge.account, typed) : undefined,
      );
    if (factor && (await closeChallenge(db, challenge.idHash))) {
      return finishSignIn(request, reply, { ...challenge, secondFactor: factor }, challenge.next);
    }
    const actor = {
      ...auditBy(request, challenge.tenantId),
      actor: challenge.email,
      actorName: challenge.name,
    };
    const left = await db
      .transaction()
      .execute((trx) => failSecondFactor(trx, challenge.idHash, keys, actor));
    if (left <= 0) {
      reply.clearCookie(cookies.challenge, { path: '/' });
      return redirectTo(reply, '/sign-in?notice=code-expired');
    }
    const why = (await codeAlreadyUsed(db, secrets, challenge.account, typed))
      ? usedCode
      : 'This code is not right.';
    return showCode(
      reply,
      challenge.email,
      [`${why} ${left} attempt${left === 1 ? '' : 's'} left.`],
      401,
    );
  });

  /** The app's code is what meets the team's or role's second factor: a passkey would too. */
  const requiredFor = (user: BackofficeUser) =>
    user.kind === 'tenant' && user.signInRequirement === 'second_factor' && !user.passkey;

  const showOwn = async (
    request: FastifyRequest,
    reply: FastifyReply,
    errors: string[] = [],
    status = 200,
  ) => {
    const user = signedInUser(request);
    const state = await twoFactorState(db, ownerOf(user));
    return sendPage(reply, {
      status,
      title: 'Two-factor sign-in',
      section: 'account',
      user,
      csrfToken: csrfToken(reply),
      notice: queryOf(request.query, 'notice') === 'off' ? 'Two-factor sign-in is off.' : undefined,
      body: twoFactorPage({
        csrfToken: csrfToken(reply),
        state,
        required: requiredFor(user),
        zone: zoneOf(request),
        errors,
      }),
    });
  };

  app.get('/account/two-factor', { config: { permission: 'self' } }, (request, reply) =>
    showOwn(request, reply),
  );

  const showEnrolment = async (
    request: FastifyRequest,
    reply: FastifyReply,
    secret: string,
    error?: string,
  ) => {
    const user = signedInUser(request);
    await keepFlash(db, sessionTokenOf(request), pendingSecret, secret, enrolmentMs);
    const { qrSvg } = await enrolment(user.email, secret);
    return sendPage(reply, {
      status: error ? 400 : 200,
      title: 'Set up two-factor sign-in',
      section: 'account',
      user,
      csrfToken: csrfToken(reply),
      body: enrolPage({ csrfToken: csrfToken(reply), secret, qrSvg, ...(error ? { error } : {}) }),
    });
  };

  app.post(
    '/account/two-factor/setup',
    { config: { permission: 'self' } },
    async (request, reply) =>
      showEnrolment(request, reply, (await enrolment(signedInUser(request).email)).secret),
  );

  app.post(
    '/account/two-factor/confirm',
    { config: { permission: 'self' } },
    async (request, reply) => {
      const user = signedInUser(request);
      const secret = await takeFlash(db, sessionTokenOf(request), pendingSecret);
      if (secret === undefined) return redirectTo(reply, '/account/two-factor');
      let codes: string[];
      try {
        codes = await db
          .transaction()
          .execute((trx) =>
            confirmEnrolment(
              trx,
              secrets,
              ownerOf(user),
              secret,
              codeOf(request.body),
              auditBy(request),
            ),
          );
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 400) throw error;
        return showEnrolment(request, reply, secret, error.message);
      }
      return sendPage(reply, {
        title: 'Recovery codes',
        section: 'account',
        user,
        csrfToken: csrfToken(reply),
        body: recoveryCodesPage(codes, true),
      });
    },
  );

  /** A code from the app (or a recovery code) confirms a change to one's second factor. */
  const confirmedBy = (request: FastifyRequest) =>
    db
      .transaction()
      .execute((trx) =>
        checkSecondFactor(trx, secrets, ownerOf(signedInUser(request)), codeOf(request.body)),
      );

  /** Why a code did not confirm a change: used already, or not right. */
  const refusedCode = async (request: FastifyRequest) =>
    (await codeAlreadyUsed(db, secrets, ownerOf(signedInUser(request)), codeOf(request.body)))
      ? usedCode
      : 'This code is not right.';

  app.post(
    '/account/two-factor/recovery-codes',
    { config: { permission: 'self' } },
    async (request, reply) => {
      const user = signedInUser(request);
      if (!(await confirmedBy(request))) {
        return showOwn(request, reply, [await refusedCode(request)], 400);
      }
      const codes = await db
        .transaction()
        .execute((trx) => renewRecoveryCodes(trx, ownerOf(user), auditBy(request)));
      return sendPage(reply, {
        title: 'Recovery codes',
        section: 'account',
        user,
        csrfToken: csrfToken(reply),
        body: recoveryCodesPage(codes, false),
      });
    },
  );

  app.post(
    '/account/two-factor/disable',
    { config: { permission: 'self' } },
    async (request, reply) => {
      const user = signedInUser(request);
      if (requiredFor(user)) {
        return showOwn(request, reply, ['Your team requires two-factor sign-in.'], 409);
      }
      if (!(await confirmedBy(request))) {
        return showOwn(request, reply, [await refusedCode(request)], 400);
      }
      await db
        .transaction()
        .execute((trx) => turnOffSecondFactor(trx, ownerOf(user), auditBy(request)));
      return redirectTo(reply, '/account/two-factor?notice=off');
    },
  );
}
