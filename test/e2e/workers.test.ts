import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/postgres-server.js';
import {
  killAllChildren,
  makeTempStore,
  provision,
  serverEnv,
  startTwoWorkers,
  type TempStore,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

describe.concurrent.each(stores)('on $name', (testStore) => {
  describe.sequential('WORKERS=2', () => {
    let store: TempStore | undefined;

    afterEach(async () => {
      await killAllChildren(store);
      await store?.remove();
    });

    it(
      'serves one port from two processes, records every decision, and stops on SIGTERM',
      async () => {
        store = await makeTempStore(testStore);
        const port = await freePort();
        const p = await provision(serverEnv(store, port));
        const server = await startTwoWorkers(store, port);

        const answers = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            fetch(`${server.baseUrl}/api/v1/customers/worker-${i}/consents/decisions`, {
              method: 'POST',
              headers: { 'x-system-api-key': p.apiKey.key, 'content-type': 'application/json' },
              body: JSON.stringify({ consent_version_id: p.versionId, decision: 'given' }),
              signal: AbortSignal.timeout(budget(15_000)),
            }).then(async (response) => ({ status: response.status, body: await response.json() })),
          ),
        );
        expect(answers.filter((a) => a.status !== 201)).toEqual([]);
        // Requests were answered by both processes (their log lines may come a little later).
        const servedBy = () =>
          new Set(
            server
              .logs()
              .filter((record) => record.msg === 'request completed')
              .map((record) => record.pid),
          );
        for (let i = 0; i < 100 && servedBy().size < 2; i += 1) {
          await new Promise((resolve) => setTimeout(resolve, budget(20)));
        }
        expect(servedBy().size).toBe(2);

        server.signal('SIGTERM');
        expect(await server.waitForExit(budget(10_000))).toEqual({ code: 0, signal: null });
      },
      budget(60_000),
    );
  });
});
