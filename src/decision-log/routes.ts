import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { callerOf } from '../api-keys/index.js';
import type { Db } from '../platform/db.js';
import {
  answer,
  apiKeySecurity,
  dataOf,
  errorsOf,
  integerQuery,
  keyedErrors,
  responseHeaders,
} from '../platform/http-schemas.js';
import { uuidPattern } from '../platform/ids.js';
import type { NoteSigner } from '../proof/index.js';
import type { SubjectVault } from '../subjects/index.js';
import {
  awaitChannelReceipt,
  awaitCookieReceipt,
  awaitPartnerBlockReceipt,
  awaitReceipt,
} from './receipts.js';
import {
  ChannelReceipt,
  ChannelReceiptPending,
  ConsistencyProof,
  CookieReceipt,
  LogCheckpoint,
  LogKey,
  PartnerBlockReceipt,
  Receipt,
  ReceiptPending,
} from './schemas.js';
import { consistency, currentCheckpoint, logKey } from './service.js';

const SizeParam = integerQuery({
  pattern: '^[1-9][0-9]{0,14}$',
  minimum: 1,
  maximum: 999_999_999_999_999,
  description: 'A tree size',
});

/** The answer while a decision's leaf waits to be appended, and what a receipt may refuse. */
export const receiptPending = answer(
  dataOf(ReceiptPending),
  'Queued: the decision is not in the log yet. Ask again after `Retry-After`.',
  { 'retry-after': responseHeaders.retryAfter },
);
export const receiptErrors = errorsOf('invalidRequest', 'notFound', ...keyedErrors);

/** Path and query of every route answering a decision's receipt, whatever its format. */
export const receiptRequest = {
  params: Type.Object({ decision_id: Type.String({ pattern: uuidPattern }) }),
  querystring: Type.Object(
    { wait: Type.Optional(Type.Enum(['true', 'false'])) },
    { additionalProperties: false },
  ),
};

export const receiptWaitDescription =
  '`202` with `Retry-After` while the leaf waits to be appended (about a second); ' +
  'with `?wait=true` the request waits up to 5 seconds for it instead.';

/** `202` with `Retry-After: 1`: the decision's leaf is not appended yet. */
export function sendQueued(reply: FastifyReply, decisionId: string): FastifyReply {
  return reply
    .code(202)
    .header('retry-after', '1')
    .send({ data: { decision_id: decisionId.toLowerCase(), status: 'queued' as const } });
}

