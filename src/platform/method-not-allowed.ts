import type { FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify';
import { AppError } from './errors.js';

/**
 * Fastify answers a known path with an unknown method as 404; the contract wants 405 with an
 * `Allow` header. For a request that matched no route, this asks Fastify's own router which of
 * the methods routes were declared with would have matched its path: 405 when some would,
 * otherwise 404. The 405s are not routes of their own, so an unrouted request keeps passing the
 * same hooks (key check, rate limit) and is refused before its body is read.
 */
export function trackRoutes(app: FastifyInstance): (request: FastifyRequest) => AppError {
  const methods = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) methods.add(method.toUpperCase());
  });
  return (request) => {
    const allowed: string[] = [];
    for (const method of methods) {
      if (app.findRoute({ method: method as HTTPMethods, url: request.url })) allowed.push(method);
    }
    // A route may itself hand a request on as not found (a missing static file): that is a 404.
    if (allowed.length === 0 || allowed.includes(request.method)) return new AppError('notFound');
    return new AppError('methodNotAllowed', { headers: { allow: allowed.sort().join(', ') } });
  };
}
