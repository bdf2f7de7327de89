import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../api-keys/index.js';
import { CustomerIdParam } from '../decisions/index.js';
import type { Db } from '../platform/db.js';
import { answer, apiKeySecurity, errorsOf, keyedErrors } from '../platform/http-schemas.js';
import { controlRoute } from '../record-kinds/control-routes.js';
import type { SubjectVault } from '../subjects/index.js';
import type { PartnerBlockWriter } from './blocks.js';
import {
  DecisionIdParam,
  DecisionPartnerList,
  PartnerBlockRequest,
  PartnerBlockSchema,
  PartnerCodeParam,
} from './schemas.js';
import { listPartnerBlocks, setPartnerBlock } from './service.js';

export const partnerBlockRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  writer: PartnerBlockWriter;
  vault: SubjectVault;
}> = async (app, { db, writer, vault }) => {
  controlRoute(app, {
    path: '/api/v1/customers/:customer_id/consents/decisions/:decision_id/partners/:partner_code',
    tags: ['partners'],
    operationId: 'setPartnerBlock',
    summary: "Block or allow one partner on one of a customer's decisions",
    description:
      '`201` records a change and answers the new state; `200` answers the state the ' +
      'partner already has on the decision, storing nothing. The decision stays as it ' +
      "is, and the customer's other decisions are not affected. `404 1004` for a decision " +
      "that is not this customer's, or a partner its version does not list; `409 1005` for " +
      'a decision no longer in force (superseded, withdrawn, rejected or lapsed). An optional ' +
      '`Idempotency-Key` is kept with the change as evidence and replays the first response ' +
      'for 24 hours, status included, with `Idempotent-Replayed: true`; the same key with ' +
      'another request is `422`.',
    params: Type.Object({
      customer_id: CustomerIdParam,
      decision_id: DecisionIdParam,
      partner_code: PartnerCodeParam,
    }),
    body: PartnerBlockRequest,
    state: PartnerBlockSchema,
    refusals: ['conflict'],
    set: ({ caller, params, blocked, idempotencyKey }) =>
      setPartnerBlock(
        db,
        writer,
        vault,
        caller,
        {
          customerId: params.customer_id,
          decisionId: params.decision_id,
          partnerCode: params.partner_code,
        },
        blocked,
        idempotencyKey,
      ),
  });

  app.get(
    '/api/v1/customers/:customer_id/consents/decisions/:decision_id/partners',
    {
      schema: {
        tags: ['partners'],
        operationId: 'listPartnerBlocks',
        summary: "The partners of a customer's decision, each blocked or not",
        description:
          "Every partner the decision's version lists, by code, with `blocked` and `since` " +
          "(null when never blocked). `404 1004` for a decision that is not this customer's.",
        security: apiKeySecurity,
        params: Type.Object({ customer_id: CustomerIdParam, decision_id: DecisionIdParam }),
        response: {
          200: answer(DecisionPartnerList, "The decision's partners."),
          ...errorsOf('invalidRequest', 'notFound', ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = callerOf(request);
      const { customer_id, decision_id } = request.params;
      reply.header('cache-control', 'no-store');
      return { data: await listPartnerBlocks(db, vault, tenantId, customer_id, decision_id) };
    },
  );
};
