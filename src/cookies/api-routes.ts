import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../api-keys/index.js';
import type { Db } from '../platform/db.js';
import { answer, apiKeySecurity, dataOf, errorsOf, keyedErrors } from '../platform/http-schemas.js';
import { uuidPattern } from '../platform/ids.js';
import type { SubjectVault } from '../subjects/index.js';
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
