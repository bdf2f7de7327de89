/**
 * A store that refuses writes, or every request, for real (see helpers/store-faults.ts): the API
 * answers 503 1009 with Retry-After, never 500; reads that need no write still answer; and once
 * the store is back the same requests succeed without a restart, with every decision answered
 * 201 in the store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CreatedApiKey } from '../../src/api-keys/schemas.js';
import { createApiKey } from '../../src/api-keys/service.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { decideUntilRefused, expectUnavailable, storeFaults } from '../helpers/store-faults.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

describe.each(stores)('on $name', (store) => {
  describe.each(storeFaults(store))('when the store $name', (fault) => {
    let t: TestApp;
    let a: SeededTenant;
    let code: string;
    let versionId: string;
    /** A key made before the fault and never used: its check has to read the store. */
    let unusedKey: CreatedApiKey;
    let refused = false;

    beforeEach(async () => {
      t = await startTestApp(store);
      a = await seedTenant(t.db);
      code = await seedTemplate(t.db, a.tenant.id);
      versionId = (await publish(t.db, a.tenant.id, code)).consent_version_id;
      unusedKey = await createApiKey(t.db, a.tenant.id, { name: 'unused until the fault' });
      const api = apiOf(t.app, a.headers);
      // The service has read the version, the key and a customer's state before the fault.
      expect((await api.latest(code)).statusCode).toBe(200);
      expect((await api.decide(unique('before'), versionId, 'given')).statusCode).toBe(201);
    });
    afterEach(async () => {
      if (refused) await fault.restore(t);
      refused = false;
      await t.close();
    });

    const refuse = async () => {
      refused = true;
      await fault.refuse(t);
    };
    const restore = async () => {
      await fault.restore(t);
      refused = false;
    };

    it('decisions answer 503 1009 with Retry-After; reads and the check of an unused key answer as the fault allows', async () => {
      const api = apiOf(t.app, a.headers);
      const customer = unique('reader');
      await refuse();
      await decideUntilRefused(t.app, a.headers, versionId);
      const reads = {
        latest: await api.latest(code),
        pending: await api.pending(customer, code),
        'unused key': await apiOf(t.app, { 'x-system-api-key': unusedKey.key }).latest(code),
      };
      if (fault.writesOnly) {
        // The store still reads: nothing a read does may fail because a write would.
        for (const [what, response] of Object.entries(reads)) {
          expect({ what, status: response.statusCode }).toEqual({ what, status: 200 });
        }
      } else {
        // The catalogue may answer `latest` from memory; the rest must ask the store.
        if (reads.latest.statusCode !== 200) expectUnavailable(reads.latest, 'latest');
        expectUnavailable(reads.pending, 'pending');
        expectUnavailable(reads['unused key'], 'unused key');
      }
    });

    it('once the store is back, the same requests succeed without a restart and every decision answered 201 is stored', async () => {
      const api = apiOf(t.app, a.headers);
      const acknowledged = new Map<string, string>();
      await refuse();
      await decideUntilRefused(t.app, a.headers, versionId, acknowledged);
      await restore();

      // The service notices by itself; until then, every answer is 201 or 503 1009.
      const deadline = Date.now() + budget(10_000);
      let recovered = false;
      while (!recovered && Date.now() < deadline) {
        const customer = unique('after');
        const response = await api.decide(customer, versionId, 'given');
        if (response.statusCode === 201) {
          acknowledged.set(customer, json(response).data.decision_id);
          recovered = true;
        } else {
          expectUnavailable(response, 'decision after the store came back');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      expect(recovered, 'no decision was recorded after the store came back').toBe(true);

      expect((await api.latest(code)).statusCode).toBe(200);
      const [someone] = acknowledged.keys();
      const pending = await api.pending(someone ?? '', code);
      expect(pending.statusCode).toBe(200);
      expect(json(pending).data.accepted).toBe(true);
      const fresh = await apiOf(t.app, { 'x-system-api-key': unusedKey.key }).latest(code);
      expect(fresh.statusCode).toBe(200);

      const stored = await t.db
        .selectFrom('decisions')
        .select('id')
        .where('id', 'in', [...acknowledged.values()])
        .execute();
      expect(stored.map((row) => row.id).sort()).toEqual([...acknowledged.values()].sort());
    });
  });
});
