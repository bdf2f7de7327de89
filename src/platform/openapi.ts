import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { documentedAs, noSecurity } from './http-schemas.js';

type Transform = NonNullable<FastifyDynamicSwaggerOptions['transform']>;
type RouteSchema = Parameters<Transform>[0]['schema'] & Record<string, unknown>;

export interface OpenApiOptions {
  /** The service version, the document's `info.version`. */
  version: string;
  /** Where this instance answers (`PUBLIC_BASE_URL`): the document's one server. */
  publicBaseUrl: string;
  /** OpenAPI 3.1 `webhooks`: the events a tenant's endpoints receive, by name. */
  webhooks?: Record<string, unknown>;
}

/** Sent on every answer (contract section 2). */
const requestIdHeader = {
  'x-request-id': Type.String({
    pattern: '^[A-Za-z0-9._:-]{1,128}$',
    description:
      "The request's id: the caller's own `X-Request-Id` when it matched this pattern, otherwise " +
      'a new one. The service logs the request under it.',
  }),
};

/** Sent on every answer of a keyed operation that passed the key check, while a limit is set. */
const rateLimitHeaders = {
  'ratelimit-limit': Type.Integer({
    minimum: 1,
    description: 'Requests allowed per API key per minute (absent when no limit is set).',
  }),
  'ratelimit-remaining': Type.Integer({
    minimum: 0,
    description: 'Requests left in the current minute.',
  }),
  'ratelimit-reset': Type.Integer({
    minimum: 1,
    description: 'Seconds until the current minute ends and the count starts again.',
  }),
};

/**
 * OpenAPI 3.1, generated from the route schemas: `/api/docs` (browsable) and `/api/docs/json`.
 * The public document is the API's (`/api/…`) and the public cookie endpoints' (`/cookies/v1/…`,
 * which a website's banner calls): the back-office's pages are left out. Each
 * response gets the headers every answer carries (`X-Request-Id`; `RateLimit-*` past the key
 * check); an operation that names no security needs no key (`security: []`).
 */
export async function registerOpenApi(
  app: FastifyInstance,
  options: OpenApiOptions,
): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Consent API',
        version: options.version,
        description:
          'Published consent texts, pending checks and the record of customer decisions. ' +
          'Every `/api/v1` endpoint but the health check needs the `x-system-api-key` header. ' +
          'Errors are `{"code","message"}` with a code from the catalogue (contract section 3); ' +
          'every answer carries `X-Request-Id`.',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: options.publicBaseUrl, description: 'This instance (PUBLIC_BASE_URL)' }],
      security: [{ apiKey: [] }],
      tags: [
        { name: 'health', description: 'Whether the service and its store answer.' },
        { name: 'templates', description: 'Published consent texts and their content files.' },
        { name: 'decisions', description: 'Pending checks and recording decisions.' },
        { name: 'consents', description: "A customer's record: standings, history, as-of." },
        {
          name: 'channels',
          description: "A customer's contact channels, blocked or allowed per product.",
        },
        {
          name: 'partners',
          description: "The partners a customer's decision allows, each blocked or not.",
        },
        {
          name: 'preference centre',
          description: "Links to a customer's own page, where they see and change their consents.",
        },
        {
          name: 'requests',
          description:
            'Data-subject requests (PDPA sections 30-36): each step logged, on a 30-day clock.',
        },
        { name: 'log', description: 'The decision log: receipts, checkpoints and proofs.' },
        { name: 'webhooks', description: "Events sent to a tenant's endpoints, signed." },
        {
          name: 'cookies',
          description: "A website's cookie banner: its script, and its visitors' choices (no key).",
        },
      ],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'x-system-api-key',
            description: "The tenant's API key (`csk_…`). A secret: servers only.",
          },
        },
      },
      ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    },
    transform: ({ schema, url }) => {
      if (!url.startsWith('/api/') && !url.startsWith('/cookies/v1/')) {
        return { schema: { ...schema, hide: true }, url };
      }
      return { schema: schema ? documented(schema as RouteSchema) : schema, url };
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    uiConfig: { docExpansion: 'list' },
    // The UI's own Content-Security-Policy (with hashes for its inline code) replaces the one in
    // security-headers.ts.
    staticCSP: true,
  });
}

/**
 * A route's schema as the document shows it, made anew so that the schemas the routes validate
 * and serialize with stay as they are: the common headers on each response, `security: []` where
 * no key is needed, and query parameters shown as the integers they mean.
 */
function documented(schema: RouteSchema): RouteSchema {
  if (schema.hide) return schema;
  const keyed = Array.isArray(schema.security) && schema.security.length > 0;
  const response = schema.response as Record<string, TSchema & { headers?: object }> | undefined;
  const responses = response
    ? Object.fromEntries(
        Object.entries(response).map(([status, body]) => {
          // A 401 is answered before the rate limit counts the request.
          const limited = keyed && status !== '401';
          const headers = {
            ...requestIdHeader,
            ...(limited ? rateLimitHeaders : {}),
            ...body.headers,
          };
          return [status, { ...body, headers }];
        }),
      )
    : undefined;
  return {
    ...schema,
    ...(keyed ? {} : { security: noSecurity }),
    ...(responses ? { response: responses } : {}),
    ...(schema.querystring ? { querystring: documentedQuery(schema.querystring as TSchema) } : {}),
  };
}

/** A querystring schema with each marked property replaced by the schema it is documented as. */
function documentedQuery(query: TSchema): TSchema {
  const properties = (query as { properties?: Record<string, TSchema> }).properties;
  if (!properties) return query;
  const shown = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      const documented = (property as Record<symbol, unknown>)[documentedAs];
      return [name, (documented as TSchema | undefined) ?? property];
    }),
  );
  return { ...query, properties: shown };
}
