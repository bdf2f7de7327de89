import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type TSchema, Type } from 'typebox';
import { callerOf } from '../api-keys/index.js';
import { AppError } from '../platform/errors.js';
import {
  answer,
  apiKeySecurity,
  dataOf,
  type ErrorAnswer,
  errorsOf,
  keyedErrors,
  responseHeaders,
} from '../platform/http-schemas.js';
import { sendReadAnswer } from '../platform/read-answer.js';
import { idempotencyKeyPattern } from '../record-kinds/index.js';
import type { SubjectVault } from '../subjects/index.js';
import type { Catalog } from '../templates/index.js';
import { LocaleQuery, localesOf, TemplateCodeParam } from '../templates/index.js';
import { answerOf } from './answer.js';
import type { HeldActs } from './held-acts.js';
import { getPendingState, type PendingReads, pendingAnswer } from './pending.js';
import {
  CustomerIdParam,
  DecisionRequest,
  HeldDecision,
  PendingResult,
  RecordedDecision,
} from './schemas.js';
import { type DecisionWriter, decide } from './service.js';

const jsonMediaType = /^application\/json\s*(;|$)/i;

/** What a decision may answer besides a decision, and the header of a replayed answer. */
const decisionErrors = errorsOf(
  'invalidRequest',
  'versionNotFound',
  'nothingToWithdraw',
  'reconsentNotAllowed',
  'payloadTooLarge',
  'unsupportedMediaType',
  'idempotencyMismatch',
  ...keyedErrors,
);
const replayed = { 'idempotent-replayed': responseHeaders.idempotentReplayed };
/** Every answer of a decision: a replayed one carries `Idempotent-Replayed`, whatever it was. */
const decisionResponses: Record<number, TSchema> = {
  200: answer(
    dataOf(RecordedDecision),
    'Unchanged: the same decision as the most recent one on a version that does not allow ' +
      're-consent. Nothing was stored.',
    replayed,
  ),
  201: answer(dataOf(RecordedDecision), 'Recorded: the decision, D.', replayed),
  202: answer(
    dataOf(HeldDecision),
    "Held: one act of a co-consent the template's rule asks for (PDPA section 20), waiting for " +
      "the other side's. Nothing is recorded yet. Only on a template with such a rule.",
  ),
  ...decisionErrors,
  409: answer(
    decisionErrors[409] as ErrorAnswer,
    (decisionErrors[409] as ErrorAnswer).description,
    replayed,
  ),
};

export const decisionRoutes: FastifyPluginAsyncTypebox<{
  reads: PendingReads;
  catalog: Catalog;
  writer: DecisionWriter;
  vault: SubjectVault;
  /** The first acts of co-consents, held until the other side's (held-acts.ts). */
  held: HeldActs;
}> = async (app, { reads, catalog, writer, vault, held }) => {
  app.get(
    '/api/v1/customers/:customer_id/consents/templates/:template_code/pending',
    {
      schema: {
        tags: ['decisions'],
        operationId: 'getPending',
        summary: 'Whether the customer has an unaccepted version of a template',
        description:
          '`accepted` is true when the customer has decided on the latest published version, ' +
          "unless that decision is a `given` older than the template's validity period: then " +
          '`accepted` is false and `expired` is true. `expired` and `expires_at` come only ' +
          'when the decision is a `given` on a template with a validity period.',
        security: apiKeySecurity,
        params: Type.Object({ customer_id: CustomerIdParam, template_code: TemplateCodeParam }),
        querystring: LocaleQuery,
        response: {
          200: answer(dataOf(PendingResult), "The customer's standing on the latest version.", {
            'content-language': responseHeaders.contentLanguage,
          }),
          ...errorsOf('invalidRequest', 'templateNotFound', ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = callerOf(request);
      const { customer_id, template_code } = request.params;
      const requested = localesOf(request);
      const state = await getPendingState(
        reads,
        catalog,
        vault,
        tenantId,
        customer_id,
        template_code,
        requested,
        held,
      );
      return sendReadAnswer(reply, pendingAnswer(state, requested));
    },
  );

  app.post(
    '/api/v1/customers/:customer_id/consents/decisions',
    {
      schema: {
        tags: ['decisions'],
        operationId: 'recordDecision',
        summary: "Record a customer's decision on a template version",
        description:
          '`201` records a decision; `200` answers an identical decision on a version that ' +
          'does not allow re-consent, storing nothing. An optional `Idempotency-Key` replays ' +
          'the first response for 24 hours, status included, with `Idempotent-Replayed: true`.',
        security: apiKeySecurity,
        params: Type.Object({ customer_id: CustomerIdParam }),
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ pattern: idempotencyKeyPattern })),
        }),
        body: DecisionRequest,
        response: decisionResponses,
      },
      // A POST without a JSON media type never reaches validation (contract section 2 order).
      preValidation: async (request) => {
        if (!jsonMediaType.test(request.headers['content-type'] ?? '')) {
          throw new AppError('unsupportedMediaType');
        }
      },
    },
    async (request, reply) => {
      const { tenantId, apiKeyId } = callerOf(request);
      const outcome = await decide(
        writer,
        catalog,
        vault,
        {
          tenantId,
          apiKeyId,
          ip: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
        },
        request.params.customer_id,
        request.body,
        request.headers['idempotency-key'],
        held,
      );
      if (outcome.kind === 'held') {
        reply.header('cache-control', 'no-store');
        return reply.code(202).send({ data: outcome.held });
      }
      const response = answerOf(outcome);
      reply.header('cache-control', 'no-store');
      if (response.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(response.status).send(response.body);
    },
  );
};
