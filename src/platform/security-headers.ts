import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * Security headers on every response (helmet's defaults), with two changes for an API that other
 * origins call: resources may be read cross-origin, and no page here needs to be framed except
 * the public content file, which lifts the frame restriction itself.
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    global: true,
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  });
}
