import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../api-keys/index.js';
import { CustomerIdParam } from '../decisions/index.js';
import { answer, apiKeySecurity, dataOf, errorsOf, keyedErrors } from '../platform/http-schemas.js';
import type { ReadOn } from '../platform/replicas.js';
import type { Registry } from '../record-kinds/index.js';
import type { SubjectVault } from '../subjects/index.js';
import type { Catalog } from '../templates/index.js';
import { localesOf, TemplateCodeParam } from '../templates/index.js';
import { AsOfQuery, ConsentAsOf, CustomerConsents, HistoryQuery } from './schemas.js';
import { getConsentAsOf, getCustomerConsents } from './service.js';

export const consentRoutes: FastifyPluginAsyncTypebox<{
  /** On a replica caught up with the primary when there are some (platform/replicas.ts). */
  readOn: ReadOn;
  catalog: Catalog;
  vault: SubjectVault;
  registry: Registry;
}> = async (app, { readOn, catalog, vault, registry }) => {
  app.get(
    '/api/v1/customers/:customer_id/consents',
    {
      schema: {
        tags: ['consents'],
        operationId: 'getCustomerConsents',
        summary: "A customer's consents: where they stand on each template, and their history",
        description:
          'The history lists every decision, newest first, a page at a time: pass the ' +
          "previous page's `next_cursor` as `cursor` (null on the last page). A customer " +
          'with no decision, or one who was erased, answers empty lists.',
        security: apiKeySecurity,
        params: Type.Object({ customer_id: CustomerIdParam }),
        querystring: HistoryQuery,
        response: {
          200: answer(dataOf(CustomerConsents), 'The standings and one page of the history.'),
          ...errorsOf('invalidRequest', ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = callerOf(request);
      reply.header('cache-control', 'no-store');
      return {
        data: await readOn((db) =>
          getCustomerConsents(
            db,
            vault,
            registry,
            tenantId,
            request.params.customer_id,
            request.query,
            localesOf(request).length > 0,
          ),
        ),
      };
    },
  );

  app.get(
    '/api/v1/customers/:customer_id/consents/templates/:template_code/as-of',
    {
      schema: {
        tags: ['consents'],
        operationId: 'getConsentAsOf',
        summary: 'What was in force for a customer and template at a given moment',
        description:
          'The most recent decision made at or before `at` (null when none), the latest ' +
          'version published by then, and whether the customer had decided on it then.',
        security: apiKeySecurity,
        params: Type.Object({ customer_id: CustomerIdParam, template_code: TemplateCodeParam }),
        querystring: AsOfQuery,
        response: {
          200: answer(dataOf(ConsentAsOf), 'What was in force at `at`.'),
          ...errorsOf('invalidRequest', 'templateNotFound', ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = callerOf(request);
      const { customer_id, template_code } = request.params;
      reply.header('cache-control', 'no-store');
      return {
        data: await readOn((db) =>
          getConsentAsOf(
            db,
            catalog,
            vault,
            tenantId,
            customer_id,
            template_code,
            request.query.at,
            localesOf(request).length > 0,
          ),
        ),
      };
    },
  );
};
