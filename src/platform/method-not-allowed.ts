import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';

/**
 * Fastify answers a known path with an unknown method as 404; the contract wants 405 with an
 * `Allow` header. This remembers every route's pattern and returns the error for a request that
 * matched no route: 405 when its path is known under other methods, otherwise 404.
 */
export function trackRoutes(app: FastifyInstance): (request: FastifyRequest) => AppError {
  const routes = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  app.addHook('onRoute', (route) => {
    const entry = routes.get(route.url) ?? { pattern: toPattern(route.url), methods: new Set() };
    for (const method of [route.method].flat()) entry.methods.add(method.toUpperCase());
    routes.set(route.url, entry);
  });
  return (request) => {
    const path = request.url.split('?', 1)[0] ?? '';
    const allowed = new Set<string>();
    for (const { pattern, methods } of routes.values()) {
      if (pattern.test(path)) for (const method of methods) allowed.add(method);
    }
    // A route may itself hand a request on as not found (a missing static file): that is a 404.
    if (allowed.size === 0 || allowed.has(request.method)) return new AppError('notFound');
    return new AppError('methodNotAllowed', { headers: { allow: [...allowed].sort().join(', ') } });
  };
}

function toPattern(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.startsWith(':')) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}$`);
}
