import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callServer,
  freePort,
  makeTempStore,
  type Provisioned,
  provision,
  runCli,
  serverEnv,
  startServer,
  type TempStore,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';
import { eventually, startReceiver as startWebhookReceiver } from '../helpers/webhook-receiver.js';

/** A span as OTLP/JSON carries it, its attributes made a plain object. */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  /** `code` 2 is ERROR, 1 OK, absent or 0 unset. */
  status?: { code?: number; message?: string };
  events?: Array<{ name: string; attributes?: OtlpAttribute[] }>;
  service: unknown;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}

function plain(attributes: OtlpAttribute[] = []): Record<string, unknown> {
  return Object.fromEntries(
    attributes.map(({ key, value }) => [
      key,
      value.stringValue ?? value.intValue ?? value.boolValue,
    ]),
  );
}

/** A real OTLP/HTTP receiver on loopback: it keeps every span posted to /v1/traces as JSON. */
async function startReceiver(): Promise<{
  url: string;
  spans: ReceivedSpan[];
  posts: string[];
  server: Server;
}> {
  const spans: ReceivedSpan[] = [];
  const posts: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      posts.push(`${request.method} ${request.url} ${request.headers['content-type']}`);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: Array<{
          resource: { attributes: OtlpAttribute[] };
          scopeSpans: Array<{
            spans: Array<
              Omit<ReceivedSpan, 'attributes' | 'service'> & { attributes: OtlpAttribute[] }
            >;
          }>;
        }>;
      };
      for (const resourceSpans of body.resourceSpans) {
        const service = plain(resourceSpans.resource.attributes)['service.name'];
        for (const scope of resourceSpans.scopeSpans) {
          for (const span of scope.spans)
            spans.push({ ...span, attributes: plain(span.attributes), service });
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, spans, posts, server };
}

const latestRoute = '/api/v1/consent-templates/:template_code/latest';
const pendingRoute = '/api/v1/customers/:customer_id/consents/templates/:template_code/pending';
const decisionsRoute = '/api/v1/customers/:customer_id/consents/decisions';

