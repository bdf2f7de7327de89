import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { generateNoteKeys } from '../../src/proof/index.js';
import {
  callServer,
  runCli,
  showResult,
  useProvisionedServer,
  withStore,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';

describe.concurrent.each(stores)(
  'receipts checked offline with the command line on $name',
  (testStore) => {
    describe.sequential('a decision made over HTTP, its receipt verified by verify-receipt', () => {
      const running = useProvisionedServer(testStore);
      let receiptFile: string;
      let verifierKey: string;
      let receipt: Record<string, unknown> & { tlog_proof: string };

      const api = (path: string, init: RequestInit = {}) =>
        callServer(running.server, { 'x-system-api-key': running.p.apiKey.key }, path, init);
      const verify = (file: string, key = verifierKey) =>
        runCli(['verify-receipt', file, '--key', key], {});

      it('the receipt of a decision is ready within the wait, and verify-receipt accepts it with the published key', async () => {
        const decided = await api('/api/v1/customers/c-42/consents/decisions', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ consent_version_id: running.p.versionId, decision: 'given' }),
        });
        expect(decided.status).toBe(201);
        const decisionId = ((await decided.json()) as { data: { decision_id: string } }).data
          .decision_id;
        const response = await api(`/api/v1/decisions/${decisionId}/receipt?wait=true`);
        expect(response.status).toBe(200);
        const body = (await response.json()) as { data: typeof receipt };
        receipt = body.data;
        receiptFile = join(running.store.dir, 'receipt.json');
        writeFileSync(receiptFile, JSON.stringify(body, null, 2));
        verifierKey = (
          (await (await api('/api/v1/log/key')).json()) as {
            data: { verifier_key: string };
          }
        ).data.verifier_key;

        const result = await verify(receiptFile);
        expect(result.code, showResult(result)).toBe(0);
        const verdict = JSON.parse(result.stdout);
        // The version's publication leaf came first, and the verdict ties the decision to it.
        expect(verdict).toMatchObject({
          valid: true,
          leaf_index: 1,
          tree_size: 2,
          opened: true,
          record: { decision_id: decisionId, decision: 'given', version: 1 },
          published: {
            leaf_index: 0,
            what: 'template',
            version: 1,
            text: { id: running.p.versionId, sha256: verdict.record.content_sha256 },
          },
        });
        expect(verdict.published.of).toBe(verdict.record.template_id);

        // The key from a file, and the receipt as tlog-proof text, work the same.
        const keyFile = join(running.store.dir, 'log.vkey');
        writeFileSync(keyFile, `${verifierKey}\n`);
        const proofFile = join(running.store.dir, 'receipt.tlog-proof');
        writeFileSync(proofFile, receipt.tlog_proof);
        const fromText = await verify(proofFile, keyFile);
        expect(fromText.code, showResult(fromText)).toBe(0);
      });

      it.each([
        [
          'a decision changed in the receipt',
          (r: typeof receipt) => ({
            ...r,
            decision: { ...(r.decision as object), decision: 'reject' },
          }),
        ],
        [
          'another customer id in the opening',
          (r: typeof receipt) => ({
            ...r,
            opening: { ...(r.opening as object), customer_id: 'c-43' },
          }),
        ],
        [
          'a changed proof',
          (r: typeof receipt) => ({
            ...r,
            tlog_proof: r.tlog_proof.replace(/\nindex 1\n/, '\nindex 0\n'),
          }),
        ],
        [
          'a changed checkpoint signature',
          (r: typeof receipt) => ({
            ...r,
            tlog_proof: r.tlog_proof.replace(
              /— (\S+) (.)/,
              (_m, name: string, c: string) => `— ${name} ${c === 'A' ? 'B' : 'A'}`,
            ),
          }),
        ],
      ])('verify-receipt refuses %s (exit 1, with the reason)', async (_what, tamper) => {
        const file = join(
          running.store.dir,
          `tampered-${Math.random().toString(36).slice(2)}.json`,
        );
        writeFileSync(file, JSON.stringify({ data: tamper(receipt) }));
        const result = await verify(file);
        expect(result.code, showResult(result)).toBe(1);
        const verdict = JSON.parse(result.stdout);
        expect(verdict.valid).toBe(false);
        expect(verdict.reason).toEqual(expect.any(String));
        expect(result.stderr).toBe(`The receipt does not verify: ${verdict.reason}\n`);
      });

      it('audit --tenant reports a clean log (exit 0), then names a decision row edited in the store (exit 1)', async () => {
        const clean = await runCli(['audit', '--tenant', running.p.alias], running.server.env);
        expect(clean.code, showResult(clean)).toBe(0);
        expect(clean.stderr).toBe('');
        expect(JSON.parse(clean.stdout)).toMatchObject({ entries: 2, ok: true, findings: [] });
        const id = (receipt.decision as { decision_id: string }).decision_id;
        await withStore(running.store, (db) =>
          db.updateTable('decisions').set({ decision: 'reject' }).where('id', '=', id).execute(),
        );
        const tampered = await runCli(['audit', '--tenant', running.p.alias], running.server.env);
        expect(tampered.code, showResult(tampered)).toBe(1);
        expect(tampered.stderr).toBe(
          'The audit found 1 problem(s) in the log: record-differs-from-leaf.\n',
        );
        expect(JSON.parse(tampered.stdout).findings).toEqual([
          expect.objectContaining({ kind: 'record-differs-from-leaf', index: 1, record_id: id }),
        ]);
        await withStore(running.store, (db) =>
          db.updateTable('decisions').set({ decision: 'given' }).where('id', '=', id).execute(),
        );
      });

      // PostgreSQL alone cancels a statement that runs past DATABASE_STATEMENT_TIMEOUT_MS.
      if (testStore.name === 'postgres') {
        // The test's own `expect`: the stores' blocks run side by side, and `expect.poll` from
        // the module may find the other block's test, or none, as the current one.
        it('audit --tenant is not bound by the statement timeout that bounds requests: it waits for the table another session holds', async ({
          expect,
        }) => {
          const env = { ...running.server.env, DATABASE_STATEMENT_TIMEOUT_MS: '50' };
          const holder = new pg.Client({ connectionString: running.store.databaseUrl });
          // Another session looks: the holder's transaction would see one snapshot of the
          // activity for as long as it lasts.
          const watcher = new pg.Client({ connectionString: running.store.databaseUrl });
          await holder.connect();
          await watcher.connect();
          try {
            await holder.query('begin');
            await holder.query('lock table decisions in access exclusive mode');
            const audit = runCli(['audit', '--tenant', running.p.alias], env);
            // Released only once the audit's statement has waited for it 4 times its timeout (as
            // the server counts): under the timeout it would have been cancelled at 50 ms.
            await expect
              .poll(async () => {
                const waiting = await watcher.query(
                  `select count(*)::int as n from pg_stat_activity
                   where wait_event_type = 'Lock' and query ilike '%decisions%'
                     and now() - query_start > interval '200 milliseconds'`,
                );
                return waiting.rows[0]?.n;
              })
              .toBe(1);
            await holder.query('commit');
            const result = await audit;
            expect(result.code, showResult(result)).toBe(0);
            expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, findings: [] });
          } finally {
            await holder.end();
            await watcher.end();
          }
        });
      }

      it("verify-receipt refuses the receipt under another log's key", async () => {
        const other = generateNoteKeys(verifierKey.split('+')[0] as string).verifierKey;
        const result = await verify(receiptFile, other);
        expect(result.code, showResult(result)).toBe(1);
        expect(JSON.parse(result.stdout).reason).toContain('checkpoint rejected');
      });
    });
  },
);
