import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's `X-Request-Id` when it is well-formed, otherwise a new one (contract section 2). */
export function requestIdFor(request: IncomingMessage): string {
  const offered = request.headers['x-request-id'];
  return typeof offered === 'string' && acceptable.test(offered) ? offered : randomUUID();
}
