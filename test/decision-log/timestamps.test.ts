import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { runCli } from '../helpers/process.js';
import { parseScrape } from '../helpers/prometheus.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';
import { makeTestCa, opensslVerifyToken, startTestTsa, type TestTsa } from '../helpers/tsa.js';
import { must } from '../proof/fixtures.js';

const logVerifier = must(parseVerifierKey(testLogKeys.verifierKey));
const metricsToken = 'timestamp-metrics-token-0123456789';

describe.each(stores)('RFC 3161 time-stamps of checkpoints on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let versionId: string;
  let tsa: TestTsa;
  const others: TestTsa[] = [];
  let rootsFile: string;
  let startedAt: number;

  beforeAll(async () => {
    // A real TSA (`openssl ts -reply` over loopback), and three whose tokens are never kept: one
    // answering garbage, one whose chain ends at a root not in LOG_TSA_CA_FILE, one whose
    // certificate expired.
    tsa = await startTestTsa();
    const garbage = await startTestTsa({ mode: 'garbage' });
    const untrusted = await startTestTsa();
    const expired = await startTestTsa({ expired: true });
    others.push(garbage, untrusted, expired);
    const dir = mkdtempSync(join(tmpdir(), 'tsa-roots-'));
    rootsFile = join(dir, 'roots.pem');
    const stranger = await makeTestCa();
    writeFileSync(
      rootsFile,
      `${tsa.rootPem}\n${garbage.rootPem}\n${expired.rootPem}\n${stranger.pem}\n`,
    );
    startedAt = Date.now();
    t = await startTestApp(store, {
      LOG_TSA_URLS: [tsa, garbage, untrusted, expired].map((x) => x.url).join(','),
      LOG_TSA_CA_FILE: rootsFile,
      LOG_TIMESTAMP_INTERVAL_MS: '50',
      METRICS_TOKEN: metricsToken,
    });
    a = await seedTenant(t.db);
    const code = await seedTemplate(t.db, a.tenant.id);
    versionId = (await publish(t.db, a.tenant.id, code, { content_html: '<p>Text</p>' }))
      .consent_version_id;
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([tsa?.close(), ...others.map((x) => x.close())]);
  });

  async function timestampedReceipt(customer: string) {
    const response = await apiOf(t.app, a.headers).decide(customer, versionId, 'given');
    expect(response.statusCode, response.body).toBe(201);
    const id = json(response).data.decision_id;
    const deadline = Date.now() + budget(20_000);
    for (;;) {
      const answer = await t.app.inject({
        method: 'GET',
        url: `/api/v1/decisions/${id}/receipt?wait=true`,
        headers: a.headers,
      });
      const receipt = answer.statusCode === 200 ? json(answer).data : undefined;
      if (receipt?.timestamp !== undefined) return receipt;
      if (Date.now() > deadline) throw new Error(`no time-stamped receipt: ${answer.body}`);
      await setTimeout(50);
    }
  }

  it('a receipt carries a token over a checkpoint that includes it, and verifies with the roots', async () => {
    const receipt = await timestampedReceipt('stamped-customer');
    const roots = [tsa.rootPem];
    const verified = must(
      verifyReceipt(receipt, [logVerifier], t.registry.formats, { tsaRoots: roots }),
    );
    const genTime = verified.timestamp?.genTime.getTime() as number;
    // The TSA's clock is this machine's; its token states whole seconds (and 1.5 s accuracy).
    expect(genTime).toBeGreaterThanOrEqual(startedAt - 2_000);
    expect(genTime).toBeLessThanOrEqual(Date.now() + 2_000);
    expect(verified.timestamp?.size).toBeGreaterThanOrEqual(verified.checkpoint.size);

    // Changed anywhere, it fails: the token, the checkpoint it stamps, the proof to it.
    const token = Buffer.from(receipt.timestamp.token, 'base64');
    for (const at of [40, Math.floor(token.length / 2), token.length - 20]) {
      const flipped = Buffer.from(token);
      flipped[at] = (flipped[at] as number) ^ 0x01;
      const changed = { ...receipt.timestamp, token: flipped.toString('base64') };
      const result = verifyReceipt(
        { ...receipt, timestamp: changed },
        [logVerifier],
        t.registry.formats,
        {
          tsaRoots: roots,
        },
      );
      expect(result.ok, `byte ${at}`).toBe(false);
    }
    const otherNote = receipt.timestamp.checkpoint.replace(
      /\n(\d+)\n/,
      (_: string, n: string) => `\n${Number(n) + 1}\n`,
    );
    expect(
      verifyReceipt(
        { ...receipt, timestamp: { ...receipt.timestamp, checkpoint: otherNote } },
        [logVerifier],
        t.registry.formats,
        { tsaRoots: roots },
      ).ok,
    ).toBe(false);
    // Roots of another authority: the chain is untrusted.
    const stranger = await makeTestCa('Another Root');
    expect(
      verifyReceipt(receipt, [logVerifier], t.registry.formats, { tsaRoots: [stranger.pem] }).ok,
    ).toBe(false);
    // Without a time-stamp, roots given: refused.
    const { timestamp: _, ...bare } = receipt;
    expect(verifyReceipt(bare, [logVerifier], t.registry.formats, { tsaRoots: roots })).toEqual({
      ok: false,
      reason: 'the receipt has no time-stamp; one is required',
    });

    // The command line, offline.
    const dir = mkdtempSync(join(tmpdir(), 'stamped-receipt-'));
    writeFileSync(join(dir, 'receipt.json'), JSON.stringify({ data: receipt }));
    const checked = await runCli(
      [
        'verify-receipt',
        join(dir, 'receipt.json'),
        '--key',
        testLogKeys.verifierKey,
        '--tsa-ca',
        tsa.rootFile,
      ],
      {},
    );
    expect(checked.code, checked.stderr).toBe(0);
    const verdict = JSON.parse(checked.stdout);
    expect(verdict).toMatchObject({
      valid: true,
      timestamped_at: new Date(genTime).toISOString(),
      exists_by: new Date(genTime).toISOString(),
    });
  });

  it('every token kept is accepted by openssl ts -verify; the bad authorities left none', async () => {
    await timestampedReceipt('second-customer');
    const rows = await t.db
      .selectFrom('tlog_timestamps as s')
      .innerJoin('tlog_checkpoints as c', (j) =>
        j.onRef('c.log_id', '=', 's.log_id').onRef('c.size', '=', 's.size'),
      )
      .select(['s.tsa', 's.token', 'c.note', 's.gen_time'])
      .execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r.tsa))).toEqual(new Set([tsa.url]));
    for (const row of rows) {
      const checked = await opensslVerifyToken(
        Buffer.from(row.token, 'base64'),
        Buffer.from(row.note, 'utf8'),
        tsa.rootFile,
      );
      expect(checked.ok, checked.output).toBe(true);
    }

    const scrape = parseScrape(
      (
        await t.app.inject({
          method: 'GET',
          url: '/metrics',
          headers: { authorization: `Bearer ${metricsToken}` },
        })
      ).body,
    );
    const failures = (x: TestTsa) =>
      scrape.value('consent_log_timestamp_failures_total', { tsa: x.url, reason: 'invalid' }) ?? 0;
    for (const bad of others) expect(failures(bad), bad.url).toBeGreaterThan(0);
    expect(failures(tsa)).toBe(0);
  });

  it('an authority that hangs holds no decision', async () => {
    const [garbage] = others;
    if (!garbage) throw new Error('no second authority');
    garbage.mode = 'hang';
    const receipt = await timestampedReceipt('while-one-hangs');
    expect(receipt.timestamp.token.length).toBeGreaterThan(100);
  });
});
