import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BackofficeUser } from '../../accounts/index.js';
import { toAppError } from '../../platform/error-handler.js';
import { AppError, type ErrorName } from '../../platform/errors.js';
import { html } from './html.js';
import { basePath, csrfToken, sendPage } from './layout.js';

/** Who is signed in on a request that ended in an error page, if anyone. */
export type ErrorPageUser = (request: FastifyRequest) => Promise<BackofficeUser | null>;

/** The titles of the refusals only a page can have (the public API has no such case). */
const pageTitles: Partial<Record<ErrorName, string>> = {
  unauthorized: 'Please sign in',
  forbidden: 'Not available',
  crossSiteForm: 'Refused',
};

const titles: Record<number, string> = {
  400: 'The request was not understood',
  404: 'Page not found',
  405: 'Method not allowed',
  413: 'Too large',
  415: 'Not a form',
  429: 'Too many attempts',
  503: 'Service unavailable',
};

const csrfCodes = new Set(['FST_CSRF_MISSING_SECRET', 'FST_CSRF_INVALID_TOKEN']);

/**
 * Every error under /backoffice, the framework's included, as an HTML page: inside the
 * navigation for a signed-in user (so they can go on from there), without it for a visitor.
 */
async function sendErrorPage(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  secure: boolean,
  userOf: ErrorPageUser,
): Promise<FastifyReply> {
  // Also for a request refused before the back-office's own hooks ran (an unrouted path).
  setPageHeaders(reply, secure);
  reply.header('cache-control', 'no-store');
  let status: number;
  let title: string;
  let message: string;
  const code = (error as { code?: unknown }).code;
  const pageTitle = error instanceof AppError ? pageTitles[error.kind] : undefined;
  if (error instanceof AppError && pageTitle) {
    ({ status, message } = error);
    title = pageTitle;
  } else if (typeof code === 'string' && csrfCodes.has(code)) {
    status = 403;
    title = 'This form has expired';
    message =
      'The form was open for too long, or did not come from this site. Go back, reload the ' +
      'page and try again.';
  } else {
    const appError = toAppError(error);
    status = appError.status;
    title = titles[status] ?? (status >= 500 ? 'Something went wrong' : 'Request refused');
    message =
      status >= 500 && status !== 503
        ? 'The page could not be shown. Please try again; if it keeps happening, tell the ' +
          `operator the reference ${request.id}.`
        : status === 400
          ? 'The request was not valid.'
          : appError.message;
    if (appError.headers) reply.headers(appError.headers);
  }
  if (status >= 500) request.log.error({ err: error }, 'back-office request failed');
  else request.log.info({ status, reason: (error as Error).message }, 'back-office refusal');
  const user = await signedInUser(request, status, userOf);
  return sendPage(reply, {
    status,
    title,
    user,
    ...(user ? { csrfToken: csrfToken(reply) } : {}),
    body: html`<article class="error-page">
<h1>${title}</h1>
<p>${message}</p>
<p><a href="${basePath}/">Back to the back-office</a></p>
</article>`,
  });
}

/**
 * The user the error page is for. A request that did not reach the session look-up is looked up
 * here, unless the service itself is failing (a 5xx: the store may be what failed); a failed
 * look-up shows the page without the navigation rather than no page.
 */
async function signedInUser(
  request: FastifyRequest,
  status: number,
  userOf: ErrorPageUser,
): Promise<BackofficeUser | null> {
  if (status >= 500) return request.backofficeUser ?? null;
  try {
    return await userOf(request);
  } catch (lookupError) {
    request.log.warn({ err: lookupError }, 'no session look-up for the error page');
    return null;
  }
}

export function installErrorPages(
  app: FastifyInstance,
  secure: boolean,
  userOf: ErrorPageUser,
): void {
  app.setErrorHandler((error, request, reply) =>
    sendErrorPage(error, request, reply, secure, userOf),
  );
  app.setNotFoundHandler((request, reply) =>
    sendErrorPage(toAppError({ statusCode: 404 }), request, reply, secure, userOf),
  );
}

/**
 * Stricter than the API's: scripts, styles and images from this site only, and no inline script
 * or style, so content that slipped through could not run.
 */
export function setPageHeaders(reply: FastifyReply, secure: boolean): void {
  reply.header('content-security-policy', contentSecurityPolicy(secure));
  reply.header('x-frame-options', 'DENY');
}

/**
 * A page that shows this site's own documents in frames (a banner's preview): `frame-src 'self'`
 * added to its policy. The back-office's other answers refuse to be framed
 * (`frame-ancestors 'none'`), so the page frames only the documents made to be.
 */
export function allowFramesOfSelf(reply: FastifyReply): void {
  const policy = String(reply.getHeader('content-security-policy'));
  reply.header('content-security-policy', `${policy}; frame-src 'self'`);
}

function contentSecurityPolicy(secure: boolean): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    // Pico draws its check marks and chevrons with data: SVG images.
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    ...(secure ? ['upgrade-insecure-requests'] : []),
  ].join('; ');
}
