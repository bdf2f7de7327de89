/**
 * Signing in through the tenant's identity provider with OpenID Connect: the authorization code
 * flow with PKCE, a state and a nonce, through `openid-client` (certified). The provider's
 * discovery document and keys are fetched and the ID token's signature, issuer, audience, nonce
 * and expiry are checked by the library; what this adds is the tenant's rules: the e-mail and
 * groups claims, the roles the groups give, the user made or refused. Every refusal is audited
 * under the tenant (when the sign-in was far enough to name it) and nothing is made.
 */
import { LRUCache } from 'lru-cache';
import * as oidc from 'openid-client';
import { type Account, provisionSsoUser, type SsoRefusal, SsoRefused } from '../accounts/index.js';
import { recordAudit } from '../audit-trail/index.js';
import type { Db } from '../platform/db.js';
import { openPending, type PendingSignIn, sealPending } from './pending.js';
import { getSsoSettings, type SecretBox, type SsoSettings } from './settings.js';

/** Why a sign-in through the provider let nobody in: the page says it, the audit keeps it. */
export type SsoFailure =
  | 'not-configured'
  | 'provider-unavailable'
  /** The provider's answer failed a check: state, issuer, audience, nonce, signature, expiry. */
  | 'invalid-response'
  /** The sign-in took too long, or its cookie is not one this service made. */
  | 'expired'
  | 'no-email'
  | 'email-unverified'
  | SsoRefusal;

export interface SsoContext {
  db: Db;
  secrets: SecretBox;
  /** The key of the pending sign-in's cookie (`pendingKey`). */
  pendingKey: Uint8Array;
  /** The callback's URL, as registered at every tenant's provider. */
  redirectUri: string;
}

/** Where the sign-in comes from, for the audit and the session. */
export interface Client {
  ip: string;
  userAgent: string | null;
}

type Settings = SsoSettings & { clientSecret: string };

/**
 * Discovery once per tenant and version of its settings, for 10 minutes (the provider's keys
 * are fetched as the library needs them); a failed discovery is not kept.
 */
const configurations = new LRUCache<string, Promise<oidc.Configuration>>({
  max: 1_000,
  ttl: 10 * 60_000,
});

function configurationOf(tenantId: string, settings: Settings): Promise<oidc.Configuration> {
  const key = `${tenantId}\u0000${settings.updatedAt}`;
  const kept = configurations.get(key);
  if (kept) return kept;
  const issuer = new URL(settings.issuer);
  const made = oidc
    .discovery(
      issuer,
      settings.clientId,
      undefined,
      oidc.ClientSecretBasic(settings.clientSecret),
      {
        // Every ID token's signature is checked against the provider's keys, though it came over
        // TLS from the token endpoint (which OpenID Connect would let a client trust as it is): a
        // token the provider did not sign is refused whatever carried it. Only an issuer on this
        // machine is plain http (settings.ts refuses any other).
        execute: [
          oidc.enableNonRepudiationChecks,
          ...(issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : []),
        ],
        timeout: 10,
      },
    )
    .catch((error: unknown) => {
      configurations.delete(key);
      throw error;
    });
  configurations.set(key, made);
  return made;
}

/** The scopes asked for: OpenID's, the e-mail and profile, and `groups` where the provider has it. */
function scopesOf(configuration: oidc.Configuration): string {
  const supported = configuration.serverMetadata().scopes_supported ?? [];
  return ['openid', 'email', 'profile', ...(supported.includes('groups') ? ['groups'] : [])].join(
    ' ',
  );
}

async function refused(
  ctx: SsoContext,
  tenantId: string | null,
  client: Client,
  failure: SsoFailure,
  error?: unknown,
): Promise<{ ok: false; failure: SsoFailure }> {
  await recordAudit(ctx.db, {
    tenantId,
    actorKind: 'anonymous',
    actor: '',
    ip: client.ip,
    userAgent: client.userAgent,
    action: 'sso.refused',
    details: {
      reason: failure,
      ...(error instanceof Error ? { error: error.message.slice(0, 300) } : {}),
    },
  });
  return { ok: false, failure };
}

/**
 * Whether an error is the provider not answering (no connection, a reset, a timeout, its own
 * `5xx`) rather than an answer that failed a check (another issuer, audience or nonce, a bad
 * signature, a client it refused): `fetch`'s own failures are in the error or its causes.
 */
function isUnreachable(error: unknown): boolean {
  let seen: unknown = error;
  for (let depth = 0; depth < 5 && seen instanceof Error; depth += 1) {
    if (seen instanceof TypeError && seen.message === 'fetch failed') return true;
    if (seen.name === 'AbortError' || seen.name === 'TimeoutError') return true;
    const status = (seen as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 500) return true;
    seen = seen.cause;
  }
  return false;
}

