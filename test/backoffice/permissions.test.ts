import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import { createConfiguration, createSystem } from '../../src/cookies/index.js';
import { createPartner } from '../../src/partners/index.js';
import { createDraftVersion, getTemplateByCode } from '../../src/templates/service.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import type { TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import {
  fourEyesOff,
  operator,
  PageClient,
  signedIn,
  startBackofficeApp,
  tenantPassword,
} from './support.js';
import { builtIn } from './team-support.js';

/**
 * Who may use each back-office route, as docs/team.md's permission table documents it: a
 * permission, or `member` (any tenant user), `operator`, `self` (any signed-in account) and
 * `public` (anyone).
 */
const documented: Record<string, string> = {
  'GET /backoffice': 'public',
  'GET /backoffice/sign-in': 'public',
  'POST /backoffice/sign-in': 'public',
  'GET /backoffice/sso': 'public',
  'GET /backoffice/sso/:alias': 'public',
  'GET /backoffice/sso/callback': 'public',
  'GET /backoffice/sso/:alias/sign-out': 'public',
  'POST /backoffice/sign-out': 'public',
  'GET /backoffice/password': 'public',
  'POST /backoffice/password': 'public',
  'GET /backoffice/assets/pico.min.css': 'public',
  'GET /backoffice/assets/htmx.min.js': 'public',
  'GET /backoffice/assets/webauthn.min.js': 'public',
  'GET /backoffice/assets/:name': 'public',
  'GET /backoffice/forgot-password': 'public',
  'POST /backoffice/forgot-password': 'public',
  'GET /backoffice/sign-in/code': 'public',
  'POST /backoffice/sign-in/code': 'public',
  'POST /backoffice/sign-in/passkey/options': 'public',
  'POST /backoffice/sign-in/passkey': 'public',
  'GET /backoffice/account/password': 'self',
  'POST /backoffice/account/password': 'self',
  'GET /backoffice/account/two-factor': 'self',
  'POST /backoffice/account/two-factor/setup': 'self',
  'POST /backoffice/account/two-factor/confirm': 'self',
  'POST /backoffice/account/two-factor/recovery-codes': 'self',
  'POST /backoffice/account/two-factor/disable': 'self',
  'GET /backoffice/account/sessions': 'self',
  'POST /backoffice/account/sessions/end': 'self',
  'GET /backoffice/account/passkeys': 'self',
  'POST /backoffice/account/passkeys/options': 'self',
  'POST /backoffice/account/passkeys': 'self',
  'POST /backoffice/account/passkeys/:id/rename': 'self',
  'POST /backoffice/account/passkeys/:id/remove': 'self',
  'GET /backoffice/dashboard': 'member',
  'GET /backoffice/products': 'templates:view',
  'GET /backoffice/products/new': 'templates:create',
  'POST /backoffice/products': 'templates:create',
  'GET /backoffice/products/:code': 'templates:view',
  'POST /backoffice/products/:code': 'templates:create',
  'POST /backoffice/products/:code/archive': 'templates:create',
  'POST /backoffice/products/:code/restore': 'templates:create',
  'GET /backoffice/partners': 'partners:view',
  'GET /backoffice/partners/new': 'partners:create',
  'POST /backoffice/partners': 'partners:create',
  'GET /backoffice/partners/:code': 'partners:view',
  'POST /backoffice/partners/:code': 'partners:edit',
  'POST /backoffice/partners/:code/delete': 'partners:delete',
  'GET /backoffice/templates': 'templates:view',
  'GET /backoffice/templates/new': 'templates:create',
  'POST /backoffice/templates': 'templates:create',
  'GET /backoffice/templates/:code': 'templates:view',
  'POST /backoffice/templates/:code/retire': 'templates:delete',
  'POST /backoffice/templates/:code/restore': 'templates:delete',
  'GET /backoffice/templates/:code/versions/new': 'versions:create',
  'POST /backoffice/templates/:code/details': 'templates:create',
  'POST /backoffice/templates/:code/sensitive-data': 'templates:create',
  'POST /backoffice/templates/:code/representation': 'templates:create',
  'POST /backoffice/templates/:code/versions': 'versions:create',
  'POST /backoffice/templates/:code/preview': 'versions:edit',
  'GET /backoffice/templates/:code/versions/:id': 'templates:view',
  'POST /backoffice/templates/:code/versions/:id': 'versions:edit',
  'GET /backoffice/templates/:code/versions/:id/review': 'templates:view',
  'GET /backoffice/templates/:code/versions/:id/file': 'templates:view',
  'POST /backoffice/templates/:code/versions/:id/file': 'versions:edit',
  'POST /backoffice/templates/:code/versions/:id/file/remove': 'versions:edit',
  'POST /backoffice/templates/:code/versions/:id/locales': 'versions:edit',
  'POST /backoffice/templates/:code/versions/:id/locales/:locale/remove': 'versions:edit',
  'POST /backoffice/templates/:code/versions/:id/submit': 'versions:edit',
  'POST /backoffice/templates/:code/versions/:id/send-back': 'versions:review',
  'POST /backoffice/templates/:code/versions/:id/pass': 'versions:review',
  'POST /backoffice/templates/:code/versions/:id/reject': 'versions:approve',
  'POST /backoffice/templates/:code/versions/:id/approve': 'versions:approve',
  'POST /backoffice/templates/:code/versions/:id/cancel-schedule': 'versions:approve',
  'GET /backoffice/api-keys': 'api_keys:view',
  'POST /backoffice/api-keys': 'api_keys:create',
  'GET /backoffice/api-keys/:id': 'api_keys:view',
  'POST /backoffice/api-keys/:id': 'api_keys:create',
  'GET /backoffice/api-keys/:id/revoke': 'api_keys:delete',
  'POST /backoffice/api-keys/:id/revoke': 'api_keys:delete',
  'GET /backoffice/webhooks': 'webhooks:view',
  'POST /backoffice/webhooks': 'webhooks:edit',
  'GET /backoffice/webhooks/:id': 'webhooks:view',
  'POST /backoffice/webhooks/:id/disable': 'webhooks:edit',
  'POST /backoffice/webhooks/:id/enable': 'webhooks:edit',
  'POST /backoffice/webhooks/:id/replay': 'webhooks:edit',
  'POST /backoffice/webhooks/:id/deliveries/:delivery/resend': 'webhooks:edit',
  'GET /backoffice/webhooks/:id/delete': 'webhooks:edit',
  'POST /backoffice/webhooks/:id/delete': 'webhooks:edit',
  'GET /backoffice/customers': 'customers:view',
  'GET /backoffice/customers/erase': 'customers:erase',
  'POST /backoffice/customers/erase': 'customers:erase',
  'POST /backoffice/customers/evidence': 'customers:view',
  'GET /backoffice/channels': 'block_channels:view',
  'POST /backoffice/channels': 'block_channels:edit',
  'POST /backoffice/customers/channels': 'block_channels:edit',
  'GET /backoffice/decisions/:id/receipt': 'customers:view',
  'GET /backoffice/decisions': 'customers:view',
  'GET /backoffice/decisions.csv': 'exports:export',
  'GET /backoffice/decisions/:id': 'customers:view',
  'POST /backoffice/decisions/:id/partners/:code': 'consent_decisions:edit',
  'GET /backoffice/requests': 'requests:view',
  'POST /backoffice/requests': 'requests:edit',
  'GET /backoffice/requests/:id': 'requests:view',
  'POST /backoffice/requests/:id/steps': 'requests:edit',
  'POST /backoffice/requests/:id/decision': 'requests:approve',
  'POST /backoffice/requests/:id/assignee': 'requests:edit',
  'POST /backoffice/requests/:id/notes': 'requests:edit',
  'GET /backoffice/exports': 'exports:export',
  'GET /backoffice/exports/decisions.csv': 'exports:export',
  'GET /backoffice/exports/controls.csv': 'exports:export',
  'GET /backoffice/audit': 'audit_log:view',
  'GET /backoffice/audit.csv': 'audit_log:export',
  'GET /backoffice/log': 'decision_log:view',
  'POST /backoffice/log/audit': 'decision_log:review',
  'GET /backoffice/users': 'users:view',
  'GET /backoffice/users/new': 'users:create',
  'POST /backoffice/users': 'users:create',
  'GET /backoffice/users/:id': 'users:view',
  'POST /backoffice/users/:id': 'users:edit',
  'POST /backoffice/users/:id/disable': 'users:edit',
  'POST /backoffice/users/:id/enable': 'users:edit',
  'POST /backoffice/users/:id/link': 'users:edit',
  'POST /backoffice/users/:id/remove': 'users:delete',
  'POST /backoffice/users/:id/two-factor-reset': 'users:edit',
  'POST /backoffice/users/:id/sign-out': 'users:edit',
  'GET /backoffice/roles': 'roles:view',
  'GET /backoffice/roles/new': 'roles:edit',
  'POST /backoffice/roles': 'roles:edit',
  'GET /backoffice/roles/:id': 'roles:view',
  'POST /backoffice/roles/:id': 'roles:edit',
  'POST /backoffice/roles/:id/delete': 'roles:edit',
  'GET /backoffice/cookies': 'cookies:view',
  'GET /backoffice/cookies/systems': 'cookies:view',
  'GET /backoffice/cookies/systems/new': 'cookies:create',
  'POST /backoffice/cookies/systems': 'cookies:create',
  'GET /backoffice/cookies/systems/:scope': 'cookies:view',
  'POST /backoffice/cookies/systems/:scope': 'cookies:edit',
  'GET /backoffice/cookies/systems/:scope/scans': 'cookies:view',
  'POST /backoffice/cookies/systems/:scope/scans': 'cookies:edit',
  'POST /backoffice/cookies/systems/:scope/scans/schedule': 'cookies:edit',
  'GET /backoffice/cookies/systems/:scope/scans/:id': 'cookies:view',
  'GET /backoffice/cookies/systems/:scope/analytics': 'cookies:view',
  'GET /backoffice/cookies/classification': 'cookies:view',
  'POST /backoffice/cookies/configurations/:id/declare-scanned': 'cookies:edit',
  'POST /backoffice/cookies/classification': 'cookies:edit',
  'POST /backoffice/cookies/classification/remove': 'cookies:edit',
  'GET /backoffice/cookies/systems/:scope/analytics.csv': 'cookies:view',
  'GET /backoffice/cookies/configurations/new': 'cookies:create',
  'POST /backoffice/cookies/configurations': 'cookies:create',
  'GET /backoffice/cookies/configurations/:id': 'cookies:view',
  'GET /backoffice/cookies/configurations/:id/preview': 'cookies:view',
  'GET /backoffice/cookies/configurations/:id/edit': 'cookies:edit',
  'POST /backoffice/cookies/configurations/:id': 'cookies:edit',
  'POST /backoffice/cookies/configurations/:id/locales': 'cookies:edit',
  'POST /backoffice/cookies/configurations/:id/locales/:locale/remove': 'cookies:edit',
  'POST /backoffice/cookies/configurations/:id/submit': 'cookies:edit',
  'POST /backoffice/cookies/configurations/:id/pass': 'cookies:review',
  'POST /backoffice/cookies/configurations/:id/send-back': 'cookies:review',
  'POST /backoffice/cookies/configurations/:id/approve': 'cookies:approve',
  'POST /backoffice/cookies/configurations/:id/reject': 'cookies:approve',
  'POST /backoffice/cookies/configurations/:id/publish': 'cookies:edit',
  'POST /backoffice/cookies/configurations/:id/unpublish': 'cookies:edit',
  'POST /backoffice/cookies/configurations/:id/copy': 'cookies:create',
  'POST /backoffice/cookies/configurations/:id/delete': 'cookies:delete',
  'GET /backoffice/cookies/decisions': 'cookies:view',
  'GET /backoffice/cookies/decisions.csv': 'cookies:export',
  'GET /backoffice/cookies/decisions/:id/receipt': 'cookies:export',
  'GET /backoffice/cookies/visitors/erase': 'customers:erase',
  'POST /backoffice/cookies/visitors/erase/confirmation': 'customers:erase',
  'POST /backoffice/cookies/visitors/erase': 'customers:erase',
  'GET /backoffice/settings': 'settings:view',
  'POST /backoffice/settings': 'settings:edit',
  'GET /backoffice/settings/sso': 'settings:view',
  'POST /backoffice/settings/sso': 'settings:edit',
  'POST /backoffice/settings/sso/remove': 'settings:edit',
  'GET /backoffice/settings/sign-in': 'settings:view',
  'POST /backoffice/settings/sign-in': 'settings:edit',
  'GET /backoffice/settings/scim': 'users:view',
  'POST /backoffice/settings/scim': 'users:edit',
  'GET /backoffice/settings/scim/:id/revoke': 'users:edit',
  'POST /backoffice/settings/scim/:id/revoke': 'users:edit',
  'GET /backoffice/preference-centre': 'settings:view',
  'GET /backoffice/processing-record': 'settings:view',
  'POST /backoffice/processing-record': 'settings:edit',
  'GET /backoffice/processing-record.csv': 'exports:export',
  'GET /backoffice/processing-record/print': 'exports:export',
  'POST /backoffice/preference-centre': 'settings:edit',
  'GET /backoffice/operator/tenants': 'operator',
  'GET /backoffice/operator/tenants/new': 'operator',
  'POST /backoffice/operator/tenants': 'operator',
  'GET /backoffice/operator/tenants/:id/disable': 'operator',
  'POST /backoffice/operator/tenants/:id/disable': 'operator',
  'POST /backoffice/operator/tenants/:id/enable': 'operator',
  'GET /backoffice/operator/tenants/:id': 'operator',
  'POST /backoffice/operator/tenants/:id/users/:userId/link': 'operator',
  'POST /backoffice/operator/tenants/:id/users/:userId/two-factor-reset': 'operator',
  'GET /backoffice/operator/operators': 'operator',
  'POST /backoffice/operator/operators': 'operator',
  'POST /backoffice/operator/operators/:id/disable': 'operator',
  'POST /backoffice/operator/operators/:id/enable': 'operator',
  'GET /backoffice/operator/audit': 'operator',
  'GET /backoffice/operator/audit.csv': 'operator',
};

