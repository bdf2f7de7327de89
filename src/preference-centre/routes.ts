import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../api-keys/index.js';
import { CustomerIdParam } from '../decisions/index.js';
import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { answer, apiKeySecurity, dataOf, errorsOf, keyedErrors } from '../platform/http-schemas.js';
import { mintPreferenceLink } from './links.js';
import { PreferenceLinkRequest, PreferenceLinkSchema } from './schemas.js';
import type { PreferenceSecrets } from './tokens.js';

const jsonMediaType = /^application\/json\s*(;|$)/i;

/** The API's side of the preference centre: a backend asks for a customer's link. */
export const preferenceLinkRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  secrets: PreferenceSecrets;
  publicBaseUrl: string;
}> = async (app, { db, secrets, publicBaseUrl }) => {
  app.post(
    '/api/v1/customers/:customer_id/preference-links',
    {
      schema: {
        tags: ['preference centre'],
        operationId: 'createPreferenceLink',
        summary: "A link to the customer's own page, where they see and change their consents",
        description:
          'For the backend to send the customer to, or to frame in its site (docs/' +
          'preference-centre.md). The link opens once, within `ttl_seconds` (15 minutes when ' +
          'absent, at most 24 hours), and starts a session for this customer alone; no API key ' +
          'ever reaches the browser. The body is optional: `return_url` must be on one of the ' +
          "origins the tenant allows in its preference centre's settings, else `400 1001`.",
        security: apiKeySecurity,
        params: Type.Object({ customer_id: CustomerIdParam }),
        body: PreferenceLinkRequest,
        response: {
          201: answer(dataOf(PreferenceLinkSchema), 'The link, and when it expires.'),
          ...errorsOf('invalidRequest', 'payloadTooLarge', 'unsupportedMediaType', ...keyedErrors),
        },
      },
      // A body, when there is one, is JSON: anything else never reaches validation.
      preValidation: async (request) => {
        const type = request.headers['content-type'];
        if (type !== undefined && !jsonMediaType.test(type)) {
          throw new AppError('unsupportedMediaType');
        }
        // No body at all asks for a link with every default.
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const link = await mintPreferenceLink(
        db,
        secrets,
        publicBaseUrl,
        callerOf(request),
        request.params.customer_id,
        request.body,
      );
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ data: link });
    },
  );
};
