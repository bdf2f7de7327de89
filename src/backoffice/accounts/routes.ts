import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BackofficeUser } from '../../accounts/index.js';
import {
  changePassword,
  checkSignIn,
  openChallenge,
  passwordHashOf,
  passwordSignInAdmitted,
  passwordWeakness,
  recordFailedSignIn,
  recordFailure,
  secondsUntilAllowed,
  sessionMethod,
  signOut,
  throttleKeys,
  twoFactorState,
} from '../../accounts/index.js';
import type { Actor } from '../../audit-trail/index.js';
import type { Config } from '../../platform/config.js';
import type { Db } from '../../platform/db.js';
import { admitPasswordSignIn } from '../../sso/index.js';
import { hashPassword, verifyPassword } from '../../tenants/index.js';
import { auditBy, signedInUser } from '../web/context.js';
import { parseForm, queryOf } from '../web/forms.js';
import { html } from '../web/html.js';
import { basePath, csrfToken, redirectTo, sendPage } from '../web/layout.js';
import { type BackofficeCookies, safeNext, signInFinisher } from './finish-sign-in.js';
import { PasswordForm, passwordFormOptions, SignInForm, signInFormOptions } from './schemas.js';
import { passwordForm, signInForm } from './views.js';

export interface AccountRouteOptions {
  db: Db;
  config: Config;
  cookies: BackofficeCookies;
  /** Resolves once the operator's account exists (made at start; retried here if that failed). */
  operatorReady: () => Promise<void>;
}

/**
 * Why a tenant's user whose password was right is not let in by it, audited: their tenant
 * requires single sign-on (and they are not its break-glass user), or their role signs in with
 * a passkey they have. Undefined: they go on.
 */
async function passwordRefusal(
  db: Db,
  tenantId: string,
  userId: string,
  actor: Actor,
): Promise<string | undefined> {
  if (!(await admitPasswordSignIn(db, tenantId, userId, actor))) {
    return 'Your organisation signs you in with single sign-on: use “Sign in with single sign-on” below.';
  }
  if (!(await passwordSignInAdmitted(db, tenantId, userId, actor))) {
    return 'Your role signs in with a passkey: press “Use a passkey” below.';
  }
  return undefined;
}

const homeOf = (user: BackofficeUser) =>
  user.kind === 'tenant' ? '/dashboard' : '/operator/tenants';

/**
 * The answer to a form sent after its session ran out (its form token already checked, its
 * fields kept under the old session by the caller): the sign-in page, then `next`, the page (for
 * GET) where the form comes back filled.
 */
export function signInKeeping(reply: FastifyReply, next: string): FastifyReply {
  return sendPage(reply, {
    status: 401,
    title: 'Sign in',
    notice:
      'Your session ended before this was saved. Sign in again: your text is kept and comes back in the form.',
    body: signInForm({ csrfToken: csrfToken(reply), email: '', next, errors: [] }),
  });
}

const notices: Record<string, string> = {
  'signed-out': 'You are signed out.',
  expired: 'Your session has ended. Please sign in again.',
  'password-set': 'Your password is set. Sign in with it.',
  'code-expired':
    'The sign-in was not finished in time, or too many codes were wrong. Sign in again.',
};

