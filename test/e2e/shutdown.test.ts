import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  freePort,
  makeTempStore,
  provision,
  type ServerProcess,
  serverEnv,
  startServer,
  type TempStore,
  withStore,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

interface Answer {
  what: string;
  status: number;
  contentType: string | null;
  text: string;
  afterSignal: boolean;
}

// The two stores' suites run at the same time, each on its own store and server.
describe.concurrent.each(stores)('on $name', (testStore) => {
  describe.sequential('graceful shutdown of serve', () => {
    let store: TempStore | undefined;
    let server: ServerProcess | undefined;

    afterEach(async () => {
      // Kills this store's children that are still running, then removes the store.
      await store?.remove();
      store = undefined;
    });

    it(
      'when SIGTERM arrives during a burst of requests, every answer is 2xx or 503 1009, and the process exits 0 within seconds',
      async () => {
        store = await makeTempStore(testStore);
        const port = await freePort();
        const env = serverEnv(store, port, 'warn');
        const p = await provision(env);
        server = await startServer({ store, port });
        const running = server;

        const headers = { 'x-system-api-key': p.apiKey.key };
        const requests: Array<{ what: string; go: () => Promise<Response> }> = [
          {
            what: 'latest',
            go: () =>
              fetch(`${running.baseUrl}/api/v1/consent-templates/${p.templateCode}/latest`, {
                headers,
                signal: AbortSignal.timeout(budget(10_000)),
              }),
          },
          {
            what: 'pending',
            go: () =>
              fetch(
                `${running.baseUrl}/api/v1/customers/${randomUUID()}/consents/templates/${p.templateCode}/pending`,
                { headers, signal: AbortSignal.timeout(budget(10_000)) },
              ),
          },
          {
            what: 'decision',
            go: () =>
              fetch(`${running.baseUrl}/api/v1/customers/${randomUUID()}/consents/decisions`, {
                method: 'POST',
                headers: { ...headers, 'content-type': 'application/json' },
                body: JSON.stringify({ consent_version_id: p.versionId, decision: 'given' }),
                signal: AbortSignal.timeout(budget(10_000)),
              }),
          },
        ];

        const answers: Answer[] = [];
        const failuresBeforeSignal: string[] = [];
        let unanswered = 0;
        let inFlight = 0;
        let inFlightAtSignal = 0;
        let signalled = false;
        const signalAfterAnswers = 60;
        const workers = 20;
        const maxRequestsPerWorker = 40;

        const worker = async (index: number) => {
          for (let i = 0; i < maxRequestsPerWorker; i += 1) {
            const request = requests[(index + i) % requests.length];
            if (!request) return;
            const sentAfterSignal = signalled;
            inFlight += 1;
            try {
              const response = await request.go();
              answers.push({
                what: request.what,
                status: response.status,
                contentType: response.headers.get('content-type'),
                text: await response.text(),
                afterSignal: sentAfterSignal,
              });
            } catch (error) {
              // No answer at all (connection refused or closed): allowed once the server stops.
              if (signalled) {
                unanswered += 1;
                return;
              }
              failuresBeforeSignal.push(String((error as Error).cause ?? error));
              return;
            } finally {
              inFlight -= 1;
            }
            if (!signalled && answers.length >= signalAfterAnswers) {
              signalled = true;
              inFlightAtSignal = inFlight;
              running.signal('SIGTERM');
            }
          }
        };
        await Promise.all(Array.from({ length: workers }, (_, index) => worker(index)));

        expect(failuresBeforeSignal).toEqual([]);
        expect(signalled, 'the burst ended before SIGTERM was sent').toBe(true);
        expect(inFlightAtSignal, 'no request was in flight when SIGTERM was sent').toBeGreaterThan(
          0,
        );

        // A keep-alive connection whose request was in flight at SIGTERM must be closed with its
        // answer, or the process would wait for the client to hang up.
        const exit = await running.waitForExit(budget(5_000));
        const summary = `${answers.length} answers, ${unanswered} requests without an answer`;
        expect(
          exit,
          `not ended with 0 within ${budget(5_000)} ms of SIGTERM (${summary})\n${running.describe()}`,
        ).toEqual({
          code: 0,
          signal: null,
        });

        const invalid: Answer[] = [];
        const recorded: string[] = [];
        for (const answer of answers) {
          let body: any;
          try {
            body = JSON.parse(answer.text);
          } catch {
            invalid.push(answer);
            continue;
          }
          const isJson = answer.contentType === 'application/json; charset=utf-8';
          if (answer.status >= 200 && answer.status < 300 && isJson && body?.data) {
            if (answer.what === 'decision' && answer.status === 201)
              recorded.push(body.data.decision_id);
            continue;
          }
          if (answer.status === 503 && isJson && body?.code === '1009') continue;
          invalid.push(answer);
        }
        expect(invalid, 'answers that are neither 2xx nor 503 1009').toEqual([]);
        expect(
          answers.filter((a) => a.status >= 200 && a.status < 300).length,
        ).toBeGreaterThanOrEqual(signalAfterAnswers);

        // A decision answered 201 during the shutdown is in the store.
        const stored = new Set(
          await withStore(store, async (db) =>
            (await db.selectFrom('decisions').select('id').execute()).map((row) => row.id),
          ),
        );
        expect(recorded.filter((id) => !stored.has(id))).toEqual([]);
      },
      budget(40_000),
    );

    it(
      'when SIGINT arrives while idle, the process exits 0 within seconds',
      async () => {
        store = await makeTempStore(testStore);
        server = await startServer({ store });
        const running = server;
        const health = await fetch(`${running.baseUrl}/api/health`, {
          signal: AbortSignal.timeout(budget(5_000)),
        });
        expect(health.status).toBe(200);
        await health.arrayBuffer();
        running.signal('SIGINT');
        expect(await running.waitForExit(budget(5_000)), running.describe()).toEqual({
          code: 0,
          signal: null,
        });
      },
      budget(20_000),
    );
  });
});
