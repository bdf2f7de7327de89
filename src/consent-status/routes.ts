import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../api-keys/index.js';
import { AppError } from '../platform/errors.js';
import {
  answer,
  apiKeySecurity,
  dataOf,
  errorsOf,
  keyedErrors,
  withReason,
} from '../platform/http-schemas.js';
import type { ReadOn } from '../platform/replicas.js';
import {
  ConsentStatus,
  maxCustomers,
  StatusRequest,
  statusBodyLimit,
  tooManyCustomers,
} from './schemas.js';
import { getConsentStatus, type StatusContext } from './service.js';

const jsonMediaType = /^application\/json\s*(;|$)/i;

export const consentStatusRoutes: FastifyPluginAsyncTypebox<
  StatusContext & { readOn: ReadOn }
> = async (app, { readOn, ...context }) => {
  app.post(
    '/api/v1/consents/status',
    {
      bodyLimit: statusBodyLimit,
      schema: {
        tags: ['consents'],
        operationId: 'getConsentStatus',
        summary: 'Where up to 1,000 customers stand on one template, in one call',
        description:
          'For each customer, as `as-of` would answer at `at` (default now): `accepted`, the ' +
          'last decision, `expired` and `expires_at` under a validity period, the partners ' +
          'blocked on that decision and, when `channel` is given, whether that channel of that ' +
          "product may be used. A customer the tenant does not know answers as never asked. `checkpoint` is the decision log's latest signed " +
          'checkpoint; `in_checkpoint` says whether it covers the records each answer rests ' +
          `on. More than ${maxCustomers} ids, or a body over 256 KiB, is \`413 1006\`; an ` +
          'unknown template, product or channel `404 1004`.',
        security: apiKeySecurity,
        body: StatusRequest,
        response: {
          200: answer(dataOf(ConsentStatus), 'Each customer, in the order asked.'),
          ...withReason(
            errorsOf(
              'invalidRequest',
              'templateNotFound',
              'notFound',
              'payloadTooLarge',
              'unsupportedMediaType',
              ...keyedErrors,
            ),
            413,
            `Payload too large: more than ${maxCustomers} ids, or a body over 256 KiB`,
          ),
        },
      },
      preValidation: async (request) => {
        if (!jsonMediaType.test(request.headers['content-type'] ?? '')) {
          throw new AppError('unsupportedMediaType');
        }
        // Too many ids is the body's size, refused before the ids themselves are checked.
        const ids = (request.body as { customer_ids?: unknown } | null)?.customer_ids;
        if (Array.isArray(ids) && ids.length > maxCustomers) throw tooManyCustomers();
      },
    },
    async (request, reply) => {
      const { tenantId } = callerOf(request);
      reply.header('cache-control', 'no-store');
      // Nothing in it writes: a replica caught up with the primary may answer (docs/scaling.md).
      return {
        data: await readOn((db) => getConsentStatus(db, context, tenantId, request.body)),
      };
    },
  );
};
