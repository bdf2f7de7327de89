/** A tenant's website with a published banner, made through the same services as the command line. */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import {
  createConfiguration,
  createSystem,
  type Editor,
  publishLatestOutsideReview,
} from '../../src/cookies/index.js';
import type { Db } from '../../src/platform/db.js';

export const cliEditor = (tenantId: string): Editor => ({
  tenantId,
  actorKind: 'operator',
  actor: 'command line',
  ip: 'local',
  userAgent: null,
  userId: null,
});

export interface PublishedSystem {
  scope: string;
  configurationId: string;
  version: number;
}

/** A system on `origins` whose first configuration (the categories named) is published. */
export async function seedPublishedSystem(
  db: Db,
  tenantId: string,
  options: { name?: string; origins?: string[]; categories?: string[]; content?: unknown } = {},
): Promise<PublishedSystem> {
  const by = cliEditor(tenantId);
  return db.transaction().execute(async (trx) => {
    const system = await createSystem(
      trx,
      tenantId,
      {
        name: options.name ?? `site ${Math.random().toString(36).slice(2)}`,
        origins: options.origins ?? ['https://www.bank.example'],
      },
      by,
    );
    await createConfiguration(
      trx,
      tenantId,
      {
        system: system.scope,
        name: 'First banner',
        categories: options.categories ?? [
          'analytics',
          'marketing',
          'functional',
          'personalization',
        ],
        ...(options.content === undefined ? {} : { content: options.content }),
      },
      by,
    );
    const published = await publishLatestOutsideReview(trx, tenantId, system.scope, by);
    return { scope: system.scope, configurationId: published.id, version: published.version };
  });
}

/** A visitor's choice, as the banner sends it. */
export interface Choice {
  visitorId: string;
  method: 'accept-all' | 'reject-all' | 'custom' | 'gpc';
  /** Every category of the configuration, `necessary` included. */
  categories: Record<string, boolean>;
  locale: string;
  /** The A/B variant the banner drew, for a configuration with variants. */
  variant?: string;
  /** The signed-in customer's token, as the page gave it to the banner. */
  customerToken?: string;
}

/**
 * Posts `choice` on `site` as the banner does (text/plain, from the site's first origin, from
 * 203.0.113.77), and answers what the service said: the decision's id and time on `201`.
 */
export async function postChoice(
  app: FastifyInstance,
  site: PublishedSystem,
  choice: Choice,
  request: { origin: string; userAgent: string },
): Promise<{ decision_id: string; decided_at: string }> {
  const response = await app.inject({
    method: 'POST',
    url: `/cookies/v1/${site.scope}/decisions`,
    headers: {
      origin: request.origin,
      'content-type': 'text/plain;charset=UTF-8',
      'user-agent': request.userAgent,
    },
    remoteAddress: '203.0.113.77',
    payload: JSON.stringify({
      event_id: randomUUID(),
      visitor_id: choice.visitorId,
      configuration_id: site.configurationId,
      configuration_version: site.version,
      method: choice.method,
      categories: choice.categories,
      locale: choice.locale,
      ...(choice.variant === undefined ? {} : { variant: choice.variant }),
      ...(choice.customerToken === undefined ? {} : { customer_token: choice.customerToken }),
    }),
  });
  if (response.statusCode !== 201) {
    throw new Error(`the choice was answered ${response.statusCode}: ${response.body}`);
  }
  return (JSON.parse(response.body) as { data: { decision_id: string; decided_at: string } }).data;
}

/**
 * The tag the service publishes for a system, written out as a site owner reads it in the docs:
 * Consent Mode's denied defaults inline, then the banner `async` (docs/cookies.md, "Embedding").
 */
export function publishedTag(publicBaseUrl: string, scope: string): string {
  return (
    "<script>window.dataLayer=window.dataLayer||[];(function(){dataLayer.push(arguments)})('consent','default',{ad_storage:'denied',ad_user_data:'denied',ad_personalization:'denied',analytics_storage:'denied',functionality_storage:'denied',personalization_storage:'denied',security_storage:'granted',wait_for_update:500});</script>\n" +
    `<script async src="${publicBaseUrl}/cookies/v1/${scope}/banner.js" data-scope="${scope}"></script>`
  );
}

/**
 * A token for `customerId` through the API, as a site's backend asks for one for a visitor it
 * has signed in (docs/cookies.md, "Signed-in visitors").
 */
export async function mintCustomerToken(
  app: FastifyInstance,
  keyHeaders: Record<string, string>,
  customerId: string,
  body: { system?: string; ttl_seconds?: number } = {},
): Promise<{ token: string; expires_at: string }> {
  const response = await app.inject({
    method: 'POST',
    url: `/api/v1/customers/${encodeURIComponent(customerId)}/cookie-tokens`,
    headers: { ...keyHeaders, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  if (response.statusCode !== 201) {
    throw new Error(`the token was answered ${response.statusCode}: ${response.body}`);
  }
  return (JSON.parse(response.body) as { data: { token: string; expires_at: string } }).data;
}
