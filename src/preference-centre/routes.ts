import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { apiKeyActor, callerOf } from '../api-keys/index.js';
import { CustomerIdParam } from '../decisions/index.js';
import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { answer, apiKeySecurity, dataOf, errorsOf, keyedErrors } from '../platform/http-schemas.js';
import { optionalJsonBody } from '../platform/json-body.js';
import { mintPreferenceLink } from './links.js';
import {
  AllowedOriginsRequest,
  AllowedOriginsSchema,
  PreferenceLinkRequest,
  PreferenceLinkSchema,
} from './schemas.js';
import { getPreferenceCentre, setAllowedOrigins } from './settings.js';
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
      preValidation: optionalJsonBody,
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

const originsPath = '/api/v1/preference-centre/allowed-origins';

/**
 * The API's side of the tenant's preference centre settings: the origins a link may return to
 * (and that may frame the page), which a backend deploying a new site sets without the
 * back-office.
 */
export const preferenceCentreSettingsRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (
  app,
  { db },
) => {
  app.get(
    originsPath,
    {
      schema: {
        tags: ['preference centre'],
        operationId: 'getAllowedOrigins',
        summary: "The origins the preference centre's links may return to and that may frame it",
        description:
          "The tenant's allowed origins, as the back-office (*Administration, Preference " +
          'centre*) and `preference-centre show` show them.',
        security: apiKeySecurity,
        response: {
          200: answer(dataOf(AllowedOriginsSchema), 'The allowed origins, in the order set.'),
          ...errorsOf(...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const settings = await getPreferenceCentre(db, callerOf(request).tenantId);
      reply.header('cache-control', 'no-store');
      return { data: { allowed_origins: settings.allowedOrigins } };
    },
  );

  app.put(
    originsPath,
    {
      schema: {
        tags: ['preference centre'],
        operationId: 'setAllowedOrigins',
        summary: "Sets the origins the preference centre's links may return to",
        description:
          'Replaces the whole list, the other settings kept, with the checks of the back-office ' +
          'and `preference-centre origins`: each value an origin (`https://host[:port]`, ' +
          '`http://` only for `localhost`, no path), else `400 1001` naming ' +
          '`body.allowed_origins`, and nothing changed. A change is in the audit log as ' +
          '`preference_centre.changed`, made by this API key; the same list again changes ' +
          'nothing and records nothing.',
        security: apiKeySecurity,
        body: AllowedOriginsRequest,
        response: {
          200: answer(dataOf(AllowedOriginsSchema), 'The allowed origins as kept.'),
          ...errorsOf('invalidRequest', 'payloadTooLarge', 'unsupportedMediaType', ...keyedErrors),
        },
      },
      // As for every other body of the API: one without a JSON media type is never read.
      preValidation: async (request) => {
        if (!jsonMediaType.test(request.headers['content-type'] ?? '')) {
          throw new AppError('unsupportedMediaType');
        }
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const from = { ip: request.ip, userAgent: request.headers['user-agent'] ?? null };
      const settings = await db
        .transaction()
        .execute(async (trx) =>
          setAllowedOrigins(
            trx,
            await apiKeyActor(trx, caller, from),
            caller.tenantId,
            request.body.allowed_origins,
          ),
        )
        .catch((error: unknown) => {
          throw namedInBody(error);
        });
      reply.header('cache-control', 'no-store');
      return { data: { allowed_origins: settings.allowedOrigins } };
    },
  );
};

/** A refusal of the settings' rules with its fields named as the API names a body's (`body.…`). */
function namedInBody(error: unknown): unknown {
  if (!(error instanceof AppError) || error.kind !== 'invalidRequest' || !error.details) {
    return error;
  }
  return new AppError('invalidRequest', {
    message: error.message,
    details: error.details.map((d) => ({ ...d, field: `body.${d.field}` })),
  });
}
