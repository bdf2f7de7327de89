/**
 * A restore that goes back over checkpoints already signed cannot fork the log (docs/proof.md,
 * "Restores and log epochs"): the service remembers, outside the store, the largest checkpoint
 * it signed for each log; a start on a store behind it is refused until the operator starts a
 * new epoch, whose signed statement links the checkpoint signed before to the restored one.
 * Receipts given out before keep verifying; the log goes on under the new origin and audits
 * clean.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callServer,
  freePort,
  makeTempStore,
  type Provisioned,
  provision,
  runCli,
  type ServerProcess,
  serverEnv,
  showResult,
  startServer,
  type TempStore,
} from '../helpers/process.js';
import { budget } from '../helpers/time.js';

interface Receipt {
  data: { tree_size: number; checkpoint: string };
}

describe('a restore behind signed checkpoints, on SQLite', () => {
  let store: TempStore;
  let env: Record<string, string>;
  let port: number;
  let server: ServerProcess | undefined;
  let p: Provisioned;

  beforeAll(async () => {
    store = makeTempStore();
    port = await freePort();
    env = serverEnv(store, port);
    p = await provision(env);
    server = await startServer({ store, port, env });
  });
  afterAll(async () => {
    await server?.stop(budget(10_000));
    await store?.remove();
  });

  const api = (path: string, init: RequestInit = {}) =>
    callServer(server as ServerProcess, { 'x-system-api-key': p.apiKey.key }, path, init);
  /** Records decisions; answers the receipt of the last, once its leaf is in the log. */
  const decide = async (customers: string[]): Promise<Receipt> => {
    let id = '';
    for (const customer of customers) {
      const response = await api(`/api/v1/customers/${customer}/consents/decisions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ consent_version_id: p.versionId, decision: 'given' }),
      });
      expect(response.status).toBe(201);
      id = ((await response.json()) as { data: { decision_id: string } }).data.decision_id;
    }
    const receipt = await api(`/api/v1/decisions/${id}/receipt?wait=true`);
    expect(receipt.status).toBe(200);
    return (await receipt.json()) as Receipt;
  };

  it('is refused until a new epoch is started, whose statement verifies; the log goes on under the new origin', async () => {
    const key = (
      (await (await api('/api/v1/log/key')).json()) as { data: { verifier_key: string } }
    ).data.verifier_key;
    // The version provisioned left its publication leaf first: 1 + 3 decisions.
    expect((await decide(['a', 'b', 'c'])).data.tree_size).toBe(4);
    const backupFile = join(store.dir, 'backup.db');
    const backup = await runCli(['backup', '--to', backupFile], env, { cwd: store.dir });
    expect(backup.code, showResult(backup)).toBe(0);
    // Given out after the backup: a receipt under a checkpoint of size 7.
    const later = await decide(['d', 'e', 'f']);
    expect(later.data.tree_size).toBe(7);
    const origin = later.data.checkpoint.split('\n')[0] as string;
    // Remembered beside the signing key, outside the store.
    const signed = JSON.parse(readFileSync(join(store.dir, 'log-checkpoints.json'), 'utf8'));
    expect(signed[origin]).toMatchObject({ size: 7 });

    await (server as ServerProcess).stop(budget(10_000));
    server = undefined;
    const restore = await runCli(['restore', '--from', backupFile], env, { cwd: store.dir });
    expect(restore.code, showResult(restore)).toBe(0);

    const refused = await runCli(['serve'], env, { cwd: store.dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `The store is behind checkpoints this service already signed (log ${origin.split('/').at(-1)} holds 4 entries, but a checkpoint of size 7 was signed under ${origin})`,
    );
    expect(refused.stderr).toContain('consent-service log new-epoch --tenant ALIAS');

    const started = await runCli(['log', 'new-epoch', '--tenant', p.alias], env, {
      cwd: store.dir,
    });
    expect(started.code, showResult(started)).toBe(0);
    const epoch = JSON.parse(started.stdout) as {
      origin: string;
      previous_origin: string;
      previous_signed: { size: number };
      restored: { size: number };
      statement: string;
    };
    expect(epoch).toMatchObject({
      previous_origin: origin,
      origin: `${origin}/epoch/2`,
      previous_signed: { size: 7 },
      restored: { size: 4 },
    });

    // The statement verifies with the log's key alone, and not once changed.
    const statementFile = join(store.dir, 'epoch.txt');
    writeFileSync(statementFile, epoch.statement);
    const verified = await runCli(['verify-epoch', statementFile, '--key', key], {});
    expect(verified.code, showResult(verified)).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({
      valid: true,
      previous_origin: origin,
      origin: `${origin}/epoch/2`,
      previous_signed: { size: 7 },
      restored: { size: 4 },
    });
    writeFileSync(statementFile, epoch.statement.replace('restored 4 ', 'restored 3 '));
    const tampered = await runCli(['verify-epoch', statementFile, '--key', key], {});
    expect(tampered.code).toBe(1);

    // The receipt given out before the restore still verifies, in its epoch.
    const receiptFile = join(store.dir, 'receipt.json');
    writeFileSync(receiptFile, JSON.stringify(later));
    const old = await runCli(['verify-receipt', receiptFile, '--key', key], {});
    expect(old.code, showResult(old)).toBe(0);

    server = await startServer({ store, port, env });
    const next = await decide(['g']);
    expect(next.data.tree_size).toBe(5);
    expect(next.data.checkpoint.split('\n')[0]).toBe(`${origin}/epoch/2`);
    const audit = await runCli(['audit', '--tenant', p.alias], env, { cwd: store.dir });
    expect(audit.code, showResult(audit)).toBe(0);
  });
});
