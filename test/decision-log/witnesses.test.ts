import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CosignerVerifier,
  consistencyProof,
  formatAddCheckpoint,
  leafHash,
  openWitnessedCheckpoint,
  parseCosignerVerifierKey,
  parseSignerKey,
  parseVerifierKey,
  rootOf,
  signCheckpoint,
  verifyReceipt,
} from '../../src/proof/index.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { entriesOfLog, leafHex } from '../helpers/log-entries.js';
import { runCli } from '../helpers/process.js';
import { parseScrape } from '../helpers/prometheus.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';
import {
  startBadWitness,
  startTestWitness,
  type TestWitness,
  witnessesFile,
} from '../helpers/witness.js';
import { must } from '../proof/fixtures.js';

const logVerifier = must(parseVerifierKey(testLogKeys.verifierKey));
const metricsToken = 'witness-metrics-token-0123456789';

describe.each(stores)('witness cosignatures on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let versionId: string;
  let w1: TestWitness;
  let w2: TestWitness;
  let verifiers: CosignerVerifier[];
  const bad: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    w1 = await startTestWitness('w1', testLogKeys.verifierKey);
    w2 = await startTestWitness('w2', testLogKeys.verifierKey);
    verifiers = [w1, w2].map((w) => must(parseCosignerVerifierKey(w.keys.verifierKey)));
    // Beside the two real witnesses, three that never cosign: one answering garbage, one that
    // never answers, one whose port is closed. The quorum is the two real ones.
    const garbage = await startBadWitness('garbage', 'garbage');
    const hang = await startBadWitness('hang', 'hang');
    const down = await startBadWitness('down', 'down');
    bad.push(garbage, hang, down);
    t = await startTestApp(store, {
      LOG_WITNESSES_FILE: witnessesFile([w1.line, w2.line, garbage.line, hang.line, down.line]),
      LOG_WITNESS_QUORUM: '2',
      LOG_WITNESS_INTERVAL_MS: '50',
      // A witness that hangs holds the loop this long: longer than the whole test file.
      LOG_WITNESS_TIMEOUT_MS: '120000',
      METRICS_TOKEN: metricsToken,
    });
    a = await seedTenant(t.db);
    const code = await seedTemplate(t.db, a.tenant.id);
    versionId = (await publish(t.db, a.tenant.id, code, { content_html: '<p>Text</p>' }))
      .consent_version_id;
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([w1?.close(), w2?.close(), ...bad.map((b) => b.close())]);
  });

  async function decide(tenant: SeededTenant, customer: string): Promise<string> {
    const response = await apiOf(t.app, tenant.headers).decide(customer, versionId, 'given');
    expect(response.statusCode, response.body).toBe(201);
    return json(response).data.decision_id;
  }

  /** The receipt once it carries the witnesses' cosignatures (`?wait=true`, asked again). */
  async function cosignedReceipt(tenant: SeededTenant, id: string) {
    const deadline = Date.now() + budget(20_000);
    for (;;) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/v1/decisions/${id}/receipt?wait=true`,
        headers: tenant.headers,
      });
      const receipt = response.statusCode === 200 ? json(response).data : undefined;
      if (receipt?.cosigned_checkpoint !== undefined) return receipt;
      if (Date.now() > deadline) throw new Error(`no cosigned receipt: ${response.body}`);
    }
  }

  it('a receipt carries a checkpoint both witnesses cosigned, and verifies with quorum 2', async () => {
    const id = await decide(a, 'cosigned-customer');
    const receipt = await cosignedReceipt(a, id);
    const policy = { witnesses: verifiers, quorum: 2 };
    const verified = must(verifyReceipt(receipt, [logVerifier], t.registry.formats, policy));
    expect(verified.witnesses.map((w) => w.name).sort()).toEqual([
      'witness.test/w1',
      'witness.test/w2',
    ]);
    // The cosigned checkpoint is the receipt's checkpoint with the two lines appended.
    const lines = receipt.cosigned_checkpoint.slice(receipt.checkpoint.length).split('\n');
    expect(receipt.cosigned_checkpoint.startsWith(receipt.checkpoint)).toBe(true);
    expect(lines.filter((l: string) => l !== '').map((l: string) => l.split(' ')[1])).toEqual([
      'witness.test/w1',
      'witness.test/w2',
    ]);

    // Any byte of a cosignature, or of the checkpoint it signs, changed: refused.
    const cosigned: string = receipt.cosigned_checkpoint;
    const signatureAt = cosigned.lastIndexOf(' ') + 10;
    for (const at of [signatureAt, cosigned.indexOf('witness.test/w1') + 40]) {
      const flipped = `${cosigned.slice(0, at)}${cosigned[at] === 'A' ? 'B' : 'A'}${cosigned.slice(at + 1)}`;
      const result = verifyReceipt(
        { ...receipt, cosigned_checkpoint: flipped },
        [logVerifier],
        t.registry.formats,
        policy,
      );
      expect(result.ok, `byte ${at}`).toBe(false);
    }
    const withoutOne = cosigned.slice(0, cosigned.lastIndexOf('\u2014'));
    expect(
      verifyReceipt(
        { ...receipt, cosigned_checkpoint: withoutOne },
        [logVerifier],
        t.registry.formats,
        policy,
      ),
    ).toMatchObject({ ok: false });
    const otherSize = cosigned.replace(/\n(\d+)\n/, (_, n) => `\n${Number(n) + 1}\n`);
    expect(
      verifyReceipt(
        { ...receipt, cosigned_checkpoint: otherSize },
        [logVerifier],
        t.registry.formats,
        policy,
      ).ok,
    ).toBe(false);
    // The log's checkpoint answer names the newest checkpoint both witnesses cosigned.
    const served = json(
      await t.app.inject({ method: 'GET', url: '/api/v1/log/checkpoint', headers: a.headers }),
    ).data;
    const newest = must(
      openWitnessedCheckpoint(served.cosigned_checkpoint, [logVerifier], verifiers, 2),
    );
    expect(newest.checkpoint.size).toBeGreaterThanOrEqual(verified.checkpoint.size);
    expect(newest.checkpoint.size).toBeLessThanOrEqual(served.size);

    // The command line, offline: valid with both witnesses, the time the quorum had cosigned.
    const dir = mkdtempSync(join(tmpdir(), 'cosigned-receipt-'));
    writeFileSync(join(dir, 'receipt.json'), JSON.stringify({ data: receipt }));
    const cli = (file: string, more: string[]) =>
      runCli(
        [
          'verify-receipt',
          join(dir, file),
          '--key',
          testLogKeys.verifierKey,
          '--witness',
          w1.keys.verifierKey,
          '--witness',
          w2.keys.verifierKey,
          ...more,
        ],
        {},
      );
    const checked = await cli('receipt.json', ['--quorum', '2']);
    expect(checked.code, checked.stderr).toBe(0);
    const verdict = JSON.parse(checked.stdout);
    const latest = Math.max(...verified.witnesses.map((w) => w.time));
    expect(verdict).toMatchObject({
      valid: true,
      exists_by: new Date(latest * 1000).toISOString(),
    });
    expect(verdict.witnesses.map((w: { name: string }) => w.name).sort()).toEqual([
      'witness.test/w1',
      'witness.test/w2',
    ]);
    writeFileSync(
      join(dir, 'one.json'),
      JSON.stringify({ data: { ...receipt, cosigned_checkpoint: withoutOne } }),
    );
    const short = await cli('one.json', []);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain(
      '1 of the given witnesses cosigned the checkpoint; the quorum is 2',
    );
    expect((await cli('one.json', ['--quorum', '1'])).code).toBe(0);

    // Without a cosigned checkpoint, the same policy refuses the receipt.
    const { cosigned_checkpoint: _, ...bare } = receipt;
    expect(verifyReceipt(bare, [logVerifier], t.registry.formats, policy)).toMatchObject({
      ok: false,
      reason: "the receipt has no cosigned checkpoint; 2 witnesses' cosignatures are required",
    });
  });

  it('witnesses that fail never hold a decision, are counted, and store nothing', async () => {
    // The hanging witness holds one request open for the whole file; decisions go on.
    for (const customer of ['steady-1', 'steady-2', 'steady-3']) {
      await cosignedReceipt(a, await decide(a, customer));
    }
    const stored = await t.db
      .selectFrom('tlog_cosignatures')
      .select('witness')
      .distinct()
      .execute();
    expect(stored.map((r) => r.witness).sort()).toEqual(['w1', 'w2']);

    const scrapeMetrics = async () => {
      const metrics = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${metricsToken}` },
      });
      return parseScrape(metrics.body);
    };
    const failuresIn = (scraped: ReturnType<typeof parseScrape>, witness: string, reason: string) =>
      scraped.value('consent_log_witness_failures_total', { witness, reason }) ?? 0;
    // The receipts wait for the quorum only: each failing witness is asked beside it, and its
    // failure is counted once its answer (or refusal) comes, which may be after the receipts.
    await expect
      .poll(async () => {
        const scraped = await scrapeMetrics();
        return [
          failuresIn(scraped, 'garbage', 'invalid'),
          failuresIn(scraped, 'down', 'unreachable'),
        ];
      })
      .toSatisfy((counts: number[]) => counts.every((count) => count > 0));
    const scrape = await scrapeMetrics();
    const failures = (witness: string, reason: string) => failuresIn(scrape, witness, reason);
    expect(failures('garbage', 'invalid')).toBeGreaterThan(0);
    expect(failures('down', 'unreachable')).toBeGreaterThan(0);
    expect(failures('w1', 'invalid') + failures('w1', 'unreachable')).toBe(0);
    expect(scrape.value('consent_log_witness_lag_leaves', { witness: 'garbage' })).toBeGreaterThan(
      0,
    );

    const health = json(await t.app.inject({ method: 'GET', url: '/api/health' }));
    expect(health.status).toBe('ok');
    const byName = Object.fromEntries(health.witnesses.map((w: { name: string }) => [w.name, w]));
    expect(byName.garbage).toMatchObject({ failing: true });
    expect(byName.down).toMatchObject({ failing: true });
    expect(byName.w1.failing).toBe(false);
  });

  it('after a 409 naming the size a witness knows, submits again from it', async () => {
    // The service forgets what the witnesses cosigned: its next request says old 0.
    await t.db.deleteFrom('tlog_witness_state').execute();
    const id = await decide(a, 'after-forgetting');
    const receipt = await cosignedReceipt(a, id);
    const size = Number(receipt.checkpoint.split('\n')[1]);
    const states = await t.db
      .selectFrom('tlog_witness_state')
      .select(['witness', 'size'])
      .where('log_id', '=', a.tenant.id)
      .where('witness', 'in', ['w1', 'w2'])
      .execute();
    expect(states.map((s) => Number(s.size))).toEqual([size, size]);
  });

  it('a log behind what a witness cosigned gets no cosignature from it', async () => {
    const b = await seedTenant(t.db);
    const code = await seedTemplate(t.db, b.tenant.id);
    versionId = (await publish(t.db, b.tenant.id, code, { content_html: '<p>B</p>' }))
      .consent_version_id;
    const first = await cosignedReceipt(b, await decide(b, 'before-the-fork'));
    const size = Number(first.checkpoint.split('\n')[1]);
    // w1 is shown, under the log's own key, a larger tree that extends the log: as if the log
    // had grown further before a restore took it back.
    const entries = await entriesOfLog(t.db, b.tenant.id)
      .select(leafHex(t.db))
      .orderBy('e.idx')
      .execute();
    // The log keeps each leaf's hash, as hex.
    const leaves = entries.map((e) => new Uint8Array(Buffer.from(e.leaf, 'hex')));
    const grown = [...leaves, ...[1, 2, 3, 4, 5].map((i) => leafHash(Buffer.from(`lost ${i}`)))];
    const origin = first.checkpoint.split('\n')[0];
    const checkpoint = signCheckpoint(
      { origin, size: grown.length, rootHash: rootOf(grown), extensions: [] },
      [must(parseSignerKey(testLogKeys.signerKey))],
    );
    const ahead = await fetch(`${w1.url}/add-checkpoint`, {
      method: 'POST',
      body: formatAddCheckpoint({
        oldSize: size,
        proof: consistencyProof(grown, size),
        checkpoint,
      }),
    });
    expect(ahead.status).toBe(200);

    // The log goes on from its own size: w2 cosigns it, w1 cannot, so no quorum of two.
    const id = await decide(b, 'after-the-fork');
    const deadline = Date.now() + budget(20_000);
    let cosignedByW2 = false;
    while (!cosignedByW2 && Date.now() < deadline) {
      const rows = await t.db
        .selectFrom('tlog_cosignatures')
        .select('witness')
        .where('log_id', '=', b.tenant.id)
        .where('size', '>', size)
        .execute();
      cosignedByW2 = rows.some((r) => r.witness === 'w2');
      expect(rows.some((r) => r.witness === 'w1')).toBe(false);
      // Lets the loop's timers and sockets run (an SQLite read never leaves the event loop).
      await setTimeout(50);
    }
    expect(cosignedByW2).toBe(true);
    const metrics = parseScrape(
      (
        await t.app.inject({
          method: 'GET',
          url: '/metrics',
          headers: { authorization: `Bearer ${metricsToken}` },
        })
      ).body,
    );
    expect(
      metrics.value('consent_log_witness_failures_total', { witness: 'w1', reason: 'log-behind' }),
    ).toBeGreaterThan(0);
    const receipt = json(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/decisions/${id}/receipt`,
        headers: b.headers,
      }),
    ).data;
    expect(receipt.cosigned_checkpoint).toBeUndefined();
  });
});
