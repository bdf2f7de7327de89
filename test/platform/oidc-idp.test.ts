import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from 'jose';
import * as client from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, watch } from '../backoffice/browser.js';
import {
  type CookieJar,
  IdpFlowError,
  type IdpUser,
  signInThroughIdp,
  signOutThroughIdp,
  startTestIdp,
  type TestIdp,
} from '../helpers/oidc-idp.js';
import { budget } from '../helpers/time.js';

const scope = 'openid email profile groups';

const alice: IdpUser = {
  sub: 'alice-0001',
  email: 'alice@example.test',
  name: 'Alice Martin',
  groups: ['consent-admins', 'auditors'],
  password: 'correct horse battery staple',
};
const bob: IdpUser = {
  sub: 'bob-0002',
  email: 'bob@example.test',
  email_verified: false,
  name: 'Bob Durand',
  groups: [],
  password: 'another long passphrase',
};

/** What the relying party keeps in its cookie between /start and /callback. */
interface FlowChecks {
  clientId: string;
  pkceCodeVerifier: string;
  expectedState: string;
  expectedNonce: string;
}

/**
 * A relying party on loopback, played with openid-client as the service will: `/start` keeps
 * PKCE, state and nonce in a cookie and sends the browser to the IdP; `/callback` redeems the
 * code and answers the ID token's claims as JSON.
 */
async function startRp(idpOf: () => TestIdp) {
  const configs = new Map<string, Promise<client.Configuration>>();
  const configOf = (clientId: string) => {
    let config = configs.get(clientId);
    if (config === undefined) {
      config = discover(idpOf(), clientId);
      configs.set(clientId, config);
    }
    return config;
  };
  let callbacks = 0;
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => answer(res, 400, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname === '/start') {
      const clientId = url.searchParams.get('client') ?? '';
      const checks: FlowChecks = {
        clientId,
        pkceCodeVerifier: client.randomPKCECodeVerifier(),
        expectedState: client.randomState(),
        expectedNonce: client.randomNonce(),
      };
      const to = client.buildAuthorizationUrl(await configOf(clientId), {
        redirect_uri: `${origin}/callback`,
        scope,
        code_challenge: await client.calculatePKCECodeChallenge(checks.pkceCodeVerifier),
        code_challenge_method: 'S256',
        state: checks.expectedState,
        nonce: checks.expectedNonce,
      });
      const flow = Buffer.from(JSON.stringify(checks)).toString('base64url');
      res
        .writeHead(302, {
          location: to.href,
          'set-cookie': `rp=${flow}; Path=/; HttpOnly; SameSite=Lax`,
        })
        .end();
      return;
    }
    if (url.pathname === '/callback') {
      callbacks += 1;
      const flow = /(?:^|;\s*)rp=([^;]+)/.exec(req.headers.cookie ?? '')?.[1] ?? '';
      const checks = checksOf(flow);
      const tokens = await redeem(await configOf(checks.clientId), url, checks);
      answer(res, 200, { claims: tokens.claims(), id_token: tokens.id_token });
      return;
    }
    if (url.pathname === '/signed-out') {
      answer(res, 200, { signedOut: url.searchParams.get('state') });
      return;
    }
    answer(res, 404, { error: 'not found' });
  }

  return {
    origin,
    configOf,
    get callbacks() {
      return callbacks;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function discover(idp: TestIdp, clientId: string): Promise<client.Configuration> {
  const registered = idp.clients.find((candidate) => candidate.client_id === clientId);
  if (registered === undefined) throw new Error(`no client ${clientId}`);
  const secret = registered.client_secret;
  const auth =
    registered.token_endpoint_auth_method === 'client_secret_basic'
      ? client.ClientSecretBasic(secret)
      : client.ClientSecretPost(secret);
  return client.discovery(new URL(idp.issuer), clientId, secret, auth, {
    execute: [client.allowInsecureRequests],
  });
}

function checksOf(cookie: string | undefined): FlowChecks {
  return JSON.parse(Buffer.from(cookie ?? '', 'base64url').toString('utf8')) as FlowChecks;
}

function redeem(config: client.Configuration, callbackUrl: URL, checks: FlowChecks) {
  return client.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: checks.pkceCodeVerifier,
    expectedState: checks.expectedState,
    expectedNonce: checks.expectedNonce,
    idTokenExpected: true,
  });
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** The `code` of the `cause` chain of an error (`ECONNREFUSED`). */
function codeOf(error: unknown): string | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if ('code' in cause && typeof cause.code === 'string' && cause.code.startsWith('E')) {
      return cause.code;
    }
  }
  return undefined;
}

