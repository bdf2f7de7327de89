import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { create as contentDisposition } from 'content-disposition';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { callerOf } from '../api-keys/index.js';
import { CustomerIdParam } from '../decisions/index.js';
import type { PackContext } from '../evidence/index.js';
import type { Db } from '../platform/db.js';
import {
  answer,
  apiKeySecurity,
  dataOf,
  errorsOf,
  keyedErrors,
  noSecurity,
} from '../platform/http-schemas.js';
import { findSubjectId, type SubjectVault } from '../subjects/index.js';
import { deliveryPath, downloadDelivery } from './delivery.js';
import {
  NewRequestBody,
  RequestDetailSchema,
  RequestIdParam,
  RequestSummary,
  StepAnswerSchema,
  StepBody,
} from './schemas.js';
import { type Fulfilment, openRequest, type RequestActor, takeStep } from './service.js';
import { customerRequests, getRequest } from './views.js';

/** The API key that sends a request, as a step's evidence keeps it. */
function keyActor(request: FastifyRequest): RequestActor {
  const { tenantId, apiKeyId } = callerOf(request);
  return {
    tenantId,
    apiKeyId,
    userId: null,
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
  };
}

/** Data-subject requests through the API (docs/requests.md). */
export const requestRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  vault: SubjectVault;
  fulfil: Fulfilment;
  publicBaseUrl: string;
}> = async (app, { db, vault, fulfil, publicBaseUrl }) => {
  app.post(
    '/api/v1/customers/:customer_id/requests',
    {
      schema: {
        tags: ['requests'],
        operationId: 'openRequest',
        summary: 'Open a data-subject request for a customer (PDPA sections 30-36)',
        description:
          '`201` with the request, `received`, due 30 days after the day it came in, in the ' +
          "tenant's time zone. The `received` step is a record in the log, with a receipt " +
          '(`GET /api/v1/request-steps/{step_id}/receipt`) and the `request.received` event.',
        security: apiKeySecurity,
        params: Type.Object({ customer_id: CustomerIdParam }),
        body: NewRequestBody,
        response: {
          201: answer(dataOf(RequestDetailSchema), 'The request opened.'),
          ...errorsOf('invalidRequest', 'unsupportedMediaType', ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const actor = keyActor(request);
      const { request: opened } = await openRequest(db, vault, actor, {
        customerId: request.params.customer_id,
        kind: request.body.kind,
        details: request.body.details,
      });
      reply.code(201).header('cache-control', 'no-store');
      return { data: await getRequest(db, vault, actor.tenantId, opened.id) };
    },
  );

  app.get(
    '/api/v1/customers/:customer_id/requests',
    {
      schema: {
        tags: ['requests'],
        operationId: 'listCustomerRequests',
        summary: "A customer's data-subject requests, newest first",
        description: 'Empty for a customer the tenant has no record of, or one who was erased.',
        security: apiKeySecurity,
        params: Type.Object({ customer_id: CustomerIdParam }),
        response: {
          200: answer(
            Type.Object({ data: Type.Array(RequestSummary) }),
            "The customer's requests.",
          ),
          ...errorsOf('invalidRequest', ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = callerOf(request);
      const subjectId = await findSubjectId(db, vault, tenantId, request.params.customer_id);
      reply.header('cache-control', 'no-store');
      return { data: await customerRequests(db, vault, tenantId, subjectId) };
    },
  );

  app.get(
    '/api/v1/requests/:request_id',
    {
      schema: {
        tags: ['requests'],
        operationId: 'getRequest',
        summary: 'A data-subject request: where it stands, its steps and notes',
        security: apiKeySecurity,
        params: Type.Object({ request_id: RequestIdParam }),
        response: {
          200: answer(dataOf(RequestDetailSchema), 'The request.'),
          ...errorsOf('invalidRequest', 'notFound', ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = callerOf(request);
      reply.header('cache-control', 'no-store');
      return { data: await getRequest(db, vault, tenantId, request.params.request_id) };
    },
  );

  app.post(
    '/api/v1/requests/:request_id/steps',
    {
      schema: {
        tags: ['requests'],
        operationId: 'takeRequestStep',
        summary: 'Take the next step on a data-subject request',
        description:
          '`201` with the request after the step, a record in the log with its receipt and ' +
          'its `request.<step>` event. `identity_checked` once; `extended` once, with a ' +
          '`reason`, 30 days more; `done` once identity was checked; `refused` with a PDPA ' +
          '`ground` and a `reason`. A step a request cannot take now (a closed request, a ' +
          'second extension) is `409 1005`, naming why.',
        security: apiKeySecurity,
        params: Type.Object({ request_id: RequestIdParam }),
        body: StepBody,
        response: {
          201: answer(
            dataOf(StepAnswerSchema),
            'The request after the step; for an access or portability request done, its link.',
          ),
          ...errorsOf(
            'invalidRequest',
            'notFound',
            'conflict',
            'unsupportedMediaType',
            ...keyedErrors,
          ),
        },
      },
    },
    async (request, reply) => {
      const actor = keyActor(request);
      const made = await takeStep(
        db,
        vault,
        actor,
        request.params.request_id,
        request.body,
        fulfil,
      );
      reply.code(201).header('cache-control', 'no-store');
      const detail = await getRequest(db, vault, actor.tenantId, request.params.request_id);
      return {
        data: {
          ...detail,
          ...(made.delivery
            ? {
                delivery: {
                  url: `${publicBaseUrl}${deliveryPath(made.delivery.token)}`,
                  expires_at: made.delivery.expires_at,
                },
              }
            : {}),
          ...(made.withdrawn ? { withdrawn: made.withdrawn } : {}),
        },
      };
    },
  );
};

/**
 * The single-use link an access or portability request is answered through: no API key (it is
 * the customer's), the token its only credential, used up by the first download.
 */
export const deliveryRoutes: FastifyPluginAsyncTypebox<PackContext> = async (app, context) => {
  app.get(
    '/requests/deliveries/:token',
    {
      schema: {
        tags: ['requests'],
        operationId: 'downloadRequestDelivery',
        summary: "A customer's data, through the single-use link of their access request",
        description:
          "A ZIP of the customer's evidence pack (as `GET /api/v1/customers/{id}/evidence` " +
          'answers it), `export.json` (their standings, every decision, their requests) and ' +
          '`export.csv` (every decision). The first download uses the link up; a link used, ' +
          'expired (7 days) or unknown, or of a customer erased since, is `404 1004`.',
        security: noSecurity,
        params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }) }),
        response: {
          200: {
            description: 'The ZIP, `Content-Disposition: attachment` with its file name.',
            content: {
              'application/zip': {
                schema: Type.Unsafe<Buffer>({
                  type: 'string',
                  contentMediaType: 'application/zip',
                }),
              },
            },
          },
          ...errorsOf('notFound', 'internal', 'unavailable'),
        },
      },
    },
    async (request, reply) => {
      const file = await downloadDelivery(context, request.params.token);
      return reply
        .type('application/zip')
        .header('cache-control', 'no-store')
        .header('content-disposition', contentDisposition(file.fileName))
        .send(Buffer.from(file.bytes));
    },
  );
};
