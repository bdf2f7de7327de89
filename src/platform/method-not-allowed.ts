import type { FastifyInstance } from 'fastify';

/**
 * Fastify answers a known path with an unknown method as 404; the contract wants 405 with an
 * `Allow` header. This remembers every route's pattern so the not-found handler can tell the two
 * apart.
 */
export function trackRoutes(app: FastifyInstance): (path: string) => string[] {
  const routes = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  app.addHook('onRoute', (route) => {
    const entry = routes.get(route.url) ?? { pattern: toPattern(route.url), methods: new Set() };
    for (const method of [route.method].flat()) entry.methods.add(method.toUpperCase());
    routes.set(route.url, entry);
  });
  return (path) => {
    const allowed = new Set<string>();
    for (const { pattern, methods } of routes.values()) {
      if (pattern.test(path)) for (const method of methods) allowed.add(method);
    }
    return [...allowed].sort();
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
