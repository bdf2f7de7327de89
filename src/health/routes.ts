import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { Type } from 'typebox';
import type { Db } from '../platform/db.js';

const HealthBody = Type.Object({
  status: Type.Enum(['ok', 'unavailable']),
  success: Type.Boolean(),
});

/** `/api/health` (and `/api/v1/health`, which existing clients call): no key, the store's pulse. */
export const healthRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  for (const url of ['/api/health', '/api/v1/health']) {
    app.get(
      url,
      {
        schema: {
          tags: ['health'],
          summary: 'Health check',
          response: { 200: HealthBody, 503: HealthBody },
        },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'no-store');
        try {
          await sql`select 1`.execute(db);
          return { status: 'ok' as const, success: true };
        } catch (error) {
          _request.log.warn({ err: error }, 'store does not answer');
          return reply.code(503).send({ status: 'unavailable', success: false });
        }
      },
    );
  }
};
