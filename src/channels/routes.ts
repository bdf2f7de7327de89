import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../api-keys/index.js';
import { CustomerIdParam } from '../decisions/index.js';
import type { Db } from '../platform/db.js';
import { answer, apiKeySecurity, errorsOf, keyedErrors } from '../platform/http-schemas.js';
import { controlRoute } from '../record-kinds/control-routes.js';
import type { SubjectVault } from '../subjects/index.js';
import type { ChannelChangeWriter } from './channels.js';
import {
  ChannelChangeRequest,
  ChannelList,
  ChannelParam,
  ChannelStateSchema,
  ProductCodeParam,
} from './schemas.js';
import { listChannels, setChannel } from './service.js';

export const channelRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  writer: ChannelChangeWriter;
  vault: SubjectVault;
}> = async (app, { db, writer, vault }) => {
  controlRoute(app, {
    path: '/api/v1/customers/:customer_id/channels/:product_code/:channel',
    tags: ['channels'],
    operationId: 'setChannel',
    summary: "Block or allow a customer's contact channel for a product",
    description:
      '`201` records a change and answers the new state; `200` answers the state the ' +
      'channel already has, storing nothing (blocking a blocked channel, or allowing one ' +
      'that is allowed). `404 1004` for a product or channel the tenant does not have. An ' +
      'optional `Idempotency-Key` replays the first response for 24 hours, status included, ' +
      'with `Idempotent-Replayed: true`; the same key with another request is `422`.',
    params: Type.Object({
      customer_id: CustomerIdParam,
      product_code: ProductCodeParam,
      channel: ChannelParam,
    }),
    body: ChannelChangeRequest,
    state: ChannelStateSchema,
    set: ({ caller, params, blocked, idempotencyKey }) =>
      setChannel(
        db,
        writer,
        vault,
        caller,
        {
          customerId: params.customer_id,
          productCode: params.product_code,
          channel: params.channel,
        },
        blocked,
        idempotencyKey,
      ),
  });

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
