import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * helmet's defaults, with two changes for an API that other origins call: resources may be read
 * cross-origin, and no page here needs to be framed except the public content file, which lifts
 * the frame restriction itself.
 */
const options: HelmetOptions = { crossOriginResourcePolicy: { policy: 'cross-origin' } };

/**
 * The headers helmet sets with these options, computed once. They depend on nothing in the
 * request (no directive is a function, no nonce), so running helmet's middleware again on every
 * request, as `@fastify/helmet` does (parsing the CSP directives each time), only costs time: it
 * took about a third of `latest`'s throughput.
 */
function securityHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string) {
      headers[name.toLowerCase()] = value;
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, () => {});
  return headers;
}

/**
 * Security headers on every response, errors and unknown routes included. Set first, so that a
 * route with its own policy (the content file, the back-office pages, the API docs) overrides
 * them with `reply.header`.
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  const headers = securityHeaders();
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}
