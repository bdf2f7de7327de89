import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../api-keys/index.js';
import { CustomerIdParam } from '../decisions/index.js';
import type { Db } from '../platform/db.js';
import { answer, apiKeySecurity, dataOf, errorsOf, keyedErrors } from '../platform/http-schemas.js';
import { uuidPattern } from '../platform/ids.js';
import { optionalJsonBody } from '../platform/json-body.js';
import type { SubjectVault } from '../subjects/index.js';
import { customerTokenKey, defaultTokenSeconds, mintCustomerToken } from './customer-tokens.js';
import { getCookieDecision, listCookieDecisions } from './decision-list.js';
import { CookieDecisionItem, CookieDecisionPage, CookieDecisionsQuery } from './schemas.js';

/** The tenant's cookie decisions under its API key: the list, and one by its id. */
export const cookieDecisionApiRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  vault: SubjectVault;
  publicBaseUrl: string;
}> = async (app, { db, vault, publicBaseUrl }) => {
  const reading = (tenantId: string) => ({ db, vault, tenantId, publicBaseUrl });

  app.get(
    '/api/v1/cookie-decisions',
    {
      schema: {
        tags: ['cookies'],
        operationId: 'listCookieDecisions',
        summary: "The tenant's website visitors' cookie decisions",
        description:
          "Newest first, a page at a time: pass the previous page's `next_cursor` as `cursor` " +
          '(null on the last page). Filtered by visitor, system and time; each with its ' +
          "receipt's URL. A visitor never seen, or erased, answers an empty list.",
        security: apiKeySecurity,
        querystring: CookieDecisionsQuery,
        response: {
          200: answer(dataOf(CookieDecisionPage), 'One page of the decisions.'),
          ...errorsOf('invalidRequest', 'notFound', ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const { tenantId } = callerOf(request);
      return { data: await listCookieDecisions(reading(tenantId), request.query) };
    },
  );

  app.get(
    '/api/v1/cookie-decisions/:decision_id',
    {
      schema: {
        tags: ['cookies'],
        operationId: 'getCookieDecision',
        summary: "A website visitor's cookie decision",
        description: 'By the id the choice was answered with, as the list gives it.',
        security: apiKeySecurity,
        params: Type.Object({ decision_id: Type.String({ pattern: uuidPattern }) }),
        response: {
          200: answer(dataOf(CookieDecisionItem), 'The decision.'),
          ...errorsOf('invalidRequest', 'notFound', ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const { tenantId } = callerOf(request);
      return { data: await getCookieDecision(reading(tenantId), request.params.decision_id) };
    },
  );
};

const CustomerTokenRequest = Type.Object(
  {
    system: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          'The one system the token is for, by its public scope (`data-scope`); absent: every ' +
          'system of the tenant.',
        examples: ['cs_3f9a1c0d5e7b2a4c6d8e'],
      }),
    ),
    ttl_seconds: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: 24 * 60 * 60,
        description: `How long the token lasts, in seconds: ${defaultTokenSeconds} when absent.`,
      }),
    ),
  },
  { additionalProperties: false },
);

const CustomerToken = Type.Object({
  token: Type.String({
    description:
      "For the banner tag's `data-customer-token`: sealed, so the page cannot read or change " +
      'the customer id it carries.',
  }),
  expires_at: Type.String({ format: 'date-time' }),
});

/** The token a site's backend writes in its page for a visitor it has signed in. */
export const cookieCustomerTokenRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  vault: SubjectVault;
}> = async (app, { db, vault }) => {
  const key = customerTokenKey(vault.dataKey);
  app.post(
    '/api/v1/customers/:customer_id/cookie-tokens',
    {
      schema: {
        tags: ['cookies'],
        operationId: 'createCookieCustomerToken',
        summary: 'A token that makes a signed-in visitor’s cookie choices the customer’s too',
        description:
          "For the site's backend to write in its pages for a visitor it has signed in, as the " +
          'banner tag\'s `data-customer-token` (docs/cookies.md, "Signed-in visitors"): their ' +
          "choices are then in the customer's evidence pack and history, and apply on their " +
          'other devices. It lasts `ttl_seconds` (an hour when absent, at most 24 hours); ' +
          'nothing is stored. The body is optional; a `system` that is not one of the ' +
          "tenant's is `400 1001`.",
        security: apiKeySecurity,
        params: Type.Object({ customer_id: CustomerIdParam }),
        body: CustomerTokenRequest,
        response: {
          201: answer(dataOf(CustomerToken), 'The token, and when it expires.'),
          ...errorsOf('invalidRequest', 'payloadTooLarge', 'unsupportedMediaType', ...keyedErrors),
        },
      },
      // A body, when there is one, is JSON: anything else never reaches validation.
      preValidation: optionalJsonBody,
    },
    async (request, reply) => {
      const token = await mintCustomerToken(
        db,
        key,
        callerOf(request),
        request.params.customer_id,
        request.body,
      );
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ data: token });
    },
  );
};
