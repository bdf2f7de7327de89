import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../api-keys/index.js';
import { CustomerIdParam, idempotencyKeyPattern } from '../decisions/index.js';
import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import {
  answer,
  apiKeySecurity,
  dataOf,
  errorsOf,
  keyedErrors,
  responseHeaders,
} from '../platform/http-schemas.js';
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

const jsonMediaType = /^application\/json\s*(;|$)/i;
const replayed = { 'idempotent-replayed': responseHeaders.idempotentReplayed };

export const partnerBlockRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  writer: PartnerBlockWriter;
  vault: SubjectVault;
}> = async (app, { db, writer, vault }) => {
  app.put(
    '/api/v1/customers/:customer_id/consents/decisions/:decision_id/partners/:partner_code',
    {
      schema: {
        tags: ['partners'],
        operationId: 'setPartnerBlock',
        summary: "Block or allow one partner on one of a customer's decisions",
        description:
          '`201` records a change and answers the new state; `200` answers the state the ' +
          'partner already has on the decision, storing nothing. The decision stays as it ' +
          "is, and the customer's other decisions are not affected. `404 1004` for a decision " +
          "that is not this customer's, or a partner its version does not list. An optional " +
          '`Idempotency-Key` is kept with the change as evidence and replays the first response ' +
          'for 24 hours, status included, with `Idempotent-Replayed: true`; the same key with ' +
          'another request is `422`.',
        security: apiKeySecurity,
        params: Type.Object({
          customer_id: CustomerIdParam,
          decision_id: DecisionIdParam,
          partner_code: PartnerCodeParam,
        }),
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ pattern: idempotencyKeyPattern })),
        }),
        body: PartnerBlockRequest,
        response: {
          200: answer(
            dataOf(PartnerBlockSchema),
            'Unchanged: the current state. Nothing was stored.',
            replayed,
          ),
          201: answer(dataOf(PartnerBlockSchema), 'Recorded: the new state.', replayed),
          ...errorsOf(
            'invalidRequest',
            'notFound',
            'payloadTooLarge',
            'unsupportedMediaType',
            'idempotencyMismatch',
            ...keyedErrors,
          ),
        },
      },
      // As for a decision: a body without a JSON media type never reaches validation.
      preValidation: async (request) => {
        if (!jsonMediaType.test(request.headers['content-type'] ?? '')) {
          throw new AppError('unsupportedMediaType');
        }
      },
    },
    async (request, reply) => {
      const { tenantId, apiKeyId } = callerOf(request);
      const { customer_id, decision_id, partner_code } = request.params;
      const outcome = await setPartnerBlock(
        db,
        writer,
        vault,
        {
          tenantId,
          apiKeyId,
          userId: null,
          ip: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
          idempotencyKey: request.headers['idempotency-key'] ?? null,
        },
        { customerId: customer_id, decisionId: decision_id, partnerCode: partner_code },
        request.body.blocked,
      );
      reply.header('cache-control', 'no-store');
      if (outcome.kind === 'replayed') {
        reply.header('idempotent-replayed', 'true');
        return reply.code(outcome.answer.status === 201 ? 201 : 200).send(outcome.answer.body);
      }
      return reply.code(outcome.kind === 'recorded' ? 201 : 200).send({ data: outcome.state });
    },
  );

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
