import type { RouteOptions } from 'fastify';
import { type DefaultTreeAdapterTypes, parse } from 'parse5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import { registry } from '../../src/app/kinds.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import { createEndpoint } from '../../src/webhooks/service.js';
import { apiOf } from '../helpers/api.js';
import type { TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import { choose } from './cookies-support.js';
import {
  fourEyesOff,
  operator,
  PageClient,
  signedIn,
  startBackofficeApp,
  tenantPassword,
  textOf,
  writeDraft,
} from './support.js';
import { builtIn } from './team-support.js';

/**
 * Every page shows only what its reader may do: under each built-in role (and as the operator),
 * every back-office page the reader can reach is rendered, and every link and form on it must
 * point to a route the reader may use, as that route declares it (`config.permission`).
 */

interface DeclaredRoute {
  method: string;
  segments: string[];
  url: string;
  permission: string;
}

/** What a page offers: a link, or a form (or a button's own `formaction`), with its method. */
interface Offer {
  method: string;
  target: string;
  kind: string;
}

type Node =
  | DefaultTreeAdapterTypes.ChildNode
  | DefaultTreeAdapterTypes.Document
  | DefaultTreeAdapterTypes.DocumentFragment;

function offersOf(page: string, pageUrl: string): Offer[] {
  const offers: Offer[] = [];
  const attr = (node: DefaultTreeAdapterTypes.Element, name: string) =>
    node.attrs.find((a) => a.name === name)?.value;
  const walk = (node: Node, formMethod: string | undefined, formAction: string | undefined) => {
    let method = formMethod;
    let action = formAction;
    if ('tagName' in node) {
      const tag = node.tagName;
      if (tag === 'a' && attr(node, 'href') !== undefined) {
        offers.push({ method: 'GET', target: attr(node, 'href') ?? '', kind: 'link' });
      }
      if (tag === 'form') {
        method = (attr(node, 'method') ?? 'get').toUpperCase();
        action = attr(node, 'action') ?? pageUrl;
        offers.push({ method, target: action, kind: 'form' });
      }
      if ((tag === 'button' || tag === 'input') && attr(node, 'formaction') !== undefined) {
        offers.push({
          method: (attr(node, 'formmethod') ?? method ?? 'get').toUpperCase(),
          target: attr(node, 'formaction') ?? '',
          kind: 'formaction',
        });
      }
      for (const verb of ['get', 'post']) {
        const target = attr(node, `hx-${verb}`);
        if (target !== undefined) {
          offers.push({ method: verb.toUpperCase(), target, kind: `hx-${verb}` });
        }
      }
    }
    const children = 'childNodes' in node ? node.childNodes : [];
    for (const child of children) walk(child, method, action);
    if ('content' in node) walk(node.content, method, action);
  };
  walk(parse(page), undefined, undefined);
  return offers;
}

/** The path of a back-office target, without query and fragment; undefined when elsewhere. */
function backofficePath(target: string): string | undefined {
  const url = new URL(target, 'https://consent.test/backoffice/');
  if (url.origin !== 'https://consent.test' || !url.pathname.startsWith('/backoffice')) {
    return undefined;
  }
  return url.pathname.length > 1 ? url.pathname.replace(/\/$/, '') : url.pathname;
}

/** The declared route a request would reach: a static segment wins over a parameter. */
function routeOf(
  routes: readonly DeclaredRoute[],
  method: string,
  path: string,
): DeclaredRoute | undefined {
  const segments = path.split('/');
  const candidates = routes.filter(
    (r) =>
      r.method === method &&
      r.segments.length === segments.length &&
      r.segments.every((s, i) => s === segments[i] || (s.startsWith(':') && segments[i] !== '')),
  );
  const rank = (r: DeclaredRoute) =>
    r.segments.map((s) => (s.startsWith(':') ? '1' : '0')).join('');
  return candidates.sort((x, y) => rank(x).localeCompare(rank(y)))[0];
}

describe.each(stores)('every page offers only what its reader may do, on $name', (store) => {
  const routes: DeclaredRoute[] = [];
  let t: TestApp;
  let full: SeededTenant;
  let empty: SeededTenant;

  beforeAll(async () => {
    t = await startBackofficeApp(
      store,
      {},
      {
        onRoute: (route: RouteOptions) => {
          const permission = route.config?.permission;
          if (!route.url.startsWith('/backoffice') || typeof permission !== 'string') return;
          for (const method of [route.method].flat()) {
            routes.push({
              method,
              url: route.url,
              segments: (route.url.length > 1 ? route.url.replace(/\/$/, '') : route.url).split(
                '/',
              ),
              permission,
            });
          }
        },
      },
    );
    full = await seedTenant(t.db);
    empty = await seedTenant(t.db);
    const hash = await hashPassword(tenantPassword, testPasswordHashCost);
    for (const tenant of [full, empty]) {
      for (const roleId of Object.keys(builtIn)) {
        await t.db.transaction().execute((trx) =>
          addUser(trx, tenant.tenant.id, {
            email: `${roleId}-${tenant.tenant.alias}@example.test`,
            name: `The ${roleId}`,
            roles: [roleId],
            passwordHash: hash,
          }),
        );
      }
    }

    // The full tenant: something in every list, and something for every action to act on.
    const admin = await signedIn(t.app, full.tenant.email);
    await fourEyesOff(t.db, full.tenant.id);
    const posted = async (page: string, action: string, fields: Record<string, string>) => {
      const response = await admin.submit(page, action, fields);
      if (response.statusCode >= 400) {
        throw new Error(`${action} answered ${response.statusCode}: ${textOf(response.body)}`);
      }
      return response;
    };
    await posted('/backoffice/products/new', '/backoffice/products', {
      code: 'retail',
      name: 'Retail',
      description: '',
    });
    await posted('/backoffice/products/new', '/backoffice/products', {
      code: 'old_line',
      name: 'Old line',
      description: '',
    });
    await posted('/backoffice/products/old_line', '/backoffice/products/old_line/archive', {});
    await posted('/backoffice/partners/new', '/backoffice/partners', {
      code: 'acme',
      name: 'Acme',
      purpose: 'Offers',
      country: 'TH',
      policy_url: 'https://acme.example/privacy',
    });
    const live = await seedTemplate(t.db, full.tenant.id);
    const version = await publish(t.db, full.tenant.id, live, { tag: '1.0' });
    await writeDraft(admin, live, { tag: '2.0', content_html: '<p>Next text</p>' });
    const reviewed = await seedTemplate(t.db, full.tenant.id);
    const inReview = await writeDraft(admin, reviewed, { tag: '1.0', content_html: '<p>A</p>' });
    const review = `/backoffice/templates/${reviewed}/versions/${inReview}`;
    await posted(`${review}/review`, `${review}/submit`, {});
    const passed = await seedTemplate(t.db, full.tenant.id);
    const toApprove = await writeDraft(admin, passed, { tag: '1.0', content_html: '<p>B</p>' });
    const approval = `/backoffice/templates/${passed}/versions/${toApprove}`;
    await posted(`${approval}/review`, `${approval}/submit`, {});
    await posted(`${approval}/review`, `${approval}/pass`, {});
    const retired = await seedTemplate(t.db, full.tenant.id);
    await posted(`/backoffice/templates/${retired}`, `/backoffice/templates/${retired}/retire`, {
      confirm: 'true',
    });
    const made = await posted('/backoffice/api-keys', '/backoffice/api-keys', {
      name: 'to revoke',
    });
    const revoked = /\/api-keys\/([0-9a-f-]{36})/.exec(String(made.headers.location))?.[1] ?? '';
    await posted(
      `/backoffice/api-keys/${revoked}/revoke`,
      `/backoffice/api-keys/${revoked}/revoke`,
      {},
    );
    await posted('/backoffice/settings/scim', '/backoffice/settings/scim', { name: 'Entra ID' });
    await posted('/backoffice/settings/scim', '/backoffice/settings/scim', { name: 'Old IdP' });
    const oldToken = await t.db
      .selectFrom('scim_tokens')
      .select('id')
      .where('name', '=', 'Old IdP')
      .executeTakeFirstOrThrow();
    await posted(
      `/backoffice/settings/scim/${oldToken.id}/revoke`,
      `/backoffice/settings/scim/${oldToken.id}/revoke`,
      {},
    );
    await posted('/backoffice/roles/new', '/backoffice/roles', {
      name: 'Key keeper',
      description: 'Manages API keys',
      permissions: 'api_keys:view',
    });
    await posted('/backoffice/users/new', '/backoffice/users', {
      name: 'Invited',
      email: `invited-${full.tenant.alias}@example.test`,
      roles: 'editor',
    });
    const by = {
      tenantId: full.tenant.id,
      actorKind: 'operator',
      actor: 'test',
      ip: 'local',
      userAgent: null,
    } as const;
    await createEndpoint(t.db, t.vault, t.config.webhooks, registry, by, {
      url: 'https://hooks.example.com/consent',
      events: ['version.archived'],
    });
    // Cookies: a system with a configuration at every status, one published with choices on it.
    const system = await posted('/backoffice/cookies/systems/new', '/backoffice/cookies/systems', {
      name: 'Public site',
      origins: 'https://www.bank.example',
    });
    const scope = /cs_[0-9a-f]{20}/.exec(String(system.headers.location))?.[0] ?? '';
    const banner = async (name: string, steps: string[]) => {
      const made = await posted(
        '/backoffice/cookies/configurations/new',
        '/backoffice/cookies/configurations',
        { system: scope, name, effective_date: '2026-07-01', categories: 'analytics' },
      );
      const path = String(made.headers.location).replace(/\?.*$/, '');
      for (const [step, fields] of steps.map((s) => s.split('+'))) {
        await posted(path, `${path}/${step}`, fields ? { [fields]: 'true' } : {});
      }
      return path.replace(/^.*\//, '');
    };
    await banner('Draft banner', []);
    await banner('Banner in review', ['submit']);
    await banner('Banner to approve', ['submit', 'pass']);
    await banner('Rejected banner', ['submit', 'pass', 'reject']);
    await banner('Approved banner', ['submit', 'pass', 'approve']);
    const liveBanner = await banner('Live banner', ['submit', 'pass', 'approve+publish_now']);
    await choose(t.app, { scope, configurationId: liveBanner, version: 6 }, 'accept-all', {
      necessary: true,
      analytics: true,
    });
    const api = apiOf(t.app, full.headers);
    for (const customer of ['customer-1', 'customer-2']) {
      const decided = await api.decide(customer, version.consent_version_id, 'given');
      if (decided.statusCode !== 201) throw new Error(`decision: ${decided.body}`);
    }
  });
  afterAll(() => t?.close());

  /**
   * Signs in, then reads every page reachable from the pages that need no parameter, following
   * the links the reader may use; answers each offer that leads where the reader may not go.
   */
  async function forbiddenOffers(
    client: PageClient,
    mayUse: (permission: string) => boolean,
    extraStarts: readonly string[],
  ): Promise<{ problems: string[]; opened: Set<string> }> {
    const starts = routes
      .filter((r) => r.method === 'GET' && !r.url.includes(':') && !r.url.includes('.'))
      .map((r) => r.url)
      .filter((url) => {
        const route = routeOf(routes, 'GET', url);
        return route !== undefined && mayUse(route.permission);
      });
    const queue = [...starts, ...extraStarts];
    const seen = new Set<string>();
    const perRoute = new Map<string, number>();
    const problems = new Set<string>();
    while (queue.length > 0) {
      const url = queue.shift() ?? '';
      const path = backofficePath(url);
      if (!path) continue;
      const query = [...new URL(url, 'https://consent.test').searchParams.keys()].sort().join();
      const key = `${path}?${query}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const route = routeOf(routes, 'GET', path);
      if (!route || route.url.startsWith('/backoffice/assets')) continue;
      // Enough of each kind of page: a few templates, versions, users and keys each.
      const count = perRoute.get(route.url) ?? 0;
      if (count >= 8) continue;
      perRoute.set(route.url, count + 1);
      const response = await client.get(url);
      if (response.statusCode === 303 || response.statusCode === 302) {
        queue.push(String(response.headers.location));
        continue;
      }
      if (!String(response.headers['content-type']).startsWith('text/html')) continue;
      for (const offer of offersOf(response.body, url)) {
        const target = backofficePath(offer.target);
        if (!target) continue;
        const reached = routeOf(routes, offer.method, target);
        if (!reached) {
          problems.add(`${path}: ${offer.kind} ${offer.method} ${offer.target} reaches no route`);
        } else if (!mayUse(reached.permission)) {
          problems.add(
            `${path}: ${offer.kind} ${offer.method} ${target} needs ${reached.permission}`,
          );
        } else if (offer.method === 'GET' && offer.kind === 'link') {
          queue.push(offer.target);
        }
      }
    }
    return { problems: [...problems].sort(), opened: new Set(perRoute.keys()) };
  }

  const pagesWithActions = [
    '/backoffice/dashboard',
    '/backoffice/products/:code',
    '/backoffice/partners/:code',
    '/backoffice/templates/:code',
    '/backoffice/templates/:code/versions/:id',
    '/backoffice/templates/:code/versions/:id/review',
    '/backoffice/api-keys/:id',
    '/backoffice/api-keys/:id/revoke',
    '/backoffice/webhooks/:id',
    '/backoffice/users/:id',
    '/backoffice/roles/:id',
    '/backoffice/customers',
    '/backoffice/customers/erase',
    '/backoffice/decisions/:id',
    '/backoffice/settings',
    '/backoffice/preference-centre',
    '/backoffice/cookies',
    '/backoffice/cookies/systems/:scope',
    '/backoffice/cookies/configurations/:id',
    '/backoffice/cookies/configurations/:id/edit',
    '/backoffice/cookies/decisions',
    '/backoffice/cookies/visitors/erase',
    '/backoffice/log',
    '/backoffice/audit',
  ];

  const tenants = () =>
    [
      ['with something in every list', full],
      ['with nothing yet', empty],
    ] as const;

  it.each(Object.keys(builtIn))(
    'under the %s role, no page links or posts to a route the role may not use',
    async (roleId) => {
      const granted = new Set(builtIn[roleId]);
      const mayUse = (permission: string) =>
        ['public', 'self', 'member'].includes(permission) || granted.has(permission);
      const found: Record<string, string[]> = {};
      for (const [situation, tenant] of tenants()) {
        const client = await signedIn(t.app, `${roleId}-${tenant.tenant.alias}@example.test`);
        const extra = [
          '/backoffice/customers?customer_id=customer-1',
          '/backoffice/customers/erase?customer_id=customer-1',
        ].filter((url) =>
          mayUse(routeOf(routes, 'GET', url.split('?')[0] ?? '')?.permission ?? ''),
        );
        const { problems, opened } = await forbiddenOffers(client, mayUse, extra);
        found[situation] = problems;
        if (roleId === 'admin' && tenant === full) {
          // The crawl reached a page of every kind that has actions.
          expect([...opened]).toEqual(expect.arrayContaining(pagesWithActions));
        }
      }
      expect(found).toEqual(
        Object.fromEntries(tenants().map(([situation]) => [situation, [] as string[]])),
      );
    },
  );

  it("as the operator, no page links or posts to a tenant's route", async () => {
    const client = new PageClient(t.app);
    await client.signIn(operator.email, operator.password);
    const mayUse = (permission: string) => ['public', 'self', 'operator'].includes(permission);
    expect((await forbiddenOffers(client, mayUse, [])).problems).toEqual([]);
  });
});