export const logRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  signer: NoteSigner;
  /** Runs an integration pass now (see integrator.ts). */
  kick: () => Promise<void>;
  vault: SubjectVault;
}> = async (app, { db, signer, kick, vault }) => {
  app.get(
    '/api/v1/decisions/:decision_id/receipt',
    {
      schema: {
        tags: ['log'],
        operationId: 'getReceipt',
        summary: "A decision's receipt: its leaf, inclusion proof and signed checkpoint",
        description: receiptWaitDescription,
        security: apiKeySecurity,
        ...receiptRequest,
        response: {
          200: answer(dataOf(Receipt), 'The receipt.'),
          202: receiptPending,
          ...receiptErrors,
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = callerOf(request);
      const id = request.params.decision_id;
      reply.header('cache-control', 'no-store');
      const result = await awaitReceipt(
        db,
        vault,
        kick,
        tenantId,
        id,
        request.query.wait === 'true',
      );
      if (!result.ready) return sendQueued(reply, id);
      return { data: result.receipt };
    },
  );

  app.get(
    '/api/v1/cookie-decisions/:decision_id/receipt',
    {
      schema: {
        tags: ['log'],
        operationId: 'getCookieDecisionReceipt',
        summary:
          "A website visitor's cookie decision's receipt: its leaf, inclusion proof and signed checkpoint",
        description: `The same proof as a decision's receipt, for a leaf in the cookie format (consent-log/cookie/v1). ${receiptWaitDescription}`,
        security: apiKeySecurity,
        ...receiptRequest,
        response: {
          200: answer(dataOf(CookieReceipt), 'The receipt.'),
          202: receiptPending,
          ...receiptErrors,
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = callerOf(request);
      const id = request.params.decision_id;
      reply.header('cache-control', 'no-store');
      const wait = request.query.wait === 'true';
      const result = await awaitCookieReceipt(db, vault, kick, tenantId, id, wait);
      if (!result.ready) return sendQueued(reply, id);
      return { data: result.receipt };
    },
  );

  // A control's change (a channel's, a partner block's) has its receipt as a decision has: the
  // same proof of a leaf in its own format, the same wait, the same `queued` answer.
  const controls = [
    {
      path: '/api/v1/channel-changes/:change_id/receipt',
      operationId: 'getChannelChangeReceipt',
      summary:
        "A customer's channel change's receipt: its leaf, inclusion proof and signed checkpoint",
      format: 'the channel format (consent-log/channel/v1)',
      receipt: ChannelReceipt,
      read: awaitChannelReceipt,
    },
    {
      path: '/api/v1/partner-block-changes/:change_id/receipt',
      operationId: 'getPartnerBlockReceipt',
      summary:
        "A partner block's change's receipt: its leaf, inclusion proof and signed checkpoint",
      format: 'the partner block format (consent-log/partner/v1)',
      receipt: PartnerBlockReceipt,
      read: awaitPartnerBlockReceipt,
    },
  ] as const;
  for (const control of controls) {
    app.get(
      control.path,
      {
        schema: {
          tags: ['log'],
          operationId: control.operationId,
          summary: control.summary,
          description: `The same proof as a decision's receipt, for a leaf in ${control.format}. ${receiptWaitDescription}`,
          security: apiKeySecurity,
          params: Type.Object({ change_id: Type.String({ pattern: uuidPattern }) }),
          querystring: receiptRequest.querystring,
          response: {
            200: answer(dataOf(control.receipt), 'The receipt.'),
            202: answer(
              dataOf(ChannelReceiptPending),
              'Queued: the change is not in the log yet. Ask again after `Retry-After`.',
              { 'retry-after': responseHeaders.retryAfter },
            ),
            ...receiptErrors,
          },
        },
      },
      async (request, reply) => {
        const { tenantId } = callerOf(request);
        const id = request.params.change_id;
        reply.header('cache-control', 'no-store');
        const wait = request.query.wait === 'true';
        const result = await control.read(db, vault, kick, tenantId, id, wait);
        if (!result.ready) {
          return reply
            .code(202)
            .header('retry-after', '1')
            .send({ data: { change_id: id.toLowerCase(), status: 'queued' as const } });
        }
        return { data: result.receipt };
      },
    );
  }

  app.get(
    '/api/v1/log/checkpoint',
    {
      schema: {
        tags: ['log'],
        operationId: 'getCheckpoint',
        summary: "The latest signed checkpoint of the tenant's decision log",
        security: apiKeySecurity,
        response: {
          200: answer(dataOf(LogCheckpoint), 'The checkpoint.'),
          ...errorsOf(...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return { data: await currentCheckpoint(db, signer, callerOf(request).tenantId) };
    },
  );

  app.get(
    '/api/v1/log/consistency',
    {
      schema: {
        tags: ['log'],
        operationId: 'getConsistencyProof',
        summary: 'A consistency proof between two sizes of the log (RFC 6962)',
        description: '`1 <= from <= to <=` the size of the latest checkpoint.',
        security: apiKeySecurity,
        querystring: Type.Object(
          { from: SizeParam, to: SizeParam },
          { additionalProperties: false },
        ),
        response: {
          200: answer(dataOf(ConsistencyProof), 'The proof.'),
          ...errorsOf('invalidRequest', ...keyedErrors),
        },
      },
    },
    async (request) => {
      const { from, to } = request.query;
      return {
        data: await consistency(db, callerOf(request).tenantId, Number(from), Number(to)),
      };
    },
  );

  app.get(
    '/api/v1/log/key',
    {
      schema: {
        tags: ['log'],
        operationId: 'getLogKey',
        summary: "The verifier key of the log's checkpoints, and the log's origin",
        security: apiKeySecurity,
        response: {
          200: answer(dataOf(LogKey), "The log's key and origin."),
          ...errorsOf(...keyedErrors),
        },
      },
    },
    async (request) => ({ data: await logKey(db, signer, callerOf(request).tenantId) }),
  );
};
