import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Db } from '../../src/platform/db.js';
import { getTenantSettings, setTenantSettings } from '../../src/tenants/service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { TestStore } from '../helpers/stores.js';

export const operator = { email: 'operator@example.test', password: 'operator password 1' };
export const tenantPassword = 'a long enough password';

/** The service with a known operator account, as the back-office tests use it. */
export function startBackofficeApp(
  store: TestStore,
  env: Record<string, string> = {},
  options: Parameters<typeof startTestApp>[2] = {},
): Promise<TestApp> {
  return startTestApp(
    store,
    {
      OPERATOR_EMAIL: operator.email,
      OPERATOR_PASSWORD: operator.password,
      ...env,
    },
    options,
  );
}

/**
 * A browser without a browser: keeps the cookies the service sets, and sends each form with the
 * form token of the last page it read, as a browser posting a form from that page would.
 */
export class PageClient {
  readonly cookies = new Map<string, string>();
  lastPage = '';

  constructor(
    readonly app: FastifyInstance,
    readonly options: { ip?: string; userAgent?: string } = {},
  ) {}

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const response = await this.app.inject({
      method: 'GET',
      url,
      headers: { ...this.headers(), ...headers },
      remoteAddress: this.options.ip ?? '127.0.0.1',
    });
    this.keep(response);
    return response;
  }

  /** Posts a form; `_csrf` is the token of the last page read unless the fields give one. */
  async post(
    url: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    const token = formToken(this.lastPage);
    const body = new URLSearchParams({ ...(token ? { _csrf: token } : {}), ...fields });
    const response = await this.app.inject({
      method: 'POST',
      url,
      headers: {
        ...this.headers(),
        'content-type': 'application/x-www-form-urlencoded',
        ...headers,
      },
      payload: body.toString(),
      remoteAddress: this.options.ip ?? '127.0.0.1',
    });
    this.keep(response);
    return response;
  }

  /** GETs the page with the form, then posts the form from it. */
  async submit(
    pageUrl: string,
    actionUrl: string,
    fields: Record<string, string>,
  ): Promise<LightMyRequestResponse> {
    await this.get(pageUrl);
    return this.post(actionUrl, fields);
  }

  async signIn(email: string, password: string): Promise<LightMyRequestResponse> {
    return this.submit('/backoffice/sign-in', '/backoffice/sign-in', { email, password });
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    }
    if (this.options.userAgent) headers['user-agent'] = this.options.userAgent;
    return headers;
  }

  private keep(response: LightMyRequestResponse): void {
    for (const cookie of response.cookies as Array<{
      name: string;
      value: string;
      expires?: Date;
    }>) {
      const expired = cookie.expires !== undefined && cookie.expires.getTime() <= Date.now();
      if (cookie.value === '' || expired) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    if (String(response.headers['content-type']).startsWith('text/html')) {
      this.lastPage = response.body;
    }
  }
}

export function formToken(page: string): string | undefined {
  return /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
}

/** A signed-in client of a tenant (its e-mail is `${alias}@example.test`, as `seedTenant` makes). */
export async function signedIn(
  app: FastifyInstance,
  email: string,
  password = tenantPassword,
  options: { ip?: string; userAgent?: string } = {},
): Promise<PageClient> {
  const client = new PageClient(app, options);
  const response = await client.signIn(email, password);
  if (response.statusCode !== 303) {
    throw new Error(`sign-in of ${email} answered ${response.statusCode}: ${response.body}`);
  }
  return client;
}

/** The visible text of a page, tags stripped and entities of the escaper decoded. */
export function textOf(page: string): string {
  return page
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .replace(/ ([),.:;?])/g, '$1');
}

/**
 * Takes a draft through review to publication as one user (submit, pass, approve at once), as a
 * one-person team whose tenant has four eyes turned off does. Answers the approval's response.
 */
export async function publishThroughReview(
  page: PageClient,
  code: string,
  id: string,
): Promise<LightMyRequestResponse> {
  const version = `/backoffice/templates/${code}/versions/${id}`;
  for (const step of ['submit', 'pass']) {
    await page.get(`${version}/review`);
    const response = await page.post(`${version}/${step}`, {});
    if (response.statusCode !== 303) {
      throw new Error(`${step} answered ${response.statusCode}: ${textOf(response.body)}`);
    }
  }
  await page.get(`${version}/review`);
  return page.post(`${version}/approve`, { publish_now: 'true' });
}

/** Turns four eyes off for a tenant: one person may then submit, pass and approve. */
export async function fourEyesOff(db: Db, tenantId: string): Promise<void> {
  const settings = await getTenantSettings(db, tenantId);
  await setTenantSettings(db, tenantId, { ...settings, fourEyes: false });
}

/** A version's page in the back-office. */
export const versionPagePath = (code: string, id: string) =>
  `/backoffice/templates/${code}/versions/${id}`;

/** Saves a draft from the new-version form, as the page's user would; answers its id. */
export async function writeDraft(
  page: PageClient,
  code: string,
  fields: { tag: string; content_html: string } & Record<string, string>,
): Promise<string> {
  const made = await page.submit(
    `/backoffice/templates/${code}/versions/new`,
    `/backoffice/templates/${code}/versions`,
    { allow_reconsent: 'true', ...fields },
  );
  if (made.statusCode !== 303) {
    throw new Error(`saving the draft answered ${made.statusCode}: ${textOf(made.body)}`);
  }
  return /\/versions\/([0-9a-f-]{36})/.exec(String(made.headers.location))?.[1] ?? '';
}
