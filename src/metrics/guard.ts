import type { FastifyRequest } from 'fastify';
import type { Config } from '../platform/config.js';
import { AppError } from '../platform/errors.js';
import { digestsEqual, sha256Hex } from '../platform/hashing.js';
import { subnetMatcher } from '../platform/subnets.js';

/** True when `/metrics` is served: a token or an allow-list is set (docs/metrics.md). */
export function metricsEnabled(config: Pick<Config, 'metricsToken' | 'metricsAllow'>): boolean {
  return config.metricsToken !== undefined || config.metricsAllow !== undefined;
}

/**
 * Who may scrape: with `METRICS_ALLOW`, only a client address inside it (the address as
 * `TRUST_PROXY` makes it), else `403 1003`; with `METRICS_TOKEN`, only a request bearing it,
 * else `401 1002`. With both, both must hold.
 */
export function scrapeGuard(
  config: Pick<Config, 'metricsToken' | 'metricsAllow'>,
): (request: FastifyRequest) => AppError | undefined {
  const allowed = config.metricsAllow ? subnetMatcher(config.metricsAllow) : undefined;
  // Digests of equal length, so that the comparison takes the same time whatever was sent.
  const expected = config.metricsToken === undefined ? undefined : sha256Hex(config.metricsToken);
  return (request) => {
    if (allowed && !allowed(request.ip)) return new AppError('forbidden');
    if (expected) {
      const presented = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')?.[1];
      if (presented === undefined || !digestsEqual(sha256Hex(presented), expected)) {
        return new AppError('unauthorized', { headers: { 'www-authenticate': 'Bearer' } });
      }
    }
    return undefined;
  };
}
