import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import escapeHtml from 'escape-html';
import { type CryptoKey, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
// @ts-expect-error oidc-provider ships no type declarations: `OidcProvider` describes what is used.
import Provider from 'oidc-provider';
import { budget } from './time.js';

/** A relying party registered at the test IdP. */
export interface IdpClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  post_logout_redirect_uris?: string[];
  /** How the client authenticates at the token endpoint; the IdP accepts only this one. */
  token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post';
}

/** An account at the test IdP. Read at every sign-in, so a test may change one between two. */
export interface IdpUser {
  sub: string;
  email: string;
  /** Defaults to true. */
  email_verified?: boolean;
  name: string;
  groups: string[];
  password: string;
}

interface Interaction {
  uid: string;
  prompt: {
    name: string;
    details: {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
  };
  params: { client_id?: string };
  session?: { accountId: string };
  grantId?: string;
}

interface Grant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}

/** The part of oidc-provider's `Provider` the harness uses, for tests that need more of it. */
export interface OidcProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: {
    new (properties: { accountId: string; clientId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  };
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}

export interface TestIdp {
  /** `http://127.0.0.1:<port>`; unchanged after `stop()`, so discovery then fails to connect. */
  issuer: string;
  port: number;
  clients: Required<IdpClient>[];
  /** The IdP's RS256 signing key, to sign a tampered ID token as the IdP would. */
  privateKey: CryptoKey;
  kid: string;
  /** Closes the server and its connections: the IdP is down. */
  stop(): Promise<void>;
  provider: OidcProvider;
}

/**
 * A real OpenID Provider (oidc-provider) on a free loopback port, over plain http: authorization
 * code flow with PKCE required, a login page (`login`, `password`, "Sign in") that grants every
 * requested scope and claim once the password is right, scope claims (`email`, `email_verified`,
 * `name`, `groups`) in the ID token, and RP-initiated logout behind a one-button form.
 *
 * @example
 * const idp = await startTestIdp({ clients: [{ client_id, client_secret, redirect_uris }], users });
 * // ... scope=openid email profile groups ...
 * await idp.stop();
 */
export async function startTestIdp(options: {
  clients: IdpClient[];
  users: IdpUser[];
}): Promise<TestIdp> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  const clients = options.clients.map((client) => ({
    ...client,
    post_logout_redirect_uris: client.post_logout_redirect_uris ?? [],
    token_endpoint_auth_method: client.token_endpoint_auth_method ?? 'client_secret_basic',
  }));
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  let provider: OidcProvider;
  try {
    provider = new Provider(issuer, {
      ...configuration(options.users),
      clients: clients.map((client) => ({
        ...client,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      })),
      jwks: { keys: [{ ...jwk, kid, alg: 'RS256', use: 'sig' }] },
    });
  } catch (error) {
    server.close();
    throw error;
  }

  const handle = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const match = /^\/interaction\/[\w-]+(\/login)?$/.exec(
      new URL(req.url ?? '/', issuer).pathname,
    );
    if (match === null) {
      handle(req, res);
      return;
    }
    interact(provider, options.users, req, res, match[1] !== undefined).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else sendPage(res, 400, page('Sign-in failed', `<p>${escapeHtml(String(error))}</p>`));
    });
  });

  return {
    issuer,
    port,
    clients,
    privateKey,
    kid,
    provider,
    async stop() {
      if (!server.listening) return;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Everything but the clients and keys: one IdP's storage, claims, pages and accounts. */
function configuration(users: IdpUser[]) {
  return {
    adapter: memoryAdapter(),
    // Cookies follow the request's scheme: not `Secure` over plain http.
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name'],
      groups: ['groups'],
    },
    // Scope claims go in the ID token too, not only in userinfo.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
    },
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
    },
    findAccount: (_ctx: unknown, id: string) => {
      const user = users.find((candidate) => candidate.sub === id);
      if (user === undefined) return undefined;
      return {
        accountId: user.sub,
        claims: () => ({
          sub: user.sub,
          email: user.email,
          email_verified: user.email_verified ?? true,
          name: user.name,
          groups: [...user.groups],
        }),
      };
    },
    renderError,
    // Set, so that oidc-provider does not print a notice for each default it falls back on.
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 3600,
      Session: 86_400,
      Grant: 86_400,
    },
  };
}

