import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../platform/db.js';
import { answer, noSecurity } from '../platform/http-schemas.js';
import type { ReplicaState } from '../platform/replicas.js';
import { serviceVersion } from '../platform/version.js';
import type { WriteHealth } from '../platform/write-outcomes.js';
import { storeAnswers } from './service.js';

const HealthBody = Type.Object({
  status: Type.Enum(['ok', 'degraded', 'unavailable']),
  success: Type.Boolean(),
  witnesses: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String(),
        lag_leaves: Type.Integer({ minimum: 0 }),
        lag_seconds: Type.Number({ minimum: 0 }),
        failing: Type.Boolean(),
      }),
      {
        description:
          "Only with witnesses configured (docs/witnesses.md): each one's lag, as this " +
          'instance last saw it. A witness behind does not change `status`: decisions do not wait for it.',
      },
    ),
  ),
  replicas: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String(),
        state: Type.Enum(['up', 'behind', 'down']),
        lag_bytes: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
        served: Type.Integer({ minimum: 0 }),
        skipped: Type.Integer({ minimum: 0 }),
      }),
      {
        description:
          'Only with `DATABASE_READ_URL` (docs/scaling.md, "Read replicas"): each replica as this ' +
          'instance last saw it. A replica behind or down does not change `status`: the primary ' +
          'serves its reads.',
      },
    ),
  ),
});

/** A witness's lag as `/api/health` shows it (src/decision-log/witnessing.ts). */
interface WitnessLag {
  name: string;
  lagLeaves: number;
  lagSeconds: number;
  failing: boolean;
}

/**
 * The release answering, beside a body that stays the contract's to the byte: during a rolling
 * upgrade a load balancer's checks show which instances run which release.
 */
const versionHeader = {
  'consent-service-version': Type.String({
    description: 'The release of the service answering (semantic version, e.g. `0.2.0`).',
  }),
};

/**
 * `/api/health` (and `/api/v1/health`, which existing clients call): no key. `200 ok` while the
 * store answers and writes go through; `503 unavailable` while the store does not answer;
 * `503 degraded` while it answers but refuses the writes (see `WriteHealth.failing`). One
 * `select 1` per call and never a write, so it may be polled often.
 */
export const healthRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  writes: WriteHealth;
  /** Each witness's lag; none unless witnesses are configured. */
  witnesses?: () => readonly WitnessLag[];
  /** Each read replica's state; none unless replicas are configured. */
  replicas?: () => readonly ReplicaState[];
}> = async (app, { db, writes, witnesses, replicas }) => {
  const operations = [
    { url: '/api/health', operationId: 'getHealth' },
    { url: '/api/v1/health', operationId: 'getHealthV1' },
  ];
  for (const { url, operationId } of operations) {
    app.get(
      url,
      {
        schema: {
          tags: ['health'],
          operationId,
          summary: 'Health check',
          description:
            '`200 {"status":"ok","success":true}` while the store answers and takes writes; ' +
            '`503 {"status":"unavailable","success":false}` while it does not answer; ' +
            '`503 {"status":"degraded","success":false}` while it answers but the last writes ' +
            'were refused.',
          security: noSecurity,
          response: {
            200: answer(HealthBody, 'The store answers and takes writes.', versionHeader),
            503: answer(
              HealthBody,
              'The store does not answer, or refuses the writes.',
              versionHeader,
            ),
          },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        reply.header('consent-service-version', serviceVersion);
        try {
          await storeAnswers(db);
        } catch (error) {
          request.log.warn({ err: error }, 'store does not answer');
          return reply.code(503).send({ status: 'unavailable', success: false });
        }
        if (writes.failing()) {
          request.log.warn('store refuses writes');
          return reply.code(503).send({ status: 'degraded', success: false });
        }
        return {
          status: 'ok' as const,
          success: true,
          ...(witnesses
            ? {
                witnesses: witnesses().map((w) => ({
                  name: w.name,
                  lag_leaves: w.lagLeaves,
                  lag_seconds: Math.round(w.lagSeconds * 10) / 10,
                  failing: w.failing,
                })),
              }
            : {}),
          ...(replicas
            ? {
                replicas: replicas().map((r) => ({
                  name: r.name,
                  state: r.state,
                  lag_bytes: r.lagBytes,
                  served: r.served,
                  skipped: r.skipped,
                })),
              }
            : {}),
        };
      },
    );
  }
};
