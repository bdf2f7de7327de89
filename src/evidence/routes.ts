import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { create as contentDisposition } from 'content-disposition';
import { Type } from 'typebox';
import { callerOf } from '../api-keys/index.js';
import { CustomerIdParam } from '../decisions/index.js';
import { apiKeySecurity, errorsOf, keyedErrors } from '../platform/http-schemas.js';
import { evidencePack, type PackContext } from './service.js';

export const evidenceRoutes: FastifyPluginAsyncTypebox<PackContext> = async (app, context) => {
  app.get(
    '/api/v1/customers/:customer_id/evidence',
    {
      schema: {
        tags: ['log'],
        operationId: 'getEvidencePack',
        summary:
          "A customer's evidence pack: every record with its receipt under one checkpoint, the texts they were shown, a signed manifest",
        description:
          'A ZIP (docs/evidence-pack.md): `manifest.json` lists every file with its SHA-256 and ' +
          "is signed with the log's key in `manifest.sig`; `checkpoint.txt` is the checkpoint " +
          'every receipt under `records/` proves its leaf under; `versions/` holds each text ' +
          'the customer was shown, with the partners its release listed. `verify-receipt ' +
          '--pack` checks it offline. `404 1004` for a customer the tenant has no record of or ' +
          'whose record was erased; `503 1009` with `Retry-After` while their latest records ' +
          'are still not in the log after 5 seconds.',
        security: apiKeySecurity,
        params: Type.Object({ customer_id: CustomerIdParam }),
        response: {
          200: {
            description: 'The pack, `Content-Disposition: attachment` with its file name.',
            content: {
              'application/zip': {
                schema: Type.Unsafe<Buffer>({
                  type: 'string',
                  contentMediaType: 'application/zip',
                }),
              },
            },
          },
          ...errorsOf('invalidRequest', 'notFound', ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = callerOf(request);
      const pack = await evidencePack(context, tenantId, request.params.customer_id);
      return reply
        .type('application/zip')
        .header('cache-control', 'no-store')
        .header('content-disposition', contentDisposition(pack.fileName))
        .send(Buffer.from(pack.bytes));
    },
  );
};
