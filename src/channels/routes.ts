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
import { channelAnswerOf } from './answer.js';
import type { ChannelChangeWriter } from './channels.js';
import {
  ChannelChangeRequest,
  ChannelList,
  ChannelParam,
  ChannelStateSchema,
  ProductCodeParam,
} from './schemas.js';
import { listChannels, setChannel } from './service.js';

const jsonMediaType = /^application\/json\s*(;|$)/i;
const replayed = { 'idempotent-replayed': responseHeaders.idempotentReplayed };

export const channelRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  writer: ChannelChangeWriter;
  vault: SubjectVault;
}> = async (app, { db, writer, vault }) => {
  app.put(
    '/api/v1/customers/:customer_id/channels/:product_code/:channel',
    {
      schema: {
        tags: ['channels'],
        operationId: 'setChannel',
        summary: "Block or allow a customer's contact channel for a product",
        description:
          '`201` records a change and answers the new state; `200` answers the state the ' +
          'channel already has, storing nothing (blocking a blocked channel, or allowing one ' +
          'that is allowed). `404 1004` for a product or channel the tenant does not have. An ' +
          'optional `Idempotency-Key` replays the first response for 24 hours, status included, ' +
          'with `Idempotent-Replayed: true`; the same key with another request is `422`.',
        security: apiKeySecurity,
        params: Type.Object({
          customer_id: CustomerIdParam,
          product_code: ProductCodeParam,
          channel: ChannelParam,
        }),
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ pattern: idempotencyKeyPattern })),
        }),
        body: ChannelChangeRequest,
        response: {
          200: answer(
            dataOf(ChannelStateSchema),
            'Unchanged: the current state. Nothing was stored.',
            replayed,
          ),
          201: answer(dataOf(ChannelStateSchema), 'Recorded: the new state.', replayed),
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
      const { customer_id, product_code, channel } = request.params;
      const outcome = await setChannel(
        db,
        writer,
        vault,
        {
          tenantId,
          apiKeyId,
          userId: null,
          ip: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
        },
        { customerId: customer_id, productCode: product_code, channel },
        request.body.blocked,
        request.headers['idempotency-key'],
      );
      const response = channelAnswerOf(outcome);
      reply.header('cache-control', 'no-store');
      if (response.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(response.status).send(response.body);
    },
  );

  app.get(
    '/api/v1/customers/:customer_id/channels',
    {
      schema: {
        tags: ['channels'],
        operationId: 'listChannels',
        summary: "A customer's channels: every product of the tenant times every channel",
        description:
          'Each with `blocked` and `since` (null when never changed). A customer the tenant ' +
          'has no record of has every channel allowed.',
        security: apiKeySecurity,
        params: Type.Object({ customer_id: CustomerIdParam }),
        response: {
          200: answer(ChannelList, "The customer's channels."),
          ...errorsOf('invalidRequest', ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = callerOf(request);
      reply.header('cache-control', 'no-store');
      return { data: await listChannels(db, vault, tenantId, request.params.customer_id) };
    },
  );
};
