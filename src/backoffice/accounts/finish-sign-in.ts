import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type Account,
  accountOfSession,
  keepFlash,
  purgeEndedSessions,
  signIn,
  takeFlash,
} from '../../accounts/index.js';
import type { Config } from '../../platform/config.js';
import type { Db } from '../../platform/db.js';
import { basePath, redirectTo } from '../web/layout.js';

/** How long a form kept through signing in again waits for its page. */
export const keptFormMs = 15 * 60_000;

export interface BackofficeCookies {
  session: string;
  csrf: string;
  /** The step between a right password and the second factor. */
  challenge: string;
  /** A passkey sign-in between its options and the browser's answer. */
  passkey: string;
}

/** Who has just proved who they are: with a password, and a second factor when they have one. */
export interface Proven {
  account: Account;
  email: string;
  name: string;
  tenantId: string | null;
  /** How the second factor was given, when one was. */
  secondFactor?: 'totp' | 'recovery_code';
  /** How they proved it: a password unless said (single sign-on, a passkey). */
  method?: 'password' | 'passkey' | 'sso';
}

/** Only back to a back-office page of this site: never an open redirect. */
export function safeNext(next: string): string | undefined {
  if (!next.startsWith(`${basePath}/`) || /^\/backoffice\/[/\\]|[\\\r\n]/.test(next)) {
    return undefined;
  }
  return next.slice(basePath.length);
}

/**
 * The end of every sign-in: a session, its cookie, a fresh form secret, the draft kept from the
 * browser's ended session when it is the same account's, and the page to go to.
 */
export function signInFinisher(db: Db, config: Config, cookies: BackofficeCookies) {
  const settings = { idleMinutes: config.sessionIdleMinutes, maxHours: config.sessionMaxHours };

  /**
   * A form kept when the previous session of this browser ran out goes over to the new session,
   * when the same account signed in again (never to another account using the same browser).
   */
  const carryKeptForm = async (
    previous: string | undefined,
    signedIn: { account: Account; token: string },
    back: string,
  ) => {
    if (!previous) return;
    const before = await accountOfSession(db, previous);
    if (before?.kind !== signedIn.account.kind || before.id !== signedIn.account.id) return;
    const name = `form:${basePath}${back.split('?')[0]}`;
    const kept = await takeFlash(db, previous, name);
    if (kept !== undefined) await keepFlash(db, signedIn.token, name, kept, keptFormMs);
  };

  return async (request: FastifyRequest, reply: FastifyReply, who: Proven, next: string) => {
    const token = await db
      .transaction()
      .execute((trx) =>
        signIn(
          trx,
          who.account,
          { email: who.email, name: who.name },
          who.tenantId,
          { ip: request.ip, userAgent: request.headers['user-agent'] ?? null },
          settings,
          who.secondFactor,
          who.method,
        ),
      );
    // A new session gets a new form secret: one set before signing in is not carried over.
    reply.clearCookie(cookies.csrf, { path: '/' });
    reply.clearCookie(cookies.challenge, { path: '/' });
    reply.setCookie(cookies.session, token, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: config.secureCookies,
    });
    void purgeEndedSessions(db).catch((error: unknown) =>
      request.log.warn({ err: error }, 'could not remove ended back-office sessions'),
    );
    const home = who.account.kind === 'user' ? '/dashboard' : '/operator/tenants';
    const back = safeNext(next);
    if (back !== undefined) {
      await carryKeptForm(request.cookies[cookies.session], { account: who.account, token }, back);
    }
    return redirectTo(reply, back ?? home);
  };
}
