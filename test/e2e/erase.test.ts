import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  callServer,
  pollUntil,
  runCli,
  showResult,
  useProvisionedServer,
  withStore,
} from '../helpers/process.js';
import { storeBytes } from '../helpers/store-scan.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

// Strings that occur nowhere else, so that finding one in the store can only mean a leak.
const customer = 'cli-erase.4d1f@example.test';
const userAgent = 'EraseE2E/1.0 (marker-9c02e7)';

describe.concurrent.each(stores)(
  'erasing a customer with the command line on $name',
  (testStore) => {
    describe.sequential('customer erase against a running server', () => {
      const running = useProvisionedServer(testStore);

      const api = (path: string, init: RequestInit = {}) =>
        callServer(
          running.server,
          { 'x-system-api-key': running.p.apiKey.key, 'user-agent': userAgent },
          path,
          init,
        );
      const decide = async (decision: string) => {
        const response = await api(
          `/api/v1/customers/${encodeURIComponent(customer)}/consents/decisions`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ consent_version_id: running.p.versionId, decision }),
          },
        );
        expect(response.status).toBe(201);
        return ((await response.json()) as { data: { decision_id: string } }).data.decision_id;
      };
      const logSize = async () =>
        ((await (await api('/api/v1/log/checkpoint')).json()) as { data: { size: number } }).data
          .size;

      it('erases for good while the server runs: pending starts afresh, the old receipt verifies, the audit is clean', async () => {
        const given = await decide('given');
        await decide('withdraw');
        const receipt = await api(`/api/v1/decisions/${given}/receipt?wait=true`);
        expect(receipt.status).toBe(200);
        const receiptFile = join(running.store.dir, 'receipt.json');
        writeFileSync(receiptFile, await receipt.text());
        const key = (
          (await (await api('/api/v1/log/key')).json()) as {
            data: { verifier_key: string };
          }
        ).data.verifier_key;
        // The version's publication and the two decisions.
        expect(
          await pollUntil(async () => ((await logSize()) === 3 ? true : undefined), {
            timeoutMs: budget(10_000),
          }),
        ).toBe(true);

        const erased = await runCli(
          ['customer', 'erase', '--tenant', running.p.alias, '--customer', customer],
          running.server.env,
        );
        expect(erased.code, showResult(erased)).toBe(0);
        expect(JSON.parse(erased.stdout)).toMatchObject({
          erased: true,
          decisions: 2,
          tombstones: 1,
        });

        const pending = await api(
          `/api/v1/customers/${encodeURIComponent(customer)}/consents/templates/${running.p.templateCode}/pending`,
        );
        expect(((await pending.json()) as { data: { accepted: boolean } }).data.accepted).toBe(
          false,
        );
        // The tombstone joins the log within the integrator's interval.
        expect(
          await pollUntil(async () => ((await logSize()) === 4 ? true : undefined), {
            timeoutMs: budget(10_000),
          }),
        ).toBe(true);

        const verified = await runCli(['verify-receipt', receiptFile, '--key', key], {});
        expect(verified.code, showResult(verified)).toBe(0);
        const audit = await runCli(['audit', '--tenant', running.p.alias], running.server.env);
        expect(audit.code, showResult(audit)).toBe(0);
        expect(JSON.parse(audit.stdout)).toMatchObject({
          entries: 4,
          erased_records: 2,
          ok: true,
          findings: [],
        });

        const contents = await withStore(running.store, (db) =>
          storeBytes(db, running.store.databaseUrl),
        );
        expect(contents.includes(customer)).toBe(false);
        expect(contents.includes(userAgent)).toBe(false);

        const again = await runCli(
          ['customer', 'erase', '--tenant', running.p.alias, '--customer', customer],
          running.server.env,
        );
        expect(again.code, showResult(again)).toBe(0);
        expect(JSON.parse(again.stdout)).toMatchObject({ erased: false, decisions: 0 });
      });
    });
  },
);