/** The login prompt's form, or its answer; the consent prompt grants what was asked. */
async function interact(
  provider: OidcProvider,
  users: IdpUser[],
  req: IncomingMessage,
  res: ServerResponse,
  submitted: boolean,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const { uid, prompt, params } = details;
  const clientId = params.client_id ?? '';
  if (prompt.name === 'login') {
    if (!submitted || req.method !== 'POST') {
      sendPage(res, 200, loginPage(uid, clientId, '', ''));
      return;
    }
    const form = new URLSearchParams(await readBody(req));
    const login = form.get('login') ?? '';
    const user = users.find(
      (candidate) =>
        (candidate.email.toLowerCase() === login.trim().toLowerCase() || candidate.sub === login) &&
        candidate.password === form.get('password'),
    );
    if (user === undefined) {
      sendPage(res, 200, loginPage(uid, clientId, login, 'Wrong login or password.'));
      return;
    }
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: user.sub, amr: ['pwd'] } },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  if (prompt.name === 'consent' && details.session !== undefined) {
    const grant =
      (details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId)) ??
      new provider.Grant({ accountId: details.session.accountId, clientId });
    const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = prompt.details;
    if (missingOIDCScope !== undefined) grant.addOIDCScope(missingOIDCScope.join(' '));
    if (missingOIDCClaims !== undefined) grant.addOIDCClaims(missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(missingResourceScopes ?? {})) {
      grant.addResourceScope(resource, scopes.join(' '));
    }
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } });
    return;
  }
  sendPage(
    res,
    400,
    page('Sign-in failed', `<p>Unexpected prompt ${escapeHtml(prompt.name)}.</p>`),
  );
}

function loginPage(uid: string, clientId: string, login: string, message: string): string {
  return page(
    'Sign in',
    `<p>to continue to ${escapeHtml(clientId)}</p>
    ${message === '' ? '' : `<p role="alert">${escapeHtml(message)}</p>`}
    <form method="post" action="/interaction/${escapeHtml(uid)}/login">
      <p><label for="login">Email</label>
      <input id="login" name="login" type="text" autocomplete="username" required value="${escapeHtml(login)}"></p>
      <p><label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required></p>
      <button type="submit">Sign in</button>
    </form>`,
  );
}

async function logoutSource(ctx: { body: string }, form: string): Promise<void> {
  ctx.body = page(
    'Sign out',
    `${form}
    <button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>
    <button type="submit" form="op.logoutForm">Stay signed in</button>`,
  );
}

async function postLogoutSuccessSource(ctx: { body: string }): Promise<void> {
  ctx.body = page('Signed out', '<p>You are signed out.</p>');
}

async function renderError(
  ctx: { type: string; body: string },
  out: { error?: string; error_description?: string },
): Promise<void> {
  ctx.type = 'html';
  ctx.body = page(
    'Sign-in error',
    `<p role="alert">${escapeHtml(out.error ?? 'error')}: ${escapeHtml(out.error_description ?? '')}</p>`,
  );
}

