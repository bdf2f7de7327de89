import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../platform/db.js';
import { answer, dataOf, errorsOf } from '../platform/http-schemas.js';
import { jsonBodyParser } from '../platform/json-body.js';
import { createRateLimit } from '../platform/rate-limit.js';
import type { VisitorRegion } from '../platform/visitor-region.js';
import type { SubjectVault } from '../subjects/index.js';
import { customerTokenKey } from './customer-tokens.js';
import { declarationLocale, declarationPage } from './declaration.js';
import {
  allowedSystem,
  cookiePublic,
  customerChoice,
  type OriginRefused,
  publishedDeclaration,
  recordChoice,
  servedScript,
} from './public.js';
import { ChoiceBodySchema } from './schemas.js';
import type { CookieChoiceWriter } from './writes.js';

const ScopeParam = Type.Object({
  scope: Type.String({
    maxLength: 64,
    description: "The system's public scope, as in the banner tag's `data-scope`.",
    examples: ['cs_3f9a1c0d5e7b2a4c6d8e'],
  }),
});

const Localized = Type.Record(Type.String(), Type.String(), {
  description: 'By locale (lower-case BCP 47).',
});

const DeclarationSchema = Type.Object({
  configuration_id: Type.String({ format: 'uuid' }),
  version: Type.Integer({ minimum: 1 }),
  default_locale: Type.String(),
  locales: Type.Array(Type.String()),
  categories: Type.Array(
    Type.Object({
      key: Type.String(),
      required: Type.Boolean(),
      texts: Type.Record(
        Type.String(),
        Type.Object({ name: Type.String(), description: Type.String() }),
      ),
      cookies: Type.Array(
        Type.Object({
          name: Type.String({ description: 'A name, or a prefix ending in `*`.' }),
          domain: Type.Union([Type.String(), Type.Null()]),
          provider: Type.Union([Type.String(), Type.Null()]),
          retention: Type.Union([Type.String(), Type.Null()]),
          purpose: Localized,
        }),
      ),
    }),
  ),
});

/** A choice is small: a dozen categories and a few ids. */
const choiceBodyLimit = 4 * 1024;

const CustomerChoiceRequest = Type.Object(
  { customer_token: Type.String({ minLength: 1, maxLength: 2048 }) },
  { additionalProperties: false },
);

const CustomerChoiceAnswer = Type.Object({
  choice: Type.Union([
    Type.Object({
      decision_id: Type.String({ format: 'uuid' }),
      decided_at: Type.String({ format: 'date-time' }),
      configuration_id: Type.String({ format: 'uuid' }),
      configuration_version: Type.Integer({ minimum: 1 }),
      fingerprint: Type.String({
        description: 'The configuration’s fingerprint, as the banner script carries it.',
      }),
      method: Type.Enum(['accept-all', 'reject-all', 'custom', 'gpc']),
      categories: Type.Record(Type.String(), Type.Boolean()),
    }),
    Type.Null(),
  ]),
});

const RecordedChoice = Type.Object({
  decision_id: Type.String({ format: 'uuid' }),
  decided_at: Type.String({ format: 'date-time' }),
  customer_linked: Type.Optional(
    Type.Boolean({
      description:
        'Only for a choice sent with `customer_token`: true when the choice is the customer’s ' +
        'too; false when the token was expired, or not one this service made for this site ' +
        '(the choice is then the visitor’s alone).',
    }),
  ),
});

/**
 * The public endpoints of cookie consent, with no API key: a site's pages load the banner script
 * from any origin, and record choices from the system's own origins only. Choices are
 * rate-limited per address and system (`COOKIE_RATE_LIMIT_PER_MINUTE`); the script is not: it is
 * a public asset served from memory, and a limit per address would leave the visitors behind one
 * carrier's or proxy's address without a banner.
 */
