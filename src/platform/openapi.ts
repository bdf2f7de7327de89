import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/** OpenAPI 3, generated from the route schemas: `/api/docs` (browsable) and `/api/docs/json`. */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Consent API',
        version,
        description:
          'Published consent texts, pending checks and the record of customer decisions. ' +
          'Every `/api/v1` endpoint but the health check needs the `x-system-api-key` header.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-system-api-key' },
        },
      },
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    uiConfig: { docExpansion: 'list' },
    // The UI's own Content-Security-Policy (with hashes for its inline code) replaces the one in
    // security-headers.ts.
    staticCSP: true,
  });
}