/** A self-contained page: no outside styles, fonts or icons, so the browser fetches nothing else. */
function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><title>${escapeHtml(title)} – Test IdP</title></head>
<body><main><h1>${escapeHtml(title)}</h1>
${body}
</main></body>
</html>`;
}

function sendPage(res: ServerResponse, status: number, html: string): void {
  res
    .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    .end(html);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

type Stored = Record<string, unknown> & { uid?: string; userCode?: string; grantId?: string };

/** Models whose rows a revoked grant takes with it. */
const grantable = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode']);

/**
 * oidc-provider's storage, in memory and per IdP (its own in-memory adapter is shared by the
 * process and warns at every start).
 */
function memoryAdapter() {
  const rows = new Map<string, { model: string; payload: Stored; expiresAt: number }>();
  const live = (key: string): Stored | undefined => {
    const row = rows.get(key);
    if (row === undefined || row.expiresAt > Date.now()) return row?.payload;
    rows.delete(key);
    return undefined;
  };
  return (model: string) => {
    const keyOf = (id: string) => `${model}:${id}`;
    const findBy = (field: 'uid' | 'userCode', value: string) => {
      for (const [key, row] of rows) {
        if (row.model === model && row.payload[field] === value) return live(key);
      }
      return undefined;
    };
    return {
      async upsert(id: string, payload: Stored, expiresIn?: number) {
        const expiresAt = expiresIn === undefined ? Infinity : Date.now() + expiresIn * 1000;
        rows.set(keyOf(id), { model, payload, expiresAt });
      },
      async find(id: string) {
        return live(keyOf(id));
      },
      async findByUid(uid: string) {
        return findBy('uid', uid);
      },
      async findByUserCode(userCode: string) {
        return findBy('userCode', userCode);
      },
      async consume(id: string) {
        const payload = live(keyOf(id));
        if (payload !== undefined) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id: string) {
        rows.delete(keyOf(id));
      },
      async revokeByGrantId(grantId: string) {
        for (const [key, row] of rows) {
          if (grantable.has(row.model) && row.payload.grantId === grantId) rows.delete(key);
        }
      },
    };
  };
}

/**
 * What a browser keeps of cookies, by origin (`host:port`), with their paths. `Domain` and
 * `Secure` are ignored: every origin here is its own host on loopback, over plain http.
 */
export type CookieJar = Map<string, { name: string; value: string; path: string }[]>;

/** One answer, as it came (no redirect followed). */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: string;
}

/** A sign-in or sign-out that did not go as a browser's would. */
export class IdpFlowError extends Error {
  readonly url: string;
  readonly status: number;
  readonly body: string;
  constructor(message: string, answer: HttpAnswer & { url: URL }) {
    super(`${message} (${answer.status} at ${answer.url.href})`);
    this.name = 'IdpFlowError';
    this.url = answer.url.href;
    this.status = answer.status;
    this.body = answer.body;
  }
}

export interface SignInOptions {
  /** Cookies kept from call to call (the IdP's session, the service's own); a new jar if none. */
  jar?: CookieJar;
  /** Answer the callback's URL without requesting it, to replay or tamper with it. */
  stopAtCallback?: boolean;
}

export interface AtCallback {
  /** Where the IdP sent the browser back to the service, `code` and `state` included. */
  callbackUrl: string;
  /**
   * The service's cookies by name: those the browser sends to the callback, and, once the
   * callback is requested, what its answer set.
   */
  serviceCookies: Map<string, string>;
  jar: CookieJar;
}

export interface SignedIn extends AtCallback {
  /** The service's answer to the callback (its own redirect not followed). */
  response: HttpAnswer;
}

/**
 * A browser's single sign-on over plain HTTP: from the service's URL that starts it, follows
 * every redirect by hand, posts `credentials` to the IdP's login form, passes consent, and stops
 * at the redirect back to the service's origin (the callback), which it then requests with the
 * service's cookies unless `stopAtCallback`. With an IdP session in `jar`, no form is shown and
 * the credentials go unused. Throws `IdpFlowError` when the IdP shows its form again (a wrong
 * password) or anything else a sign-in does not go through.
 */
export function signInThroughIdp(
  startUrl: string,
  credentials: { login: string; password: string },
  options: SignInOptions & { stopAtCallback: true },
): Promise<AtCallback>;
export function signInThroughIdp(
  startUrl: string,
  credentials: { login: string; password: string },
  options?: SignInOptions,
): Promise<SignedIn>;
export async function signInThroughIdp(
  startUrl: string,
  credentials: { login: string; password: string },
  options: SignInOptions = {},
): Promise<AtCallback | SignedIn> {
  const service = new URL(startUrl).host;
  const jar = options.jar ?? new Map();
  let answer = await request(jar, new URL(startUrl));
  let atIdp = false;
  let posted = false;
  for (let step = 0; step < 30; step += 1) {
    const location = answer.headers.get('location');
    if (answer.status >= 300 && answer.status < 400 && location !== null) {
      const next = new URL(location, answer.url);
      if (atIdp && next.host === service) {
        const callbackUrl = next.href;
        if (options.stopAtCallback === true) {
          return { callbackUrl, serviceCookies: cookiesOf(jar, service), jar };
        }
        const { status, headers, body } = await request(jar, next);
        const response = { status, headers, body };
        return { callbackUrl, response, serviceCookies: cookiesOf(jar, service), jar };
      }
      atIdp ||= next.host !== service;
      answer = await request(jar, next);
      continue;
    }
    const form =
      atIdp && answer.status === 200
        ? formIn(answer, (_attributes, inner) => inner.includes('name="password"'))
        : undefined;
    if (form === undefined) throw new IdpFlowError('the sign-in went nowhere', answer);
    if (posted) {
      const alert = /<p role="alert">([^<]*)<\/p>/.exec(answer.body)?.[1] ?? 'no message';
      throw new IdpFlowError(
        `the IdP showed its login form again: ${decodeEntities(alert)}`,
        answer,
      );
    }
    posted = true;
    form.fields.set('login', credentials.login);
    form.fields.set('password', credentials.password);
    answer = await request(jar, form.action, form.fields);
  }
  throw new IdpFlowError('too many steps', answer);
}

/**
 * A browser's RP-initiated logout over plain HTTP: requests the IdP's end-session URL (the RP
 * made it: `id_token_hint`, `post_logout_redirect_uri`, `state`), confirms with "Sign out", and
 * answers where the IdP sent the browser (`redirectedTo`, absent when it showed its own page).
 */
export async function signOutThroughIdp(
  endSessionUrl: string,
  options: { jar: CookieJar },
): Promise<{ redirectedTo?: string; response: HttpAnswer }> {
  const idp = new URL(endSessionUrl).host;
  let answer = await request(options.jar, new URL(endSessionUrl));
  let confirmed = false;
  for (let step = 0; step < 10; step += 1) {
    const location = answer.headers.get('location');
    if (answer.status >= 300 && answer.status < 400 && location !== null) {
      const next = new URL(location, answer.url);
      if (next.host !== idp) return { redirectedTo: next.href, response: answer };
      answer = await request(options.jar, next);
      continue;
    }
    if (answer.status === 200 && confirmed) return { response: answer };
    const form =
      answer.status === 200
        ? formIn(answer, (attributes) => attributes.get('method')?.toLowerCase() === 'post')
        : undefined;
    if (form === undefined) throw new IdpFlowError('the sign-out went nowhere', answer);
    confirmed = true;
    form.fields.set('logout', 'yes');
    answer = await request(options.jar, form.action, form.fields);
  }
  throw new IdpFlowError('too many steps', answer);
}

/** A `Cookie` header of `cookies` (as `serviceCookies`), to replay a callback. */
export function cookieHeaderOf(cookies: Map<string, string>): string {
  return [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
}

async function request(
  jar: CookieJar,
  url: URL,
  form?: URLSearchParams,
): Promise<HttpAnswer & { url: URL }> {
  const headers = new Headers();
  const cookies = (jar.get(url.host) ?? []).filter((cookie) => onPath(url.pathname, cookie.path));
  if (cookies.length > 0) {
    headers.set('cookie', cookies.map(({ name, value }) => `${name}=${value}`).join('; '));
  }
  if (form !== undefined) headers.set('content-type', 'application/x-www-form-urlencoded');
  const response = await fetch(url, {
    method: form === undefined ? 'GET' : 'POST',
    headers,
    body: form?.toString(),
    redirect: 'manual',
    signal: AbortSignal.timeout(budget(5_000)),
  });
  remember(jar, url, response.headers.getSetCookie());
  return { url, status: response.status, headers: response.headers, body: await response.text() };
}

/** Keeps `Set-Cookie` lines as a browser would (a past expiry or `Max-Age=0` removes). */
function remember(jar: CookieJar, url: URL, lines: string[]): void {
  let cookies = jar.get(url.host) ?? [];
  for (const line of lines) {
    const [pair = '', ...attributes] = line.split(';');
    const split = pair.indexOf('=');
    if (split <= 0) continue;
    const name = pair.slice(0, split).trim();
    const value = pair.slice(split + 1).trim();
    // Without a `Path`, the request's directory (RFC 6265, 5.1.4).
    let path = url.pathname.slice(0, Math.max(1, url.pathname.lastIndexOf('/')));
    let gone = false;
    for (const attribute of attributes) {
      const [key = '', ...rest] = attribute.split('=');
      const setting = rest.join('=').trim();
      const lower = key.trim().toLowerCase();
      if (lower === 'path' && setting.startsWith('/')) path = setting;
      if (lower === 'max-age' && Number(setting) <= 0) gone = true;
      if (lower === 'expires' && Date.parse(setting) <= Date.now()) gone = true;
    }
    cookies = cookies.filter((cookie) => cookie.name !== name || cookie.path !== path);
    if (!gone) cookies.push({ name, value, path });
  }
  jar.set(url.host, cookies);
}

function onPath(requested: string, path: string): boolean {
  return (
    requested === path ||
    (requested.startsWith(path) && (path.endsWith('/') || requested[path.length] === '/'))
  );
}

function cookiesOf(jar: CookieJar, host: string): Map<string, string> {
  return new Map((jar.get(host) ?? []).map(({ name, value }) => [name, value]));
}

/** The first form `pick` chooses: its action, and its hidden fields. */
function formIn(
  answer: HttpAnswer & { url: URL },
  pick: (attributes: Map<string, string>, inner: string) => boolean,
): { action: URL; fields: URLSearchParams } | undefined {
  for (const [, open = '', inner = ''] of answer.body.matchAll(
    /<form\b([^>]*)>([\s\S]*?)<\/form>/gi,
  )) {
    const attributes = attributesOf(open);
    if (!pick(attributes, inner)) continue;
    const fields = new URLSearchParams();
    for (const [, input = ''] of inner.matchAll(/<input\b([^>]*)>/gi)) {
      const field = attributesOf(input);
      const name = field.get('name');
      if (field.get('type') === 'hidden' && name !== undefined) {
        fields.set(name, field.get('value') ?? '');
      }
    }
    return { action: new URL(attributes.get('action') ?? '', answer.url), fields };
  }
  return undefined;
}

function attributesOf(tag: string): Map<string, string> {
  return new Map(
    [...tag.matchAll(/([\w.:-]+)\s*=\s*"([^"]*)"/g)].map(([, name = '', value = '']) => [
      name.toLowerCase(),
      decodeEntities(value),
    ]),
  );
}

function decodeEntities(text: string): string {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_entity, name: string) => entities[name] ?? '');
}
