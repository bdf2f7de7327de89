import { get } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/postgres-server.js';
import {
  killAllChildren,
  makeTempStore,
  pollUntil,
  provision,
  serverEnv,
  startTwoWorkers,
  type TempStore,
} from '../helpers/process.js';
import { parseScrape } from '../helpers/prometheus.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

const token = 'scrape-token-0123456789abcdef';
const latestRoute = '/api/v1/consent-templates/:template_code/latest';

/** A GET on a connection of its own (no keep-alive), so the cluster hands each to a worker in turn. */
function getOnNewConnection(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = get(
      { host: '127.0.0.1', port, path, headers, agent: false, timeout: budget(5_000) },
      (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', reject);
  });
}

describe.concurrent.each(stores)('on $name', (testStore) => {
  describe.sequential('GET /metrics with WORKERS=2', () => {
    let store: TempStore | undefined;

    afterEach(async () => {
      await killAllChildren(store);
      await store?.remove();
    });

    it(
      'answers every worker summed, whichever worker takes the scrape',
      async () => {
        store = await makeTempStore(testStore);
        const port = await freePort();
        const p = await provision(serverEnv(store, port));
        const server = await startTwoWorkers(store, port, { METRICS_TOKEN: token });

        const path = `/api/v1/consent-templates/${p.templateCode}/latest`;
        for (let i = 0; i < 20; i += 1) {
          const answer = await getOnNewConnection(port, path, { 'x-system-api-key': p.apiKey.key });
          expect(answer.status).toBe(200);
        }
        const labels = { method: 'GET', route: latestRoute, status_code: '200' };
        const storeLabel = testStore.name === 'postgres' ? 'postgresql' : 'sqlite';
        // The version provisioned left its publication's leaf queued: one worker appends it.
        const drained = await pollUntil(
          async () => {
            const scrape = await getOnNewConnection(port, '/metrics', {
              authorization: `Bearer ${token}`,
            });
            const queued = parseScrape(scrape.body).value('consent_log_queued_leaves', {
              store: storeLabel,
            });
            return queued === 0 ? true : undefined;
          },
          { timeoutMs: budget(10_000), intervalMs: 100 },
        );
        expect(drained).toBe(true);
        // Scrapes on new connections land on both workers; each answers the sum, 20.
        for (let i = 0; i < 4; i += 1) {
          const scrape = await getOnNewConnection(port, '/metrics', {
            authorization: `Bearer ${token}`,
          });
          expect(scrape.status).toBe(200);
          const parsed = parseScrape(scrape.body);
          expect(parsed.value('http_requests_total', labels)).toBe(20);
          // The decision log's backlog is the same store's for both: not counted twice.
          expect(parsed.value('consent_log_queued_leaves', { store: storeLabel })).toBe(0);
        }
        await server.stop(budget(15_000));
      },
      budget(60_000),
    );
  });
});
