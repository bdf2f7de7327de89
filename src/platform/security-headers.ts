import type { FastifyReply } from 'fastify';

/**
 * The security headers of every response: helmet 8's defaults, except that resources may be read
 * cross-origin (an API that other origins call). The table is fixed because nothing in it depends
 * on the request (no directive is computed, no nonce), so it is set with one call instead of
 * running a middleware per request (bench/notebook.md, "2026-11-21: what was cut"). No page here needs to be framed except
 * the public content file, which lifts the frame restriction itself.
 */
export const securityHeaders: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy':
    "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'cross-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
});

/**
 * Security headers on every response, errors and unknown routes included: set by the service's
 * `onRequest` hook first, so that a route with its own policy (the content file, the back-office
 * pages, the API docs) overrides them with `reply.header`.
 */
export function setSecurityHeaders(reply: FastifyReply): void {
  reply.headers(securityHeaders);
}
