import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listConflicts, openWitnessStore } from '../../src/witness/index.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { entriesOfLog, inLog, leafHex } from '../helpers/log-entries.js';
import { runCli } from '../helpers/process.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';
import { startTestWitness, type TestWitness, witnessesFile } from '../helpers/witness.js';

describe.each(stores)('monitor: following a log from outside on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let versionId: string;
  let witness: TestWitness;
  let url: string;
  const dir = mkdtempSync(join(tmpdir(), 'monitor-'));
  const state = join(dir, 'state.json');

  beforeAll(async () => {
    witness = await startTestWitness('auditor', testLogKeys.verifierKey);
    t = await startTestApp(store, {
      LOG_WITNESSES_FILE: witnessesFile([witness.line]),
      LOG_WITNESS_INTERVAL_MS: '50',
    });
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    a = await seedTenant(t.db);
    const code = await seedTemplate(t.db, a.tenant.id);
    versionId = (await publish(t.db, a.tenant.id, code, { content_html: '<p>Text</p>' }))
      .consent_version_id;
  });
  afterAll(async () => {
    await t?.close();
    await witness?.close();
  });

  const monitor = (stateFile: string, more: string[] = []) =>
    runCli(
      [
        'monitor',
        '--url',
        url,
        '--api-key',
        a.headers['x-system-api-key'] as string,
        '--state',
        stateFile,
        '--witness-url',
        witness.url,
        ...more,
      ],
      {},
    );

  // The log's leaves so far: the version's publication.
  let made = 1;
  /** Records decisions; waits until every one is in the log and the witness cosigned it. */
  async function decideAndWitness(customers: string[]): Promise<number> {
    for (const customer of customers) {
      const response = await apiOf(t.app, a.headers).decide(customer, versionId, 'given');
      expect(response.statusCode, response.body).toBe(201);
      made += 1;
    }
    const deadline = Date.now() + budget(20_000);
    for (;;) {
      const answer = json(
        await t.app.inject({ method: 'GET', url: '/api/v1/log/checkpoint', headers: a.headers }),
      ).data;
      const cosigned = await t.db
        .selectFrom('tlog_witness_state')
        .select('size')
        .where('log_id', '=', a.tenant.id)
        .executeTakeFirst();
      if (answer.size === made && Number(cosigned?.size) === made) return made;
      if (Date.now() > deadline) throw new Error('the witness did not cosign');
      await setTimeout(50);
    }
  }

  it('checks each new checkpoint against the last one seen and what the witness cosigned', async () => {
    const first = await decideAndWitness(['m-1', 'm-2', 'm-3']);
    const seen = await monitor(state);
    expect(seen.code, seen.stderr).toBe(0);
    expect(JSON.parse(seen.stdout)).toMatchObject({
      ok: true,
      size: first,
      witnesses: [{ url: witness.url, size: first, consistent: true }],
      problems: [],
    });
    const second = await decideAndWitness(['m-4', 'm-5']);
    const again = await monitor(state);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      ok: true,
      size: second,
      previous_size: first,
    });
    expect(JSON.parse(readFileSync(state, 'utf8')).size).toBe(second);
  });

  it('a log rebuilt behind the witness: it refuses the next checkpoint and keeps it, the monitor exits 3', async () => {
    const before = JSON.parse(readFileSync(state, 'utf8'));
    // The operator rebuilds the log from the same records in another order, under the same key:
    // another tree of the same size. The record of signed sizes goes with it.
    const entries = await entriesOfLog(t.db, a.tenant.id)
      .select(['e.record_id', leafHex(t.db)])
      .orderBy('e.idx')
      .execute();
    const id = a.tenant.id;
    await t.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('tlog_entries').where(inLog(id)).execute();
      for (const table of ['tlog_nodes', 'tlog_checkpoints', 'tlog_state'] as const) {
        await trx.deleteFrom(table).where('log_id', '=', id).execute();
      }
      const swapped = [entries[1], entries[0], ...entries.slice(2)];
      for (const [at, entry] of swapped.entries()) {
        await trx
          .insertInto('tlog_pending')
          .values({
            log_id: id,
            record_id: entry?.record_id as string,
            leaf: entry?.leaf as string,
            queued_at: new Date(Date.UTC(2020, 0, 1, 0, 0, at)).toISOString(),
          })
          .execute();
      }
    });
    rmSync(t.config.logCheckpointsFile, { force: true });
    // The rebuilt log grows by one record: its new checkpoint goes to the witness, with a proof
    // from the size the witness cosigned, in the rebuilt tree.
    const response = await apiOf(t.app, a.headers).decide('after-rebuild', versionId, 'given');
    expect(response.statusCode, response.body).toBe(201);

    // The witness cannot follow it from the tree it cosigned: refused, kept as evidence.
    const deadline = Date.now() + budget(20_000);
    let conflicts: Awaited<ReturnType<typeof listConflicts>> = [];
    while (conflicts.length === 0 && Date.now() < deadline) {
      await setTimeout(100);
      const db = await openWitnessStore(witness.storePath, 1000);
      conflicts = await listConflicts(db);
      await db.destroy();
    }
    expect(conflicts[0]).toMatchObject({
      known_size: before.size,
      reason: 'the consistency proof does not verify',
    });
    expect(conflicts[0]?.request).toContain(`\n${before.size + 1}\n`);

    // The monitor that saw the first tree: split view, state left alone, evidence kept.
    const split = await monitor(state);
    expect(split.code).toBe(3);
    const report = JSON.parse(split.stdout);
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      `split view: the checkpoint of size ${before.size + 1} is not consistent with the one of size ${before.size} seen before`,
      `witness ${witness.url}: split view: the log's checkpoint is not consistent with the one it cosigned at size ${before.size}`,
    ]);
    expect(existsSync(report.evidence)).toBe(true);
    expect(JSON.parse(readFileSync(state, 'utf8')).root).toBe(before.root);

    // A monitor that saw nothing before still catches it, through the witness alone.
    const fresh = await monitor(join(dir, 'fresh.json'));
    expect(fresh.code).toBe(3);
    expect(JSON.parse(fresh.stdout).problems).toEqual([
      `witness ${witness.url}: split view: the log's checkpoint is not consistent with the one it cosigned at size ${before.size}`,
    ]);
  });

  it('a checkpoint smaller than one seen before: the log went back, exit 3', async () => {
    const seen = JSON.parse(readFileSync(state, 'utf8'));
    const ahead = join(dir, 'ahead.json');
    writeFileSync(ahead, JSON.stringify({ ...seen, size: seen.size + 10 }));
    const result = await monitor(ahead, ['--key', testLogKeys.verifierKey]);
    expect(result.code).toBe(3);
    // It serves every record made, and the one after the rebuild.
    expect(JSON.parse(result.stdout).problems[0]).toBe(
      `the log went back: ${made + 1} leaves, after ${seen.size + 10} were seen`,
    );
  });

  it('a log that cannot be reached is not concluded on: exit 1', async () => {
    const result = await runCli(
      ['monitor', '--url', 'http://127.0.0.1:9', '--api-key', 'x', '--state', join(dir, 'x.json')],
      {},
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('The log could not be checked');
  });
});