/**
 * The start of a sign-in: the provider's authorization URL to send the browser to, and the
 * pending sign-in's sealed cookie; or why it cannot start.
 */
export async function startSso(
  ctx: SsoContext,
  tenantId: string,
  next: string,
  client: Client,
): Promise<{ ok: true; url: string; pending: string } | { ok: false; failure: SsoFailure }> {
  const settings = await getSsoSettings(ctx.db, ctx.secrets, tenantId);
  if (!settings) return { ok: false, failure: 'not-configured' };
  let configuration: oidc.Configuration;
  try {
    configuration = await configurationOf(tenantId, settings);
  } catch (error) {
    return refused(
      ctx,
      tenantId,
      client,
      isUnreachable(error) ? 'provider-unavailable' : 'invalid-response',
      error,
    );
  }
  const pending: PendingSignIn = {
    tenantId,
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    codeVerifier: oidc.randomPKCECodeVerifier(),
    next,
  };
  const url = oidc.buildAuthorizationUrl(configuration, {
    redirect_uri: ctx.redirectUri,
    scope: scopesOf(configuration),
    code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
    code_challenge_method: 'S256',
    state: pending.state,
    nonce: pending.nonce,
  });
  return { ok: true, url: url.href, pending: await sealPending(ctx.pendingKey, pending) };
}

/** A person signed in by their provider: who they are here, and where they were going. */
export interface SsoSignedIn {
  ok: true;
  tenantId: string;
  account: Account;
  email: string;
  name: string;
  next: string;
}

/**
 * The callback: the code exchanged and the ID token checked (`currentUrl` is the callback's URL
 * as the provider sent the browser to it), then the person made the tenant's user with the roles
 * of their groups. A replayed or forged callback fails its state; a token of another issuer,
 * for another client, with another nonce, badly signed or expired fails the library's checks.
 */
export async function finishSso(
  ctx: SsoContext,
  pendingCookie: string | undefined,
  currentUrl: URL,
  client: Client,
): Promise<SsoSignedIn | { ok: false; failure: SsoFailure }> {
  const pending = await openPending(ctx.pendingKey, pendingCookie);
  if (!pending) return refused(ctx, null, client, 'expired');
  const { tenantId } = pending;
  const settings = await getSsoSettings(ctx.db, ctx.secrets, tenantId);
  if (!settings) return refused(ctx, tenantId, client, 'not-configured');
  let claims: oidc.IDToken;
  try {
    const configuration = await configurationOf(tenantId, settings);
    const tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
      pkceCodeVerifier: pending.codeVerifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    claims = tokens.claims() as oidc.IDToken;
  } catch (error) {
    const failure = isUnreachable(error) ? 'provider-unavailable' : 'invalid-response';
    return refused(ctx, tenantId, client, failure, error);
  }
  const email = claims[settings.emailClaim];
  if (typeof email !== 'string' || !email.includes('@')) {
    return refused(ctx, tenantId, client, 'no-email');
  }
  if (claims.email_verified === false) return refused(ctx, tenantId, client, 'email-unverified');
  const said = claims[settings.groupsClaim];
  const groups = new Set(
    Array.isArray(said) ? said.map(String) : typeof said === 'string' ? [said] : [],
  );
  const roles = settings.groupRoles.filter((g) => groups.has(g.group)).map((g) => g.role);
  const name = typeof claims.name === 'string' ? claims.name : '';
  try {
    const user = await ctx.db
      .transaction()
      .execute((trx) =>
        provisionSsoUser(
          trx,
          tenantId,
          { email, name, roles, ...client },
          { createUsers: settings.createUsers },
        ),
      );
    return { ok: true, tenantId, ...user, next: pending.next };
  } catch (error) {
    if (error instanceof SsoRefused) return refused(ctx, tenantId, client, error.why);
    throw error;
  }
}

/**
 * Where to send a person who signed out of the back-office to sign out at their provider too
 * (OpenID Connect RP-Initiated Logout), back to `postLogoutRedirectUri` after; undefined when the
 * tenant has no single sign-on, or its provider offers no end-session endpoint or cannot be
 * reached.
 */
export async function providerSignOutUrl(
  ctx: SsoContext,
  tenantId: string,
  postLogoutRedirectUri: string,
): Promise<string | undefined> {
  const settings = await getSsoSettings(ctx.db, ctx.secrets, tenantId);
  if (!settings) return undefined;
  try {
    const configuration = await configurationOf(tenantId, settings);
    if (!configuration.serverMetadata().end_session_endpoint) return undefined;
    return oidc.buildEndSessionUrl(configuration, {
      client_id: settings.clientId,
      post_logout_redirect_uri: postLogoutRedirectUri,
    }).href;
  } catch {
    return undefined;
  }
}
