/**
 * The API's route that blocks or allows a control's target (a customer's channel, a partner on
 * one of their decisions): every control kind's is alike but for its path, parameters, texts and
 * state, which its routes file gives; the same media type check, optional `Idempotency-Key`,
 * answers (`201` recorded, `200` unchanged, the first answer again for a replayed key) and
 * errors for each.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, type TObject, Type } from 'typebox';
import { callerOf } from '../api-keys/index.js';
import { AppError, type ErrorName } from '../platform/errors.js';
import {
  answer,
  apiKeySecurity,
  dataOf,
  errorsOf,
  keyedErrors,
  responseHeaders,
} from '../platform/http-schemas.js';
import type { ControlOutcome } from './control-kind.js';
import { idempotencyKeyPattern } from './idempotency.js';

type App = Parameters<FastifyPluginAsyncTypebox>[0];

const jsonMediaType = /^application\/json\s*(;|$)/i;
const replayed = { 'idempotent-replayed': responseHeaders.idempotentReplayed };

/** Who asks, as a control's change keeps it: the API key, and the request's address and agent. */
export interface ControlCaller {
  tenantId: string;
  apiKeyId: string;
  userId: null;
  ip: string;
  userAgent: string | null;
}

/** A control kind's `PUT` route: what differs, and the service call that makes the change. */
export interface ControlRoute<Params extends TObject> {
  path: string;
  tags: string[];
  operationId: string;
  summary: string;
  description: string;
  params: Params;
  body: TObject<{ blocked: ReturnType<typeof Type.Boolean> }>;
  state: TObject;
  /** The kind's own refusals beside every control's (a partner's `409` on a decision not in force). */
  refusals?: ErrorName[];
  set(change: {
    caller: ControlCaller;
    params: Static<Params>;
    blocked: boolean;
    idempotencyKey: string | undefined;
  }): Promise<ControlOutcome<object>>;
}

/** Registers a control kind's `PUT` route on `app`. */
export function controlRoute<Params extends TObject>(app: App, route: ControlRoute<Params>) {
  app.put(
    route.path,
    {
      schema: {
        tags: route.tags,
        operationId: route.operationId,
        summary: route.summary,
        description: route.description,
        security: apiKeySecurity,
        params: route.params,
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ pattern: idempotencyKeyPattern })),
        }),
        body: route.body,
        response: {
          200: answer(
            dataOf(route.state),
            'Unchanged: the current state. Nothing was stored.',
            replayed,
          ),
          201: answer(dataOf(route.state), 'Recorded: the new state.', replayed),
          ...errorsOf(
            'invalidRequest',
            'notFound',
            'payloadTooLarge',
            'unsupportedMediaType',
            'idempotencyMismatch',
            ...keyedErrors,
            ...(route.refusals ?? []),
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
      const outcome = await route.set({
        caller: {
          tenantId,
          apiKeyId,
          userId: null,
          ip: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
        },
        params: request.params as Static<Params>,
        blocked: (request.body as { blocked: boolean }).blocked,
        idempotencyKey: request.headers['idempotency-key'],
      });
      reply.header('cache-control', 'no-store');
      if (outcome.kind === 'replayed') {
        reply.header('idempotent-replayed', 'true');
        return reply
          .code(outcome.answer.status === 201 ? 201 : 200)
          .send(outcome.answer.body as { data: Record<string, unknown> });
      }
      return reply
        .code(outcome.kind === 'recorded' ? 201 : 200)
        .send({ data: outcome.state as Record<string, unknown> });
    },
  );
}