describe.concurrent.each(stores)('traces on $name', (testStore) => {
  describe.sequential('serve with OTEL_* pointing at an OTLP/HTTP receiver', () => {
    let store: TempStore;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let p: Provisioned;
    let port: number;

    beforeAll(async () => {
      store = await makeTempStore(testStore);
      receiver = await startReceiver();
      port = await freePort();
      p = await provision(serverEnv(store, port));
    });
    afterAll(async () => {
      await store?.remove();
      await new Promise((resolve) => receiver?.server.close(resolve));
    });

    const exercise = async (env: Record<string, string>, settle = async () => {}) => {
      const server = await startServer({ store, port, env });
      const api = (path: string, init: RequestInit = {}) =>
        callServer(server, { 'x-system-api-key': p.apiKey.key }, path, init, budget(5_000));
      expect((await api(`/api/v1/consent-templates/${p.templateCode}/latest`)).status).toBe(200);
      const decided = await api(
        `/api/v1/customers/traced-${env.OTEL_SERVICE_NAME ?? 'none'}/consents/decisions`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ consent_version_id: p.versionId, decision: 'given' }),
        },
      );
      expect(decided.status).toBe(201);
      await settle();
      // A graceful stop flushes what the SDK still holds before the process ends.
      await server.stop(budget(10_000));
      expect(server.exit, server.describe()).toEqual({ code: 0, signal: null });
    };

    it('with OTEL_SDK_DISABLED=true, exports nothing, though told where to', async () => {
      await exercise({
        OTEL_SDK_DISABLED: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'disabled',
      });
      expect(receiver.posts).toEqual([]);
    });

    it('exports the request spans with their route, store spans as their children, and webhook deliveries', async () => {
      const hooks = await startWebhookReceiver(() => 204);
      const webhooks = {
        WEBHOOK_ALLOW_HTTP_LOOPBACK: 'true',
        WEBHOOK_DISPATCH_INTERVAL_MS: '50',
        LOG_INTEGRATE_INTERVAL_MS: '50',
      };
      const created = await runCli(
        [
          'webhook',
          'create',
          '--tenant',
          p.alias,
          '--url',
          hooks.url,
          '--events',
          'decision.given',
        ],
        { ...serverEnv(store, port), ...webhooks },
      );
      expect(created.code, created.stderr).toBe(0);
      try {
        await exercise(
          {
            ...webhooks,
            OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
            OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
            OTEL_SERVICE_NAME: 'consent-e2e',
            OTEL_BSP_SCHEDULE_DELAY: '100',
          },
          () => eventually(() => hooks.received.length >= 1, budget(10_000)),
        );
      } finally {
        await hooks.close();
      }
      expect(receiver.posts.length).toBeGreaterThan(0);
      expect(
        receiver.posts.every((post) => post.startsWith('POST /v1/traces application/json')),
      ).toBe(true);
      const spans = receiver.spans;
      expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['consent-e2e']));
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const ancestors = (span: ReceivedSpan): ReceivedSpan[] => {
        const chain: ReceivedSpan[] = [];
        let parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
        for (let i = 0; parent && i < 50; i += 1) {
          chain.push(parent);
          parent = parent.parentSpanId ? byId.get(parent.parentSpanId) : undefined;
        }
        return chain;
      };
      const routeOf = (span: ReceivedSpan) =>
        [span, ...ancestors(span)].map((s) => s.attributes['http.route']).find(Boolean);

      // The HTTP server spans (kind SERVER = 2), named and labelled with the route pattern.
      const server = spans.filter((s) => s.kind === 2);
      expect(server.map((s) => s.attributes['http.route'])).toEqual(
        expect.arrayContaining([latestRoute, decisionsRoute]),
      );

      // The first latest reads the key and the release from the store: statements in its trace.
      const storeSpans = spans.filter((s) => s.attributes['db.system.name'] !== undefined);
      const latestQueries = storeSpans.filter((s) => routeOf(s) === latestRoute);
      expect(latestQueries.length).toBeGreaterThanOrEqual(2);
      for (const query of latestQueries) {
        expect(query.attributes['db.system.name']).toBe(
          testStore.name === 'postgres' ? 'postgresql' : 'sqlite',
        );
        expect(String(query.attributes['db.query.text'])).toMatch(/^select /i);
        // Its parent is a span of the same trace, up to the request's server span.
        const chain = ancestors(query);
        expect(chain.length).toBeGreaterThan(0);
        expect(chain.every((s) => s.traceId === query.traceId)).toBe(true);
        expect(chain.some((s) => s.kind === 2)).toBe(true);
      }
      // The decision: its write is a span under the request, on either writer.
      const writes = spans.filter((s) => s.name === 'decision.write');
      expect(writes).toHaveLength(1);
      expect(routeOf(writes[0] as ReceivedSpan)).toBe(decisionsRoute);
      expect((writes[0] as ReceivedSpan).attributes['consent.decision']).toBe('given');
      // The webhook's delivery: a span of its own (no request started it), with the POST to the
      // receiver as its child (the HTTP client span, kind CLIENT = 3).
      const deliveries = spans.filter((s) => s.name === 'webhook.deliver');
      // Every delivery the receiver got has its span (an attempt cut short by the stop has one
      // too, which the receiver may not have seen whole).
      const positions = hooks.received.map((got) => Number(got.headers['webhook-position']));
      expect(positions.length).toBeGreaterThan(0);
      expect(deliveries.map((d) => d.attributes['webhook.position'])).toEqual(
        expect.arrayContaining(positions),
      );
      for (const delivery of deliveries) {
        expect(delivery.attributes['webhook.event_type']).toBe('decision.given');
        const posts = spans.filter((s) => s.parentSpanId === delivery.spanId && s.kind === 3);
        expect(posts).toHaveLength(1);
        expect((posts[0] as ReceivedSpan).traceId).toBe(delivery.traceId);
      }
      // No statement outside a request (the integrator's timer) makes a trace of its own.
      expect(storeSpans.every((s) => s.parentSpanId)).toBe(true);
    });

    it('redacts keys and secret parameters in every span, names customers by the route pattern, and marks a failed delivery an error', async () => {
      const failing = await startWebhookReceiver(() => 500);
      const webhooks = {
        WEBHOOK_ALLOW_HTTP_LOOPBACK: 'true',
        WEBHOOK_DISPATCH_INTERVAL_MS: '50',
        LOG_INTEGRATE_INTERVAL_MS: '50',
      };
      const created = await runCli(
        [
          'webhook',
          'create',
          '--tenant',
          p.alias,
          '--url',
          // A receiver URL with a secret parameter: its client span must not show it either.
          `${failing.url}?token=receiver-secret-value`,
          '--events',
          'decision.reject',
        ],
        { ...serverEnv(store, port), ...webhooks },
      );
      expect(created.code, created.stderr).toBe(0);
      const key = p.apiKey.key;
      const secret = /^csk_[0-9a-f]{12}_(.+)$/.exec(key)?.[1] ?? '';
      expect(secret).not.toBe('');
      const customer = 'traced-customer-4711';
      receiver.spans.length = 0;
      const server = await startServer({
        store,
        port,
        env: {
          ...webhooks,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_SERVICE_NAME: 'consent-redaction',
          OTEL_BSP_SCHEDULE_DELAY: '100',
        },
      });
      try {
        const api = (path: string, init: RequestInit = {}) =>
          callServer(server, { 'x-system-api-key': key }, path, init, budget(5_000));
        // The key in the query, under a documented secret name, beside another secret parameter.
        const latest = await api(
          `/api/v1/consent-templates/${p.templateCode}/latest?api_key=${key}&token=X&locale=en`,
        );
        expect(latest.status).toBe(200);
        // The key in the customer-id slot, and a real customer id.
        expect(
          (await api(`/api/v1/customers/${key}/consents/templates/${p.templateCode}/pending`))
            .status,
        ).toBe(200);
        const decided = await api(`/api/v1/customers/${customer}/consents/decisions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ consent_version_id: p.versionId, decision: 'reject' }),
        });
        expect(decided.status).toBe(201);
        await eventually(() => failing.received.length >= 1, budget(10_000));
        await server.stop(budget(10_000));
        expect(server.exit, server.describe()).toEqual({ code: 0, signal: null });
      } finally {
        await failing.close();
      }
      const spans = receiver.spans.filter((s) => s.service === 'consent-redaction');
      expect(spans.length).toBeGreaterThan(0);
      // Nowhere, in any name, attribute or event: the key's secret, the secret parameters'
      // values, or the customer id.
      const everything = JSON.stringify(spans);
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain('token=X');
      expect(everything).not.toContain('receiver-secret-value');
      expect(everything).not.toContain(customer);
      // The query keeps its shape, with the values of secret names redacted.
      const latestServer = spans.find(
        (s) => s.kind === 2 && s.attributes['http.route'] === latestRoute,
      );
      expect(latestServer?.attributes['url.query']).toBe(
        'api_key=[Redacted]&token=[Redacted]&locale=en',
      );
      // Paths with a customer id are the route pattern, on the server and the request span.
      for (const route of [pendingRoute, decisionsRoute]) {
        const ofRoute = spans.filter((s) => s.attributes['http.route'] === route);
        expect(ofRoute.length).toBeGreaterThanOrEqual(2);
        for (const span of ofRoute) {
          for (const name of ['url.path', 'http.target']) {
            if (span.attributes[name] !== undefined) expect(span.attributes[name]).toBe(route);
          }
        }
      }
      // The failed delivery's span is an error, with the answer's status.
      const deliveries = spans.filter((s) => s.name === 'webhook.deliver');
      expect(deliveries.length).toBeGreaterThan(0);
      for (const delivery of deliveries) {
        expect(delivery.status?.code).toBe(2);
        expect(delivery.status?.message).toBe('answered 500');
      }
    });
  });
});
