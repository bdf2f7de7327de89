import { randomUUID } from 'node:crypto';
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callServer,
  expectJsonObject,
  makeTempStore,
  type Provisioned,
  pollUntil,
  provision,
  runCli,
  type ServerProcess,
  showResult,
  startServer,
  type TempStore,
  tableNames,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

const isoUtc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const jsonType = 'application/json; charset=utf-8';

// The two stores' suites run at the same time, each on its own store and server.
describe.concurrent.each(stores)('on $name', (testStore) => {
  describe.sequential('serve as a child process, used over real HTTP with a key made by the command line', () => {
    let store: TempStore;
    let server: ServerProcess;
    let p: Provisioned;
    let tablesBeforeAnyCommand: string[] = [];
    /** A customer who gave consent on version 1 (set by the decision test). */
    let customerOnV1: string | undefined;

    const api = (path: string, init: RequestInit = {}, key = p.apiKey.key) =>
      callServer(server, { 'x-system-api-key': key }, path, init, budget(5_000));
    const latestPath = () => `/api/v1/consent-templates/${p.templateCode}/latest`;
    const pendingPath = (customer: string) =>
      `/api/v1/customers/${customer}/consents/templates/${p.templateCode}/pending`;
    const decide = (customer: string, versionId: string, decision: string) =>
      api(`/api/v1/customers/${customer}/consents/decisions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ consent_version_id: versionId, decision }),
      });

    beforeAll(async () => {
      store = await makeTempStore(testStore);
      server = await startServer({ store, logLevel: 'info' });
      // Before any command touches the store: what serve itself made of the empty store.
      tablesBeforeAnyCommand = await tableNames(store);
      p = await provision(server.env);
    });

    afterAll(async () => {
      try {
        await server?.stop(budget(10_000));
      } finally {
        await store?.remove();
      }
    });

    it('on a fresh store, applies the migrations before listening', () => {
      expect(tablesBeforeAnyCommand).toEqual(
        expect.arrayContaining([
          'tenants',
          'api_keys',
          'templates',
          'template_versions',
          'decisions',
          'customer_template_states',
        ]),
      );
    });

    it('with an empty store, logs (a JSON line on stdout) how to create the first tenant', async () => {
      const hint = await pollUntil(
        async () =>
          server
            .logs()
            .filter((r) => typeof r.msg === 'string' && r.msg.includes('tenant create'))
            .at(0),
        { timeoutMs: budget(5_000) },
      );
      expect(hint, server.describe()).toBeDefined();
      expect(String(hint?.msg)).toContain('demo');
      const hints = server
        .logs()
        .filter((r) => typeof r.msg === 'string' && r.msg.includes('tenant create'));
      expect(hints).toHaveLength(1);
      expect(server.nonJsonLines()).toEqual([]);
      // The test stores compare text byte by byte: no collation warning (text-order.test.ts).
      expect(server.logs().filter((r) => String(r.msg).includes('collation'))).toEqual([]);
      // Their ids are what 0058 makes them: no warning of ids kept as text (ids-kept-as-text.test.ts).
      expect(server.logs().filter((r) => String(r.msg).includes('ids are text'))).toEqual([]);
    });

    it('latest answers 200 with the version the command line printed, and an ETag', async () => {
      const response = await api(latestPath());
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(jsonType);
      expect(response.headers.get('etag')).toMatch(/^(W\/)?"[^"]+"$/);
      expect(response.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
      const body = (await response.json()) as { data: Record<string, unknown> };
      expect(body).toEqual({ data: p.version });
      expect(body.data.file_url).toBe(`${server.baseUrl}/api/content/${p.versionId}.html`);
    });

    it('latest with a matching If-None-Match (sent by fetch) answers 304 with no body', async () => {
      const first = await api(latestPath());
      await first.arrayBuffer();
      const etag = first.headers.get('etag');
      expect(etag).toBeTruthy();

      // fetch() adds `Cache-Control: no-cache` and `Pragma: no-cache` to any request that carries
      // If-None-Match (Fetch standard, HTTP-network-or-cache fetch); the origin must still answer
      // the conditional request (RFC 9110 13.1.2; no-cache is addressed to caches).
      const cached = await api(latestPath(), { headers: { 'if-none-match': String(etag) } });
      expect(cached.status, 'a matching If-None-Match sent by fetch() did not get 304').toBe(304);
      expect(await cached.text()).toBe('');
    });

    it('latest with a matching If-None-Match and no Cache-Control answers 304 with no body', async () => {
      const first = await api(latestPath());
      await first.arrayBuffer();
      const etag = String(first.headers.get('etag'));
      // node:http sends exactly the headers given: no Cache-Control.
      const answer = await new Promise<{ status: number | undefined; body: string }>(
        (resolve, reject) => {
          const request = get(
            `${server.baseUrl}${latestPath()}`,
            {
              headers: { 'x-system-api-key': p.apiKey.key, 'if-none-match': etag },
              timeout: budget(5_000),
            },
            (response) => {
              let body = '';
              response.setEncoding('utf8');
              response.on('data', (chunk: string) => {
                body += chunk;
              });
              response.on('end', () => resolve({ status: response.statusCode, body }));
            },
          );
          request.on('timeout', () => request.destroy(new Error('timed out')));
          request.on('error', reject);
        },
      );
      expect(answer).toEqual({ status: 304, body: '' });
    });

    it('latest with a stale If-None-Match answers 200 with the version', async () => {
      const stale = await api(latestPath(), { headers: { 'if-none-match': '"not-the-etag"' } });
      expect(stale.status).toBe(200);
      expect(((await stale.json()) as { data: unknown }).data).toEqual(p.version);
    });

    it('pending for a customer never seen before answers accepted false with the latest version', async () => {
      const response = await api(pendingPath(randomUUID()));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(jsonType);
      expect(await response.json()).toEqual({
        data: { accepted: false, consent_version: p.version, decision: null, decided_at: null },
      });
    });

    it('a given decision answers 201 with D, and pending then answers accepted true, decision given', async () => {
      const customer = randomUUID();
      const response = await decide(customer, p.versionId, 'given');
      expect(response.status).toBe(201);
      expect(response.headers.get('content-type')).toBe(jsonType);
      const { data } = (await response.json()) as { data: Record<string, unknown> };
      expect(data).toEqual({
        decision_id: expect.any(String),
        customer_id: customer,
        template_code: p.templateCode,
        consent_version_id: p.versionId,
        version: 1,
        decision: 'given',
        decided_at: expect.stringMatching(isoUtc),
      });

      const pending = await api(pendingPath(customer));
      expect(pending.status).toBe(200);
      expect(await pending.json()).toEqual({
        data: {
          accepted: true,
          consent_version: p.version,
          decision: 'given',
          decided_at: data.decided_at,
        },
      });
      customerOnV1 = customer;
    });

    it('the content file at file_url answers the content as a text/html document, without a key', async () => {
      const response = await fetch(String(p.version.file_url), {
        signal: AbortSignal.timeout(budget(5_000)),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toMatch(/immutable/);
      const html = await response.text();
      expect(html).toMatch(/^<!doctype html>/i);
      expect(html).toContain(String(p.version.content_html));
      expect(html).toMatch(/<\/html>\s*$/);
    });

    it('when a key is revoked with apikey revoke while the server runs, requests from 1 second later are 401 1002', async () => {
      const second = expectJsonObject(
        await runCli(['apikey', 'create', '--tenant', p.alias, '--name', 'to revoke'], server.env),
      );
      const key = String(second.key);
      const before = await api(latestPath(), {}, key);
      expect(before.status).toBe(200);
      await before.arrayBuffer();

      expectJsonObject(
        await runCli(
          ['apikey', 'revoke', '--tenant', p.alias, '--id', String(second.id)],
          server.env,
        ),
      );

      const revokedAt = Date.now();
      // Each instance trusts a key record for under a second: poll within that bound, and then
      // judge by a request that started after it (however slowly the earlier ones were answered).
      let after = await api(latestPath(), {}, key);
      while (after.status === 200 && Date.now() - revokedAt <= 1_000) {
        await after.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 20));
        after = await api(latestPath(), {}, key);
      }
      if (after.status === 200) {
        await after.arrayBuffer();
        const wait = revokedAt + 1_001 - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        after = await api(latestPath(), {}, key);
      }
      expect(after.status).toBe(401);
      expect(after.headers.get('content-type')).toBe(jsonType);
      expect(await after.json()).toEqual({ code: '1002', message: 'Unauthorized.' });

      const decision = await decide(randomUUID(), p.versionId, 'given').then(async (r) => r.status);
      expect(decision, 'the other key of the tenant still works').toBe(201);
      const revokedPost = await fetch(
        `${server.baseUrl}/api/v1/customers/${randomUUID()}/consents/decisions`,
        {
          method: 'POST',
          headers: { 'x-system-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ consent_version_id: p.versionId, decision: 'given' }),
          signal: AbortSignal.timeout(budget(5_000)),
        },
      );
      expect(revokedPost.status).toBe(401);
      expect(await revokedPost.json()).toEqual({ code: '1002', message: 'Unauthorized.' });
    });

    it('when the port is already taken, a second serve exits non-zero with the reason on stderr', async () => {
      const result = await runCli(['serve'], server.env, {
        cwd: store.dir,
        timeoutMs: budget(15_000),
      });
      expect(result.code, showResult(result)).not.toBe(0);
      expect(result.code, showResult(result)).not.toBeNull();
      expect(result.stderr, showResult(result)).toMatch(/EADDRINUSE|address already in use/i);
      const health = await fetch(`${server.baseUrl}/api/health`, {
        signal: AbortSignal.timeout(budget(5_000)),
      });
      expect(health.status, 'the first server still answers').toBe(200);
      await health.arrayBuffer();
    });

    it('a version published with the command line while the server runs is answered by latest within 1 second', async () => {
      const old = await api(latestPath());
      const oldEtag = String(old.headers.get('etag'));
      await old.arrayBuffer();

      const published = expectJsonObject(
        await runCli(
          [
            'version',
            'publish',
            '--tenant',
            p.alias,
            '--template',
            p.templateCode,
            '--tag',
            '2.0',
            '--content',
            '<p>Second text.</p>',
          ],
          server.env,
        ),
      );
      // The publish committed before the command exited.
      const committedBy = Date.now();
      expect(published.version).toBe(2);

      const latestVersion = async () => {
        const response = await api(latestPath());
        const body = (await response.json()) as { data: { consent_version_id: string } };
        return body.data.consent_version_id === published.consent_version_id ? body : undefined;
      };
      let seen = await pollUntil(latestVersion, { timeoutMs: 1_000, intervalMs: 50 });
      if (seen === undefined) {
        // The contract's bound: a request that starts more than 1 s after the commit sees it.
        const wait = committedBy + 1_001 - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        seen = await latestVersion();
      }
      expect(seen, 'latest still answers the old version more than 1 s after the publish').toEqual({
        data: published,
      });

      const revalidated = await api(latestPath(), { headers: { 'if-none-match': oldEtag } });
      expect(revalidated.status, 'the old ETag must not match the new latest').toBe(200);
      await revalidated.arrayBuffer();

      if (customerOnV1 !== undefined) {
        const pending = await api(pendingPath(customerOnV1));
        expect(await pending.json()).toEqual({
          data: { accepted: false, consent_version: published, decision: null, decided_at: null },
        });
      }
    });
  });
});
