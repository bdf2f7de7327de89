import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { budget } from './time.js';

/** One request as the receiver got it. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** What `answer` said to it (0: held or dropped). */
  status: number;
  /** Which connection it came on: 1 for the receiver's first, 2 for the next, … */
  connection: number;
  /** When it had arrived whole, by the receiver's clock (ms since the epoch). */
  at: number;
}

/**
 * What the receiver answers a request with: a status, `hold` to keep it open, or `drop` to
 * close its connection without an answer.
 */
export type Answer = (
  received: Omit<Received, 'status'>,
  index: number,
) => number | 'hold' | 'drop';

/**
 * A real HTTP receiver on 127.0.0.1, started by the test: it keeps every request it gets and
 * answers what `answer` says (200 unless told otherwise).
 */
export async function startReceiver(answer: Answer = () => 200) {
  const received: Received[] = [];
  const held: ServerResponse[] = [];
  let answerWith = answer;
  const connections = new WeakMap<object, number>();
  let connected = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const got = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        connection: connections.get(req.socket) ?? 0,
        at: Date.now(),
      };
      const status = answerWith(got, received.length);
      received.push({ ...got, status: typeof status === 'number' ? status : 0 });
      if (status === 'hold') {
        held.push(res);
        return;
      }
      if (status === 'drop') {
        req.socket.destroy();
        return;
      }
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.on('connection', (socket) => connections.set(socket, ++connected));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answer(next: Answer) {
      answerWith = next;
    },
    /** Answers every request held so far with `status`. */
    release(status = 200) {
      for (const res of held.splice(0))
        res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Checks a request's signature with the reference library; answers the parsed payload. */
export function verified(secret: string, got: Pick<Received, 'headers' | 'body'>) {
  const headers = {
    'webhook-id': String(got.headers['webhook-id']),
    'webhook-timestamp': String(got.headers['webhook-timestamp']),
    'webhook-signature': String(got.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(got.body, headers) as {
    type: string;
    timestamp: string;
    data: Record<string, unknown>;
  };
}

/** Polls `check` every 20 ms until it answers true; fails after `ms` (a budget). */
export async function eventually(check: () => boolean | Promise<boolean>, ms = budget(5_000)) {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`not so within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Settings that make webhooks quick to test: `http://` to the receiver on loopback, a dispatch
 * pass and the log's integration every 20 ms, retries from 20 ms, an attempt bounded by a budget.
 */
export const fastWebhooks = {
  WEBHOOK_ALLOW_HTTP_LOOPBACK: 'true',
  WEBHOOK_DISPATCH_INTERVAL_MS: '20',
  WEBHOOK_RETRY_BASE_MS: '20',
  WEBHOOK_TIMEOUT_MS: String(budget(2_000)),
  LOG_INTEGRATE_INTERVAL_MS: '20',
};

/** The actor the webhooks' service functions take, as the command line makes it. */
export const byCli = (tenantId: string) =>
  ({ tenantId, actorKind: 'operator', actor: 'test', ip: 'local', userAgent: null }) as const;
