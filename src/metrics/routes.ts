import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../platform/config.js';
import { scrapeGuard } from './guard.js';
import type { Metrics } from './instruments.js';

/**
 * `GET /metrics`, Prometheus's text format, outside `/api/v1`: no API key, no rate limit. Only
 * registered while `metricsEnabled`; otherwise the path is unknown, `404 1004` like any other.
 * `gather` answers the exposition: this process's registry, or with several workers every
 * worker's together (`cluster.ts`).
 */
export const metricsRoutes: FastifyPluginAsync<{
  config: Pick<Config, 'metricsToken' | 'metricsAllow'>;
  metrics: Metrics;
  gather: () => Promise<string>;
}> = async (app, { config, metrics, gather }) => {
  const refusal = scrapeGuard(config);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const refused = refusal(request);
    if (refused) throw refused;
    const text = await gather();
    return reply.header('cache-control', 'no-store').type(metrics.registry.contentType).send(text);
  });
};