export const cookieRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  writer: CookieChoiceWriter;
  vault: SubjectVault;
  publicBaseUrl: string;
  perMinute: number;
  /** Counts a choice refused for its origin, for the system's owner to see. */
  refused: OriginRefused;
  /** Where a visitor is, for the rules by region and the choice's record. */
  region: VisitorRegion;
}> = async (app, { db, writer, vault, publicBaseUrl, perMinute, refused, region }) => {
  const publicApi = cookiePublic(db);
  const tokenKey = customerTokenKey(vault.dataKey);
  const rateLimit = createRateLimit(perMinute);
  const limit = (scope: string, ip: string, reply: FastifyReply) => {
    const refusal = rateLimit?.(`${scope}\u0000${ip}`, reply);
    if (refusal) throw refusal;
  };
  /**
   * Before a POST's body is read: its origin must be the system's (a refusal told to `counted`,
   * if given), then the rate limit; the page of an allowed origin may read the answer.
   */
  const fromSystemOrigin =
    (counted?: OriginRefused) =>
    async (request: FastifyRequest<{ Params: { scope: string } }>, reply: FastifyReply) => {
      const { scope } = request.params;
      await allowedSystem(publicApi, scope, request.headers.origin, counted);
      allowOrigin(reply, request.headers.origin as string);
      limit(scope, request.ip, reply);
    };
  // The banner sends its choice as `text/plain` (a CORS "simple" request, no preflight); it is
  // JSON all the same, read by the service's one JSON parser.
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, jsonBodyParser(app));

  app.get(
    '/cookies/v1/:scope/banner.js',
    {
      schema: {
        tags: ['cookies'],
        operationId: 'getBannerScript',
        summary: 'The banner script of a system',
        description:
          "The banner with the system's published configuration written in: one request on a " +
          'first view. `ETag` and a short public `Cache-Control`; `Sec-GPC: 1` gives the variant ' +
          'that starts marketing and personalization denied.',
        params: ScopeParam,
        response: {
          200: {
            description: 'The banner script, with the configuration written in.',
            // The bytes `servedScript` encoded once, documented as the text they are.
            content: { 'text/javascript': { schema: Type.Unsafe<Buffer>(Type.String()) } },
          },
          304: { description: 'Not modified: the cached script is current.' },
          ...errorsOf('notFound', 'internal', 'unavailable'),
        },
      },
    },
    async (request, reply) => {
      const { scope } = request.params;
      const script = await servedScript(publicApi, scope, {
        gpc: request.headers['sec-gpc'] === '1',
        publicBaseUrl,
        region: region.of(request.headers, request.ip),
      });
      // A browser may use its copy for 4 minutes, and 1 more while it fetches the new one in the
      // background: never a copy older than 5 minutes, as the docs promise for a publish. A
      // script that differs by region varies by the proxy's headers that say it; found from the
      // address, it is the visitor's browser's own to keep.
      const byRegion = script.byRegion && (region.headers.length > 0 || region.byAddress);
      reply
        .header(
          'cache-control',
          `${byRegion && region.byAddress ? 'private' : 'public'}, max-age=240, stale-while-revalidate=60`,
        )
        .header('etag', script.etag)
        .header('vary', ['Sec-GPC', ...(byRegion ? region.headers : [])].join(', '));
      if (request.headers['if-none-match'] === script.etag) {
        return reply.code(304).send(undefined as never);
      }
      return reply.type('text/javascript; charset=utf-8').send(script.body);
    },
  );

  app.get(
    '/cookies/v1/:scope/declaration.json',
    {
      schema: {
        tags: ['cookies'],
        operationId: 'getCookieDeclaration',
        summary: 'The cookie declaration of a system',
        description:
          "The published configuration's categories, each with the cookies it lists: who sets " +
          'them, for how long and what for, by locale. Public, any origin may read it (the ' +
          "banner's preferences do); a short public `Cache-Control`, as the banner script's.",
        params: ScopeParam,
        response: {
          200: {
            description: 'The declaration.',
            content: { 'application/json': { schema: DeclarationSchema } },
          },
          ...errorsOf('notFound', 'internal', 'unavailable'),
        },
      },
    },
    async (request, reply) => {
      const { declaration } = await publishedDeclaration(publicApi, request.params.scope);
      return reply
        .header('cache-control', 'public, max-age=240, stale-while-revalidate=60')
        .header('access-control-allow-origin', '*')
        .send(declaration);
    },
  );

  app.get(
    '/cookies/v1/:scope/declaration',
    {
      schema: {
        tags: ['cookies'],
        operationId: 'getCookieDeclarationPage',
        summary: 'The cookie declaration of a system, as a page',
        description:
          "The declaration as an HTML page in one locale (`locale`, else the configuration's " +
          "default), with no script, for a site to embed in its cookie policy: the system's " +
          'origins may frame it.',
        params: ScopeParam,
        querystring: Type.Object({
          locale: Type.Optional(Type.String({ maxLength: 35, examples: ['th'] })),
        }),
        response: {
          200: {
            description: 'The declaration page.',
            content: { 'text/html': { schema: Type.String() } },
          },
          ...errorsOf('notFound', 'internal', 'unavailable'),
        },
      },
    },
    async (request, reply) => {
      const { declaration, origins } = await publishedDeclaration(publicApi, request.params.scope);
      const locale = declarationLocale(declaration, request.query.locale);
      // The system's own pages may frame it: `frame-ancestors` names them, so the fixed
      // `X-Frame-Options`, which cannot, goes.
      reply.removeHeader('x-frame-options');
      return reply
        .header(
          'content-security-policy',
          `default-src 'none';style-src 'unsafe-inline';base-uri 'none';form-action 'none';frame-ancestors 'self' ${origins.join(' ')}`,
        )
        .header('cache-control', 'public, max-age=240, stale-while-revalidate=60')
        .header('content-language', locale)
        .type('text/html; charset=utf-8')
        .send(declarationPage(declaration, locale));
    },
  );

  app.post(
    '/cookies/v1/:scope/customer-choice',
    {
      bodyLimit: choiceBodyLimit,
      schema: {
        tags: ['cookies'],
        operationId: 'getCustomerCookieChoice',
        summary: 'What a signed-in customer chose last on a system, from any device',
        description:
          "From one of the system's origins only (`Origin`), as the banner asks it when its page " +
          'gave it a customer token (docs/cookies.md, "Signed-in visitors"): JSON ' +
          '`{"customer_token": …}` sent as `text/plain` or `application/json`. `choice` is null ' +
          'when the customer never chose on this system while signed in; `401 1002` for a token ' +
          'that is not valid for this site, or has expired.',
        params: ScopeParam,
        body: CustomerChoiceRequest,
        response: {
          200: answer(dataOf(CustomerChoiceAnswer), "The customer's newest choice, or null."),
          ...errorsOf(
            'invalidRequest',
            'unauthorized',
            'originNotAllowed',
            'notFound',
            'payloadTooLarge',
            'unsupportedMediaType',
            'tooManyRequests',
            'internal',
            'unavailable',
          ),
        },
      },
      onRequest: fromSystemOrigin(),
    },
    async (request, reply) => {
      const found = await customerChoice(publicApi, db, vault, tokenKey, {
        scope: request.params.scope,
        origin: request.headers.origin,
        body: request.body,
      });
      return reply.header('cache-control', 'no-store').send({ data: found });
    },
  );

  app.options(
    '/cookies/v1/:scope/decisions',
    { schema: { hide: true, params: ScopeParam } },
    async (request, reply) => {
      const { scope } = request.params;
      await allowedSystem(publicApi, scope, request.headers.origin);
      allowOrigin(reply, request.headers.origin as string);
      return reply
        .header('access-control-allow-methods', 'POST')
        .header('access-control-allow-headers', 'content-type')
        .header('access-control-max-age', '600')
        .code(204)
        .send();
    },
  );

  app.post(
    '/cookies/v1/:scope/decisions',
    {
      bodyLimit: choiceBodyLimit,
      schema: {
        tags: ['cookies'],
        operationId: 'recordCookieChoice',
        summary: "Record a website visitor's cookie choice",
        description:
          "From one of the system's origins only (`Origin`), as JSON sent as `text/plain` " +
          '(what `sendBeacon` and a CORS simple request send) or `application/json`. `201` ' +
          'records it; `200` answers a retry of the same `event_id` with its first record.',
        params: ScopeParam,
        body: ChoiceBodySchema,
        response: {
          200: answer(dataOf(RecordedChoice), 'A retry: the choice recorded before.'),
          201: answer(dataOf(RecordedChoice), 'Recorded.'),
          ...errorsOf(
            'invalidRequest',
            'originNotAllowed',
            'notFound',
            'conflict',
            'payloadTooLarge',
            'unsupportedMediaType',
            'tooManyRequests',
            'internal',
            'unavailable',
          ),
        },
      },
      // Before the body is read: the origin, then the rate limit, then the body. A refused
      // origin is counted here only: a preflight that the same page sends first is not a choice.
      onRequest: fromSystemOrigin(refused),
    },
    async (request, reply) => {
      const { status, answer: body } = await recordChoice(
        publicApi,
        db,
        writer,
        vault,
        {
          scope: request.params.scope,
          origin: request.headers.origin,
          body: request.body,
          ip: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
          region: region.of(request.headers, request.ip),
        },
        tokenKey,
      );
      return reply.code(status).header('cache-control', 'no-store').send(body);
    },
  );
};

/** Lets the page of an allowed origin read the answer (its receipt id, or why it was refused). */
function allowOrigin(reply: FastifyReply, origin: string): void {
  reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
}
