import type { FastifyReply, FastifyRequest } from 'fastify';
import { isUniqueViolation } from '../platform/db.js';
import { toAppError } from '../platform/error-handler.js';
import { AppError, type ErrorName } from '../platform/errors.js';
import { redactSecrets } from '../platform/redact.js';

export const scimMediaType = 'application/scim+json; charset=utf-8';
const errorSchema = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** The `scimType` of each catalogue error that has one (RFC 7644 section 3.12, table 9). */
const scimTypes: Partial<Record<ErrorName, string>> = {
  // The JSON parser's refusals and a body that is not a SCIM message.
  invalidRequest: 'invalidSyntax',
  invalidFilter: 'invalidFilter',
  invalidValue: 'invalidValue',
  invalidPath: 'invalidPath',
  noTarget: 'noTarget',
  mutability: 'mutability',
  uniqueness: 'uniqueness',
};

/** An error as SCIM writes it: `status` as a string, the `scimType` when the error has one. */
export function scimErrorBody(error: AppError): Record<string, unknown> {
  const scimType = scimTypes[error.kind];
  const particulars = (error.details ?? []).map((d) => `${d.field} ${d.issue}`).join('; ');
  return {
    schemas: [errorSchema],
    status: String(error.status),
    ...(scimType ? { scimType } : {}),
    detail: particulars ? `${error.message} (${particulars})` : error.message,
  };
}

/**
 * The error handler of `/scim/v2`: everything thrown, the framework's own errors included,
 * becomes a catalogue error (`toAppError`, as the API's handler does) written in SCIM's format.
 * Internals go to the log, never into the body. Two writers racing for one e-mail lose as a
 * later request would: `409 uniqueness`.
 */
export function sendScimError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const appError = isUniqueViolation(error) ? new AppError('uniqueness') : toAppError(error);
  if (appError.status >= 500) {
    request.log.error({ err: error }, 'request failed');
  } else {
    const reason = redactSecrets(String((error as Error).message));
    request.log.info({ code: appError.code, reason }, 'request refused');
  }
  if (appError.headers) reply.headers(appError.headers);
  return reply.code(appError.status).type(scimMediaType).send(scimErrorBody(appError));
}
