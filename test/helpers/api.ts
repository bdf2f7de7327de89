import type { FastifyInstance } from 'fastify';
import { bothPaths } from './two-paths.js';

/**
 * Thin callers of the public API, so tests read as the contract does. `pending` and `latest`
 * go both ways the service answers them (two-paths.ts): through Fastify and, on an app that
 * listens (every `startTestApp`'s), before it.
 */
export function apiOf(
  app: FastifyInstance,
  headers: Record<string, string>,
  /** `inject`: through Fastify alone, for a test that counts each request (metrics). */
  paths: 'both' | 'inject' = 'both',
) {
  const read = (url: string) =>
    paths === 'both' ? bothPaths(app, url, headers) : app.inject({ method: 'GET', url, headers });
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
      return read(
        `/api/v1/customers/${encodeURIComponent(customer)}/consents/templates/${code}/pending`,
      );
    },
    latest(code: string) {
      return read(`/api/v1/consent-templates/${code}/latest`);
    },
    /** The customer's consents and first page of history. */
    consents(customer: string) {
      return app.inject({
        method: 'GET',
        url: `/api/v1/customers/${encodeURIComponent(customer)}/consents`,
        headers,
      });
    },
  };
}

/** The contract's bound: a publish is seen by every request starting this long after it. */
export const publishVisibleWithinMs = 1000;

/**
 * Repeats `read` until `done` holds for its answer, and fails if that takes longer than the
 * contract's publish-visibility bound (counted from `since`, the moment the publish returned).
 */
export async function withinPublishBound<T>(
  read: () => Promise<T>,
  done: (answer: T) => boolean,
  since = Date.now(),
): Promise<T> {
  for (;;) {
    const startedAt = Date.now();
    const answer = await read();
    if (done(answer)) return answer;
    if (startedAt - since > publishVisibleWithinMs) {
      throw new Error(
        `not seen by a request that started ${startedAt - since} ms after the publish`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