export async function accountRoutes(app: FastifyInstance, o: AccountRouteOptions): Promise<void> {
  const { db, config, cookies } = o;
  const finishSignIn = signInFinisher(db, config, cookies);
  const limits = {
    perAccount: config.signInFailuresPerAccount,
    perAddress: config.signInFailuresPerAddress,
  };

  app.get('/', { config: { permission: 'public' } }, async (request, reply) => {
    const user = request.backofficeUser;
    return redirectTo(reply, user ? homeOf(user) : '/sign-in');
  });

  const showSignIn = (
    reply: FastifyReply,
    values: {
      email: string;
      next: string;
      errors: string[];
      fieldErrors?: Record<string, string>;
      status?: number;
      notice?: string;
      /** After signing out of a single sign-on session: the organisation to sign out of too. */
      ssoSignOut?: string;
    },
  ) =>
    sendPage(reply, {
      status: values.status ?? 200,
      title: 'Sign in',
      notice: values.notice,
      body: signInForm({ csrfToken: csrfToken(reply), ...values }),
    });

  app.get('/sign-in', { config: { permission: 'public' } }, async (request, reply) => {
    const user = request.backofficeUser;
    if (user) return redirectTo(reply, homeOf(user));
    return showSignIn(reply, {
      email: '',
      next: queryOf(request.query, 'next'),
      errors: [],
      notice: notices[queryOf(request.query, 'notice')],
      ssoSignOut: queryOf(request.query, 'sso').slice(0, 64),
    });
  });

  app.post('/sign-in', { config: { permission: 'public' } }, async (request, reply) => {
    const form = parseForm(SignInForm, request.body, signInFormOptions);
    const email = (form.input.email ?? '').slice(0, 254);
    const password = (form.input.password ?? '').slice(0, 256);
    const next = form.input.next ?? '';
    if (!form.ok) {
      return showSignIn(reply, {
        status: 400,
        email,
        next,
        errors: [],
        fieldErrors: form.refusal.fields,
      });
    }
    await o.operatorReady();
    const outcome = await checkSignIn(
      db,
      { email, password, ip: request.ip },
      limits,
      config.passwordHashCost,
    );
    if (!outcome.ok && outcome.reason === 'throttled') {
      reply.header('retry-after', String(outcome.retryAfterSeconds));
      return showSignIn(reply, {
        status: 429,
        email,
        next,
        errors: [
          `Too many failed sign-ins. Try again in ${describeWait(outcome.retryAfterSeconds)}.`,
        ],
      });
    }
    if (!outcome.ok) {
      const actor = { ...auditBy(request, outcome.tenantId), actor: email };
      await db.transaction().execute((trx) => recordFailedSignIn(trx, outcome.keys, actor));
      return showSignIn(reply, {
        status: 401,
        email,
        next,
        errors: ['The e-mail or the password is not right (or the account is disabled).'],
      });
    }
    const refused =
      outcome.tenantId !== null && outcome.account.kind === 'user'
        ? await passwordRefusal(db, outcome.tenantId, outcome.account.id, {
            ...auditBy(request, outcome.tenantId),
            actor: email,
          })
        : undefined;
    if (refused) return showSignIn(reply, { status: 403, email, next, errors: [refused] });
    const proven = {
      account: outcome.account,
      email: outcome.email,
      name: outcome.name,
      tenantId: outcome.tenantId,
    };
    if ((await twoFactorState(db, outcome.account)).enabled) {
      // The password was right; the session waits for the second factor.
      const challenge = await openChallenge(db, {
        ...proven,
        next: safeNext(next) === undefined ? '' : next,
      });
      reply.setCookie(cookies.challenge, challenge, {
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
        secure: config.secureCookies,
      });
      return redirectTo(reply, '/sign-in/code');
    }
    return finishSignIn(request, reply, proven, next);
  });

  app.post('/sign-out', { config: { permission: 'public' } }, async (request, reply) => {
    const user = request.backofficeUser;
    // Signed in through their provider: the page after offers to sign out there too.
    const viaSso =
      user?.kind === 'tenant' && (await sessionMethod(db, user.sessionIdHash)) === 'sso'
        ? `&sso=${encodeURIComponent(user.tenantAlias)}`
        : '';
    if (user) {
      await db.transaction().execute((trx) => signOut(trx, user, auditBy(request)));
    }
    reply.clearCookie(cookies.session, { path: '/' });
    reply.clearCookie(cookies.csrf, { path: '/' });
    return redirectTo(reply, `/sign-in?notice=signed-out${viaSso}`);
  });

  const showPasswordForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    values: { errors: string[]; fieldErrors: Record<string, string>; status?: number },
  ) =>
    sendPage(reply, {
      status: values.status ?? 200,
      title: 'Change password',
      section: 'account',
      user: signedInUser(request),
      csrfToken: csrfToken(reply),
      body: passwordForm({ csrfToken: csrfToken(reply), ...values }),
    });

  app.get('/account/password', { config: { permission: 'self' } }, async (request, reply) => {
    if (!request.backofficeUser) return redirectTo(reply, '/sign-in');
    return showPasswordForm(request, reply, {
      errors: [],
      fieldErrors: {},
      status: 200,
    });
  });

  app.post('/account/password', { config: { permission: 'self' } }, async (request, reply) => {
    const user = request.backofficeUser;
    if (!user) return redirectTo(reply, '/sign-in');
    const form = parseForm(PasswordForm, request.body, passwordFormOptions);
    const current = (form.input.current_password ?? '').slice(0, 256);
    const keys = throttleKeys(user.email, request.ip, limits);
    const wait = await secondsUntilAllowed(db, keys);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      return showPasswordForm(request, reply, {
        status: 429,
        errors: [`Too many wrong passwords. Try again in ${describeWait(wait)}.`],
        fieldErrors: {},
      });
    }
    const storedHash = await passwordHashOf(db, user);
    if (!storedHash || !(await verifyPassword(current, storedHash))) {
      await db.transaction().execute((trx) => recordFailure(trx, keys));
      return showPasswordForm(request, reply, {
        status: 400,
        errors: [],
        fieldErrors: { current_password: 'This is not the current password.' },
      });
    }
    if (!form.ok) {
      return showPasswordForm(request, reply, {
        status: 400,
        errors: [],
        fieldErrors: form.refusal.fields,
      });
    }
    const next = form.values.new_password;
    const weakness = await passwordWeakness(next, [
      user.email,
      user.name,
      ...(user.kind === 'tenant' ? [user.tenantAlias] : []),
    ]);
    if (weakness) {
      return showPasswordForm(request, reply, {
        status: 400,
        errors: [],
        fieldErrors: { new_password: weakness },
      });
    }
    if (form.values.confirm_password !== next) {
      return showPasswordForm(request, reply, {
        status: 400,
        errors: [],
        fieldErrors: { confirm_password: 'The two new passwords are not the same.' },
      });
    }
    const passwordHash = await hashPassword(next, config.passwordHashCost);
    await db
      .transaction()
      .execute((trx) => changePassword(trx, user, passwordHash, auditBy(request)));
    return sendPage(reply, {
      title: 'Password changed',
      section: 'account',
      user,
      csrfToken: csrfToken(reply),
      notice: 'Your password is changed. Other browsers signed in to this account are signed out.',
      body: html`<p><a href="${basePath}${homeOf(user)}">Continue</a></p>`,
    });
  });
}

function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
