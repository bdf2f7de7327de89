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
import type { ReceiptRoute, Registry } from '../record-kinds/index.js';
import type { SubjectVault } from '../subjects/index.js';
import {
  awaitReceipt,
  cosignedCheckpoint,
  noOutsideProofs,
  type OutsideProofs,
} from './receipts.js';
import { ConsistencyProof, LogCheckpoint, LogKey } from './schemas.js';
import { consistency, currentCheckpoint, logKey } from './service.js';

const SizeParam = integerQuery({
  pattern: '^[1-9][0-9]{0,14}$',
  minimum: 1,
  maximum: 999_999_999_999_999,
  description: 'A tree size',
});

/** The answer while a record's leaf waits to be appended: its id, and `queued`. */
function pendingAnswer(route: Pick<ReceiptRoute, 'param' | 'queued'>) {
  return answer(
    dataOf(
      Type.Object({
        [route.param]: Type.String({ format: 'uuid' }),
        status: Type.Literal('queued'),
      }),
    ),
    `Queued: ${route.queued} is not in the log yet. Ask again after \`Retry-After\`.`,
    { 'retry-after': responseHeaders.retryAfter },
  );
}

/** The answer while a decision's leaf waits to be appended (the receipt exports'). */
export const receiptPending = pendingAnswer({ param: 'decision_id', queued: 'the decision' });
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
  registry: Registry;
  /** What witnesses and time-stamping authorities add to receipts (none unless configured). */
  outside?: OutsideProofs;
}> = async (app, { db, signer, kick, vault, registry, outside = noOutsideProofs }) => {
  // Every kind's record has its receipt as a decision has: the same proof of a leaf in its own
  // format, the same wait, the same `queued` answer.
  for (const kind of registry.kinds) {
    const { receipt } = kind;
    if (!receipt) continue;
    const { route } = receipt;
    app.get(
      route.path,
      {
        schema: {
          tags: ['log'],
          operationId: route.operationId,
          summary: route.summary,
          description: route.description
            ? `${route.description} ${receiptWaitDescription}`
            : receiptWaitDescription,
          security: apiKeySecurity,
          params: Type.Object({ [route.param]: Type.String({ pattern: uuidPattern }) }),
          querystring: receiptRequest.querystring,
          response: {
            200: answer(dataOf(route.schema), 'The receipt.'),
            202: pendingAnswer(route),
            ...receiptErrors,
          },
        },
      },
      async (request, reply) => {
        const { tenantId } = callerOf(request);
        const id = (request.params as Record<string, string>)[route.param] as string;
        reply.header('cache-control', 'no-store');
        const wait = request.query.wait === 'true';
        const result = await awaitReceipt(
          db,
          vault,
          registry,
          kick,
          { ...kind, receipt },
          tenantId,
          id,
          wait,
          outside,
        );
        if (!result.ready) {
          return reply
            .code(202)
            .header('retry-after', '1')
            .send({ data: { [route.param]: id.toLowerCase(), status: 'queued' as const } });
        }
        return reply.send({ data: result.receipt as Record<string, unknown> });
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
      const tenantId = callerOf(request).tenantId;
      const data = await currentCheckpoint(db, signer, tenantId);
      const cosigned = await cosignedCheckpoint(db, tenantId, outside.witnesses);
      return { data: cosigned ? { ...data, cosigned_checkpoint: cosigned } : data };
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
