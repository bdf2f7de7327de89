import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isStoreUnavailable, isUniqueViolation } from './db.js';
import { AppError, type ErrorDetail, type ErrorName, errorBody } from './errors.js';
import { redactSecrets } from './redact.js';

const frameworkCodes: Record<string, ErrorName> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payloadTooLarge',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupportedMediaType',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalidRequest',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalidRequest',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalidRequest',
  FST_ERR_BAD_URL: 'invalidRequest',
};

const byStatus: Record<number, ErrorName> = {
  404: 'notFound',
  405: 'methodNotAllowed',
  413: 'payloadTooLarge',
  415: 'unsupportedMediaType',
  429: 'tooManyRequests',
  503: 'unavailable',
};

/** When to try again after the store refused a request (it is answered at once, so soon). */
const storeRetryAfterSeconds = '1';

/** Turns anything thrown, the framework's own errors included, into a catalogue error. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as Partial<FastifyError>;
  if (fastifyError.validation) {
    return new AppError('invalidRequest', {
      details: validationDetails(fastifyError as FastifyError),
    });
  }
  const name = fastifyError.code ? frameworkCodes[fastifyError.code] : undefined;
  if (name) return new AppError(name);
  if (isStoreUnavailable(error)) {
    return new AppError('unavailable', { headers: { 'retry-after': storeRetryAfterSeconds } });
  }
  // Two writers raced for one name: the loser hears what a later request would have.
  if (isUniqueViolation(error)) return new AppError('conflict', { message: 'Already exists.' });
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    return new AppError(byStatus[status] ?? 'invalidRequest');
  }
  return new AppError('internal');
}

function validationDetails(error: FastifyError): ErrorDetail[] {
  const where = error.validationContext ?? 'request';
  return (error.validation ?? []).map((issue) => {
    const params = issue.params as Record<string, unknown>;
    const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
    if (typeof params.additionalProperty === 'string') {
      return { field: joinField(where, path, params.additionalProperty), issue: 'is not allowed' };
    }
    if (typeof params.missingProperty === 'string') {
      return { field: joinField(where, path, params.missingProperty), issue: 'is required' };
    }
    return { field: joinField(where, path), issue: issue.message ?? 'is invalid' };
  });
}

function joinField(...parts: string[]): string {
  return parts.filter(Boolean).join('.');
}

/** Sends the catalogue error; internals go to the log, never into the body. */
export function sendError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const appError = toAppError(error);
  if (appError.status >= 500) {
    request.log.error({ err: error }, 'request failed');
  } else {
    // A router error quotes the path it could not decode, which may hold a key.
    const reason = redactSecrets(String((error as Error).message));
    request.log.info({ code: appError.code, reason }, 'request refused');
  }
  if (appError.headers) reply.headers(appError.headers);
  return reply
    .code(appError.status)
    .type('application/json; charset=utf-8')
    .send(errorBody(appError));
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
}
