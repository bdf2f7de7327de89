// The modules themselves, read at each call: tracing's instrumentation replaces their `request`
// (a named import would keep the original, and deliveries would have no client span).
import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import { timeLimit } from '../platform/time-limit.js';
import {
  type AddressPolicy,
  AddressRefused,
  checkedLookup,
  literalRefusal,
} from './address-policy.js';

/** One message as Standard Webhooks sends it. */
export interface Message {
  /** `webhook-id`: the event's id, the same on every attempt and every replay. */
  id: string;
  /** The JSON body, exactly as signed. */
  body: string;
  /** The event's position in the tenant's sequence (`webhook-position`), to replay from. */
  position: number;
}

/** What one attempt came to: a 2xx is delivered, anything else failed. */
export interface AttemptResult {
  ok: boolean;
  responseCode: number | null;
  error: string | null;
  durationMs: number;
}

/** Most bytes of an answer read (and dropped): a receiver has nothing to say past its status. */
const maxAnswerBytes = 64 * 1024;

/** How long an idle kept-alive connection stays open (shorter still when the receiver's
 * `Keep-Alive: timeout=` hint says so: Node's agent closes it a second before that). */
const idleMs = 4_000;

/**
 * Kept-alive connections, so that a busy endpoint is not a TCP (and TLS) handshake per event.
 * Webhooks have agents of their own, one pair per address policy: every socket in them was
 * connected through that policy's checked `lookup`, so reusing one reaches only an address the
 * policy allowed (a shared agent could hand over a socket another request opened unchecked).
 */
const agentsByPolicy = new WeakMap<AddressPolicy, { http: http.Agent; https: https.Agent }>();

function agentsOf(policy: AddressPolicy) {
  let agents = agentsByPolicy.get(policy);
  if (!agents) {
    agents = {
      http: new http.Agent({ keepAlive: true, timeout: idleMs }),
      https: new https.Agent({ keepAlive: true, timeout: idleMs }),
    };
    agentsByPolicy.set(policy, agents);
  }
  return agents;
}

/**
 * Sends a message once, signed under each of the endpoint's `whsec_` secrets (`webhook-signature:
 * v1,<base64 HMAC-SHA256 of id.timestamp.body>`, by the reference library; during a rotation's
 * overlap two, space-separated, as Standard Webhooks allows: a receiver accepts the message when
 * one of them verifies under its secret). Within `timeoutMs`
 * from start to the answer's end; redirects are not followed (a 3xx is a failure); the host is
 * resolved and checked by the address policy, and the connection goes to the checked address.
 */
export async function sendOnce(
  url: string,
  secrets: readonly string[],
  message: Message,
  policy: AddressPolicy,
  timeoutMs: number,
  /** Ends the attempt early (the service shutting down). */
  stop?: AbortSignal,
): Promise<AttemptResult> {
  const started = performance.now();
  const done = (result: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({
    ...result,
    durationMs: Math.round(performance.now() - started),
  });
  const target = new URL(url);
  const protocol = target.protocol === 'http:' ? 'http:' : 'https:';
  const refused = literalRefusal(target, policy);
  if (refused) return done({ ok: false, responseCode: null, error: `refused: ${refused}` });
  const now = new Date();
  const signature = secrets
    .map((secret) => new Webhook(secret).sign(message.id, now, message.body))
    .join(' ');
  const body = Buffer.from(message.body, 'utf8');
  const limit = timeLimit(timeoutMs, stop);
  const attempt = (): Promise<AttemptResult | 'stale'> =>
    new Promise((resolve) => {
      const send = protocol === 'http:' ? http.request : https.request;
      const req = send(
        target,
        {
          method: 'POST',
          lookup: checkedLookup(policy, protocol),
          signal: limit.signal,
          agent: protocol === 'http:' ? agentsOf(policy).http : agentsOf(policy).https,
          headers: {
            'content-type': 'application/json',
            'content-length': body.length,
            'user-agent': 'consent-service-webhooks',
            'webhook-id': message.id,
            'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
            'webhook-signature': signature,
            'webhook-position': String(message.position),
          },
        },
        (res) => {
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > maxAnswerBytes) res.destroy();
          });
          const status = res.statusCode ?? 0;
          const finish = () =>
            resolve(
              done({
                ok: status >= 200 && status < 300,
                responseCode: status,
                error: status >= 200 && status < 300 ? null : `answered ${status}`,
              }),
            );
          res.on('end', finish);
          res.on('close', finish);
          res.on('error', finish);
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the receiver closed as it was reused: Node's advice is to send
        // again, once, on a new one (at least once: a receiver drops a repeat by `webhook-id`).
        if (req.reusedSocket && error.code === 'ECONNRESET') return resolve('stale');
        const reason =
          error.name === 'AbortError' || error.name === 'TimeoutError'
            ? `no answer within ${timeoutMs} ms`
            : error instanceof AddressRefused
              ? `refused: ${error.message}`
              : error.message || String(error.code);
        resolve(done({ ok: false, responseCode: null, error: reason }));
      });
      req.end(body);
    });
  try {
    const result = await attempt();
    if (result !== 'stale') return result;
    const again = await attempt();
    return again === 'stale'
      ? done({ ok: false, responseCode: null, error: 'the connection was reset' })
      : again;
  } finally {
    limit.clear();
  }
}

/** A new signing secret in the Standard Webhooks form: `whsec_` and 32 random bytes, base64. */
export function newSecret(random: (size: number) => Buffer): string {
  return `whsec_${random(32).toString('base64')}`;
}
