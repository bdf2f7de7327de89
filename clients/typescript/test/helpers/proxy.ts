import { once } from 'node:events';
import {
  createServer,
  request as forwardRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/** An answer the proxy makes up itself. */
export interface MadeUpAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * What the proxy does with one request:
 * - `forward`: passes it to the server and the server's answer back;
 * - `answer`: answers it itself, the server never seeing it;
 * - `forward-then-answer`: passes it to the server, which does the work, then answers its own
 *   `answer` instead of the server's (an answer lost on the way back);
 * - `forward-then-drop`: passes it to the server, then closes the connection without answering;
 * - `forward-then-hang`: passes it to the server, then never answers (until the proxy closes).
 */
export type Plan =
  | { kind: 'forward' }
  | { kind: 'answer'; answer: MadeUpAnswer }
  | { kind: 'forward-then-answer'; answer: MadeUpAnswer }
  | { kind: 'forward-then-drop' }
  | { kind: 'forward-then-hang' };

/** One request the proxy received, and what the server answered it when it was passed on. */
export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The request's body as sent, read as UTF-8 (empty when it had none). */
  body: string;
  /** `performance.now()` when the request arrived, and when the proxy answered it. */
  arrivedAt: number;
  /** `Date.now()` when the request arrived: to compare with an HTTP date. */
  arrivedAtDate: number;
  answeredAt?: number;
  upstream?: { status: number; headers: IncomingHttpHeaders; body: string };
}

export interface TestProxy {
  url: string;
  seen: Seen[];
  /** The plan for the next requests, in order; once used up, every request is forwarded. */
  plan(...plans: Plan[]): void;
  close(): Promise<void>;
}

/** A real HTTP proxy on 127.0.0.1 in front of `target`, doing to each request what it is told. */
export async function startProxy(target: string): Promise<TestProxy> {
  const upstream = new URL(target);
  const seen: Seen[] = [];
  let plans: Plan[] = [];
  const hanging: ServerResponse[] = [];

  const server = createServer(async (req, res) => {
    const body = Buffer.concat(await req.toArray());
    const entry: Seen = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: body.toString('utf8'),
      arrivedAt: performance.now(),
      arrivedAtDate: Date.now(),
    };
    seen.push(entry);
    const plan = plans.shift() ?? { kind: 'forward' };
    if (plan.kind === 'answer') return answer(res, entry, plan.answer);
    entry.upstream = await forward(upstream, req, body);
    if (plan.kind === 'forward-then-answer') return answer(res, entry, plan.answer);
    if (plan.kind === 'forward-then-drop') return res.socket?.destroy();
    if (plan.kind === 'forward-then-hang') return void hanging.push(res);
    const { status, headers, body: upstreamBody } = entry.upstream;
    res.writeHead(status, withoutHopByHop(headers));
    res.end(upstreamBody);
    entry.answeredAt = performance.now();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    plan: (...next) => {
      plans = next;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

function answer(res: ServerResponse, entry: Seen, made: MadeUpAnswer): void {
  res.writeHead(made.status, made.headers ?? {});
  res.end(made.body ?? '');
  entry.answeredAt = performance.now();
}

async function forward(
  upstream: URL,
  req: IncomingMessage,
  body: Buffer,
): Promise<NonNullable<Seen['upstream']>> {
  const outgoing = forwardRequest({
    host: upstream.hostname,
    port: upstream.port,
    method: req.method,
    path: req.url,
    headers: { ...withoutHopByHop(req.headers), host: upstream.host },
  });
  outgoing.end(body);
  const [response] = (await once(outgoing, 'response')) as [IncomingMessage];
  const text = Buffer.concat(await response.toArray()).toString('utf8');
  return { status: response.statusCode ?? 0, headers: response.headers, body: text };
}

/** Headers about one connection are not passed on (RFC 9110 section 7.6.1). */
function withoutHopByHop(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const {
    connection: _connection,
    'keep-alive': _keepAlive,
    'transfer-encoding': _transferEncoding,
    ...rest
  } = headers;
  return rest;
}