/** Signing out ends the client's session: the matrix leaves that one request out. */
const leftOut = new Set(['POST /backoffice/sign-out']);

describe.each(storeAgnostic)('who may use which back-office route, on $name', (store) => {
  const routes: Array<{ method: string; url: string; permission: unknown }> = [];
  let t: TestApp;
  let a: SeededTenant;
  const params: Record<string, string> = {};

  beforeAll(async () => {
    t = await startBackofficeApp(
      store,
      { SIGN_IN_FAILURES_PER_ACCOUNT: '0', SIGN_IN_FAILURES_PER_ADDRESS: '0' },
      {
        onRoute: (route: RouteOptions) => {
          for (const method of [route.method].flat()) {
            routes.push({ method, url: route.url, permission: route.config?.permission });
          }
        },
      },
    );
    a = await seedTenant(t.db);
    // The matrix posts each form as it comes, so one role may take several steps of the
    // fixture draft's review: four eyes, a rule of the service and not a permission, stays out.
    await fourEyesOff(t.db, a.tenant.id);
    const code = await seedTemplate(t.db, a.tenant.id);
    await publish(t.db, a.tenant.id, code);
    const admin = await signedIn(t.app, a.tenant.email);
    const template = await getTemplateByCode(t.db, a.tenant.id, code);
    // A tag `publish` never makes (its are `N.0`, N counted per process, which test files share).
    const draft = await t.db
      .transaction()
      .execute((trx) =>
        createDraftVersion(trx, template, { tag: '9.0.1', content_html: '<p>A draft</p>' }),
      );
    await t.db.transaction().execute((trx) =>
      createPartner(
        trx,
        {
          tenantId: a.tenant.id,
          actorKind: 'operator',
          actor: 'test',
          ip: 'local',
          userAgent: null,
        },
        a.tenant.id,
        { code: 'fixture-partner', name: 'Fixture partner' },
      ),
    );
    const made = await admin.submit('/backoffice/roles/new', '/backoffice/roles', {
      name: 'Key keeper',
      description: 'Manages API keys',
      permissions: 'api_keys:view',
    });
    if (made.statusCode !== 303) throw new Error(`role: ${made.statusCode} ${made.body}`);
    const role = await t.db.selectFrom('roles').select('id').executeTakeFirstOrThrow();
    const hash = await hashPassword(tenantPassword, testPasswordHashCost);
    const fixture = await t.db.transaction().execute((trx) =>
      addUser(trx, a.tenant.id, {
        email: `fixture-${a.tenant.alias}@example.test`,
        name: 'Fixture',
        roles: ['editor'],
        passwordHash: hash,
      }),
    );
    for (const roleId of Object.keys(builtIn)) {
      await t.db.transaction().execute((trx) =>
        addUser(trx, a.tenant.id, {
          email: `${roleId}-${a.tenant.alias}@example.test`,
          name: roleId,
          roles: [roleId],
          passwordHash: hash,
        }),
      );
    }
    const by = {
      tenantId: a.tenant.id,
      actorKind: 'operator',
      actor: 'test',
      ip: 'local',
      userAgent: null,
    } as const;
    const system = await t.db
      .transaction()
      .execute((trx) =>
        createSystem(trx, a.tenant.id, { name: 'Site', origins: ['https://www.bank.example'] }, by),
      );
    const banner = await t.db.transaction().execute((trx) =>
      createConfiguration(
        trx,
        a.tenant.id,
        { system: system.scope, name: 'Banner' },
        {
          ...by,
          userId: null,
        },
      ),
    );
    Object.assign(params, {
      code,
      scope: system.scope,
      'configurations/:id': banner.id,
      locale: 'th',
      'versions/:id': draft.id,
      'users/:id': fixture.id,
      'roles/:id': role.id,
      'api-keys/:id': a.apiKey.id,
      'decisions/:id': '0190e8a0-0000-7000-8000-000000000000',
      'tenants/:id': a.tenant.id,
      'operators/:id': '0190e8a0-0000-7000-8000-00000000ffff',
      name: 'app.css',
    });
  });
  afterAll(() => t?.close());

  /** A route's path with its parameters filled in by the fixtures. */
  function concrete(url: string): string {
    return url
      .replace('products/:code', 'products/general')
      .replace('partners/:code', 'partners/fixture-partner')
      .replace(':code', params.code ?? '')
      .replace(':scope', params.scope ?? '')
      .replace(':locale', params.locale ?? '')
      .replace(
        /(versions|users|roles|api-keys|decisions|tenants|operators|configurations)\/:id/,
        (whole) => {
          return whole.replace(':id', params[whole] ?? '');
        },
      )
      .replace(':userId', params['users/:id'] ?? '')
      .replace(':name', params.name ?? '');
  }

  const backofficeRoutes = () =>
    routes.filter((r) => r.url.startsWith('/backoffice') && r.method !== 'HEAD');

  it('every back-office route declares who may use it: the documented permission', () => {
    const declared = Object.fromEntries(
      backofficeRoutes().map((r) => [`${r.method} ${r.url}`, r.permission]),
    );
    const undeclared = Object.entries(declared)
      .filter(([, permission]) => permission === undefined)
      .map(([route]) => route);
    expect(undeclared).toEqual([]);
    expect(declared).toEqual(documented);
  });

  it.each(Object.keys(builtIn))(
    'the %s role is let through exactly where its permissions allow, and gets the 403 page elsewhere',
    async (roleId) => {
      const client = await signedIn(t.app, `${roleId}-${a.tenant.alias}@example.test`);
      const granted = new Set(builtIn[roleId]);
      const outcomes: Record<string, 'allowed' | 'forbidden'> = {};
      const expected: Record<string, 'allowed' | 'forbidden'> = {};
      for (const [route, permission] of Object.entries(documented)) {
        if (leftOut.has(route)) continue;
        const [method, url] = route.split(' ') as [string, string];
        const mayUse =
          permission === 'public' ||
          permission === 'self' ||
          permission === 'member' ||
          granted.has(permission);
        expected[route] = mayUse ? 'allowed' : 'forbidden';
        let status: number;
        let body: string;
        if (method === 'GET') {
          ({ statusCode: status, body } = await client.get(concrete(url)));
        } else {
          await client.get('/backoffice/dashboard');
          ({ statusCode: status, body } = await client.post(concrete(url), {}));
        }
        outcomes[route] = status === 403 ? 'forbidden' : 'allowed';
        if (status === 403) {
          // The forbidden page, in the layout with the user's navigation.
          expect(body).toContain('<nav aria-label="Main">');
        }
      }
      expect(outcomes).toEqual(expected);
    },
  );

  it("the operator is let through the operator's routes and gets 403 on the tenants'", async () => {
    const client = new PageClient(t.app);
    await client.signIn(operator.email, operator.password);
    const outcomes: Record<string, 'allowed' | 'forbidden'> = {};
    const expected: Record<string, 'allowed' | 'forbidden'> = {};
    for (const [route, permission] of Object.entries(documented)) {
      if (leftOut.has(route)) continue;
      const [method, url] = route.split(' ') as [string, string];
      const mayUse = ['public', 'self', 'operator'].includes(permission);
      expected[route] = mayUse ? 'allowed' : 'forbidden';
      if (method !== 'GET') await client.get('/backoffice/operator/tenants');
      const response =
        method === 'GET' ? await client.get(concrete(url)) : await client.post(concrete(url), {});
      outcomes[route] = response.statusCode === 403 ? 'forbidden' : 'allowed';
    }
    expect(outcomes).toEqual(expected);
  });
});