describe('the test OpenID Provider', () => {
  let idp: TestIdp;
  let rp: Awaited<ReturnType<typeof startRp>>;
  const startOf = (clientId: string) => `${rp.origin}/start?client=${clientId}`;

  beforeAll(async () => {
    rp = await startRp(() => idp);
    idp = await startTestIdp({
      clients: [
        {
          client_id: 'back-office',
          client_secret: 'back-office-secret-0123456789',
          redirect_uris: [`${rp.origin}/callback`],
          post_logout_redirect_uris: [`${rp.origin}/signed-out`],
        },
        {
          client_id: 'back-office-post',
          client_secret: 'back-office-post-secret-0123456789',
          redirect_uris: [`${rp.origin}/callback`],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
      users: [alice, bob],
    });
  });

  afterAll(async () => {
    await idp?.stop();
    await rp?.close();
  });

  it('when the password is right, the callback gets an ID token with email, email_verified, name and groups', async () => {
    const signedIn = await signInThroughIdp(startOf('back-office'), {
      login: alice.email,
      password: alice.password,
    });
    const callback = new URL(signedIn.callbackUrl);
    expect(callback.origin).toBe(rp.origin);
    expect(callback.pathname).toBe('/callback');
    expect(callback.searchParams.get('code')).toBeTruthy();
    expect(callback.searchParams.get('state')).toBe(
      checksOf(signedIn.serviceCookies.get('rp')).expectedState,
    );
    expect(signedIn.response.status).toBe(200);
    const { claims, id_token } = JSON.parse(signedIn.response.body);
    expect(claims).toMatchObject({
      iss: idp.issuer,
      aud: 'back-office',
      sub: alice.sub,
      email: alice.email,
      email_verified: true,
      name: alice.name,
      groups: alice.groups,
    });
    expect(decodeProtectedHeader(id_token)).toMatchObject({ alg: 'RS256', kid: idp.kid });
    const jwks = createRemoteJWKSet(new URL(`${idp.issuer}/jwks`));
    const verified = await jwtVerify(id_token, jwks, {
      issuer: idp.issuer,
      audience: 'back-office',
    });
    expect(verified.payload.groups).toEqual(alice.groups);
  });

  it('when the client authenticates with client_secret_post, it signs in as well, email_verified false included', async () => {
    const signedIn = await signInThroughIdp(startOf('back-office-post'), {
      login: bob.email,
      password: bob.password,
    });
    expect(signedIn.response.status).toBe(200);
    expect(JSON.parse(signedIn.response.body).claims).toMatchObject({
      aud: 'back-office-post',
      sub: bob.sub,
      email_verified: false,
      groups: [],
    });
  });

  it('when the password is wrong, the login form comes back with a message and the callback is never reached', async () => {
    const before = rp.callbacks;
    const refused = await signInThroughIdp(startOf('back-office'), {
      login: alice.email,
      password: 'not the password',
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(IdpFlowError);
    const error = refused as IdpFlowError;
    expect(error.message).toContain('Wrong login or password.');
    expect(error.status).toBe(200);
    expect(error.body).toContain('name="password"');
    expect(error.body).toContain('Sign in</button>');
    expect(new URL(error.url).origin).toBe(idp.issuer);
    expect(rp.callbacks).toBe(before);
  });

  it('when the authorization request has no PKCE challenge, the IdP sends it back with invalid_request', async () => {
    const to = client.buildAuthorizationUrl(await rp.configOf('back-office'), {
      redirect_uri: `${rp.origin}/callback`,
      scope,
      state: client.randomState(),
    });
    const response = await fetch(to, {
      redirect: 'manual',
      signal: AbortSignal.timeout(budget(5_000)),
    });
    const back = new URL(response.headers.get('location') ?? '');
    expect(back.origin + back.pathname).toBe(`${rp.origin}/callback`);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toMatch(/PKCE/);
  });

  /** Signs alice in up to the callback, then redeems the code with `rewrite` applied to the ID token's claims. */
  async function redeemRewritten(rewrite: (claims: JWTPayload) => JWTPayload) {
    const { callbackUrl, serviceCookies } = await signInThroughIdp(
      startOf('back-office'),
      { login: alice.email, password: alice.password },
      { stopAtCallback: true },
    );
    const checks = checksOf(serviceCookies.get('rp'));
    const config = await discover(idp, 'back-office');
    const served: string[] = [];
    config[client.customFetch] = async (url, options) => {
      const response = await fetch(url, options as RequestInit);
      if (new URL(url).pathname !== '/token') return response;
      const body = (await response.json()) as { id_token: string };
      body.id_token = await new SignJWT(rewrite(decodeJwt(body.id_token)))
        .setProtectedHeader({ alg: 'RS256', kid: idp.kid })
        .sign(idp.privateKey);
      served.push(body.id_token);
      return Response.json(body, { status: response.status });
    };
    const outcome = await redeem(config, new URL(callbackUrl), checks).catch(
      (error: unknown) => error,
    );
    return { outcome, idToken: served[0] ?? '' };
  }

  it('when an ID token is re-signed with the IdP key but for another audience, openid-client refuses it', async () => {
    const honest = await redeemRewritten((claims) => claims);
    expect(honest.outcome).not.toBeInstanceOf(Error);

    const { outcome, idToken } = await redeemRewritten((claims) => ({
      ...claims,
      aud: 'someone-else',
    }));
    expect(outcome).toMatchObject({
      code: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
      cause: { cause: { claim: 'aud', expected: 'back-office' } },
    });
    const jwks = createRemoteJWKSet(new URL(`${idp.issuer}/jwks`));
    await expect(jwtVerify(idToken, jwks, { issuer: idp.issuer })).resolves.toBeTruthy();
    await expect(
      jwtVerify(idToken, jwks, { issuer: idp.issuer, audience: 'back-office' }),
    ).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'aud' });
  });

  it('when the IdP session is alive, a new sign-in skips the form; after RP-initiated logout it asks again', async () => {
    const jar: CookieJar = new Map();
    const wrong = { login: alice.email, password: 'not the password' };
    const first = await signInThroughIdp(
      startOf('back-office'),
      { login: alice.email, password: alice.password },
      { jar },
    );
    const again = await signInThroughIdp(startOf('back-office'), wrong, { jar });
    expect(JSON.parse(again.response.body).claims.sub).toBe(alice.sub);

    const endSession = client.buildEndSessionUrl(await rp.configOf('back-office'), {
      id_token_hint: JSON.parse(first.response.body).id_token,
      post_logout_redirect_uri: `${rp.origin}/signed-out`,
      state: 'after-logout',
    });
    const signedOut = await signOutThroughIdp(endSession.href, { jar });
    expect(signedOut.redirectedTo).toBe(`${rp.origin}/signed-out?state=after-logout`);

    await expect(signInThroughIdp(startOf('back-office'), wrong, { jar })).rejects.toThrow(
      /Wrong login or password/,
    );
  });

  describe('in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('the login page refuses a wrong password, signs in with the right one, and logout returns to the RP', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(budget(5_000));
      const { problems } = watch(page);
      try {
        await page.goto(startOf('back-office'));
        await expect.poll(() => page.url()).toMatch(new RegExp(`^${idp.issuer}/interaction/`));
        await page.getByLabel('Email').fill(alice.email);
        await page.getByLabel('Password').fill('not the password');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await expect
          .poll(() => page.getByRole('alert').textContent())
          .toBe('Wrong login or password.');

        await page.getByLabel('Password').fill(alice.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL((url) => url.href.startsWith(`${rp.origin}/callback?`));
        const { claims, id_token } = JSON.parse((await page.locator('body').textContent()) ?? '');
        expect(claims).toMatchObject({ email: alice.email, groups: alice.groups });

        const endSession = client.buildEndSessionUrl(await rp.configOf('back-office'), {
          id_token_hint: id_token,
          post_logout_redirect_uri: `${rp.origin}/signed-out`,
          state: 'browser',
        });
        await page.goto(endSession.href);
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.waitForURL(`${rp.origin}/signed-out?state=browser`);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });

  it('after stop(), the issuer is unchanged and discovery fails to connect', async () => {
    const down = await startTestIdp({ clients: [], users: [] });
    const issuer = down.issuer;
    const discovery = () =>
      client.discovery(new URL(down.issuer), 'anyone', undefined, undefined, {
        execute: [client.allowInsecureRequests],
      });
    await expect(discovery()).resolves.toBeTruthy();
    await down.stop();
    expect(down.issuer).toBe(issuer);
    const failure = await discovery().catch((error: unknown) => error);
    expect(codeOf(failure)).toBe('ECONNREFUSED');
  });
});
