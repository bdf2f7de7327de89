import type { FastifyInstance } from 'fastify';

/** Thin callers of the public API, so tests read as the contract does. */
export function apiOf(app: FastifyInstance, headers: Record<string, string>) {
  return {
    decide(
      customer: string,
      versionId: string,
      decision: string,
      extra: Record<string, string> = {},
    ) {
      return app.inject({
        method: 'POST',
        url: `/api/v1/customers/${encodeURIComponent(customer)}/consents/decisions`,
        headers: { ...headers, ...extra },
        payload: { consent_version_id: versionId, decision },
      });
    },
    pending(customer: string, code: string) {
      return app.inject({
        method: 'GET',
        url: `/api/v1/customers/${encodeURIComponent(customer)}/consents/templates/${code}/pending`,
        headers,
      });
    },
    latest(code: string) {
      return app.inject({
        method: 'GET',
        url: `/api/v1/consent-templates/${code}/latest`,
        headers,
      });
    },
  };
}
