/**
 * Receipts and evidence packs with both outside proofs configured: two real witnesses (quorum 2)
 * and a real RFC 3161 authority (`openssl ts -reply`). A receipt made now verifies offline with
 * both, on the command line; its token is accepted by `openssl ts -verify`; a pack carries the
 * cosigned checkpoint, the token, the stamped checkpoint, the proof to it and the chain, and
 * `verify-receipt --pack` checks them; a changed byte in any of them fails.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CosignerVerifier,
  packNoteText,
  parseCosignerVerifierKey,
  parseSignerKey,
  parseVerifierKey,
  signNote,
  verifyEvidencePack,
} from '../../src/proof/index.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { runCli } from '../helpers/process.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';
import { opensslVerifyToken, startTestTsa, type TestTsa } from '../helpers/tsa.js';
import { startTestWitness, type TestWitness, witnessesFile } from '../helpers/witness.js';
import { must } from '../proof/fixtures.js';

const logVerifier = must(parseVerifierKey(testLogKeys.verifierKey));
const customer = 'outside-proofs-customer@example.test';

describe.each(stores)('receipts and evidence packs with witnesses and a TSA on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let w1: TestWitness;
  let w2: TestWitness;
  let tsa: TestTsa;
  let witnesses: CosignerVerifier[];
  let lastDecision: string;
  const dir = mkdtempSync(join(tmpdir(), 'outside-proofs-'));

  beforeAll(async () => {
    [w1, w2, tsa] = await Promise.all([
      startTestWitness('w1', testLogKeys.verifierKey),
      startTestWitness('w2', testLogKeys.verifierKey),
      startTestTsa(),
    ]);
    witnesses = [w1, w2].map((w) => must(parseCosignerVerifierKey(w.keys.verifierKey)));
    t = await startTestApp(store, {
      LOG_WITNESSES_FILE: witnessesFile([w1.line, w2.line]),
      LOG_WITNESS_QUORUM: '2',
      LOG_WITNESS_INTERVAL_MS: '50',
      LOG_TSA_URLS: tsa.url,
      LOG_TSA_CA_FILE: tsa.rootFile,
      LOG_TIMESTAMP_INTERVAL_MS: '50',
    });
    a = await seedTenant(t.db);
    const code = await seedTemplate(t.db, a.tenant.id);
    const versionId = (await publish(t.db, a.tenant.id, code, { content_html: '<p>Text</p>' }))
      .consent_version_id;
    for (const decision of ['given', 'withdraw', 'given']) {
      const response = await apiOf(t.app, a.headers).decide(customer, versionId, decision);
      expect(response.statusCode, response.body).toBe(201);
      lastDecision = json(response).data.decision_id;
    }
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([w1?.close(), w2?.close(), tsa?.close()]);
  });

  /** Asks again until `ready` holds of the answer (the witnesses and the TSA are a loop away). */
  async function until<T>(read: () => Promise<T>, ready: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + budget(20_000);
    for (;;) {
      const value = await read();
      if (ready(value)) return value;
      if (Date.now() > deadline) throw new Error('not ready in time');
      await setTimeout(50);
    }
  }

  const flags = [
    '--key',
    testLogKeys.verifierKey,
    '--witness',
    w1Key(),
    '--witness',
    w2Key(),
    '--quorum',
    '2',
    '--tsa-ca',
    tsaRoot(),
  ];
  function w1Key() {
    return join(dir, 'w1.key');
  }
  function w2Key() {
    return join(dir, 'w2.key');
  }
  function tsaRoot() {
    return join(dir, 'roots.pem');
  }

  it('a receipt made now verifies offline with two cosignatures and a token openssl accepts', async () => {
    writeFileSync(w1Key(), w1.keys.verifierKey);
    writeFileSync(w2Key(), w2.keys.verifierKey);
    writeFileSync(tsaRoot(), tsa.rootPem);
    const id = lastDecision;
    const receipt = await until(
      async () =>
        json(
          await t.app.inject({
            method: 'GET',
            url: `/api/v1/decisions/${id}/receipt?wait=true`,
            headers: a.headers,
          }),
        ).data,
      (r) => r.cosigned_checkpoint !== undefined && r.timestamp !== undefined,
    );
    writeFileSync(join(dir, 'receipt.json'), JSON.stringify({ data: receipt }));
    const checked = await runCli(['verify-receipt', join(dir, 'receipt.json'), ...flags], {});
    expect(checked.code, checked.stderr).toBe(0);
    const verdict = JSON.parse(checked.stdout);
    expect(verdict.witnesses).toHaveLength(2);
    expect(verdict.exists_by <= verdict.timestamped_at).toBe(true);
    const openssl = await opensslVerifyToken(
      Buffer.from(receipt.timestamp.token, 'base64'),
      Buffer.from(receipt.timestamp.checkpoint, 'utf8'),
      tsa.rootFile,
    );
    expect(openssl.ok, openssl.output).toBe(true);
  });

  it('the evidence pack carries the cosigned checkpoint, the token, its checkpoint, proof and chain', async () => {
    const files = await until(
      async () => {
        const response = await t.app.inject({
          method: 'GET',
          url: `/api/v1/customers/${encodeURIComponent(customer)}/evidence`,
          headers: a.headers,
        });
        expect(response.statusCode, response.body).toBe(200);
        writeFileSync(join(dir, 'pack.zip'), response.rawPayload);
        return unzipSync(response.rawPayload);
      },
      (f) => f['checkpoint-cosigned.txt'] !== undefined && f['timestamp/token.tst'] !== undefined,
    );
    expect(
      Object.keys(files)
        .filter((p) => p.startsWith('timestamp/'))
        .sort(),
    ).toEqual([
      'timestamp/chain.pem',
      'timestamp/checkpoint.txt',
      'timestamp/proof.json',
      'timestamp/token.tst',
    ]);
    // The chain: the TSA's certificate first, the root it builds to last.
    const chain = Buffer.from(files['timestamp/chain.pem'] as Uint8Array).toString('utf8');
    expect(chain.match(/BEGIN CERTIFICATE/g)).toHaveLength(3);
    expect(chain.trim().endsWith(tsa.rootPem.trim())).toBe(true);
    const openssl = await opensslVerifyToken(
      files['timestamp/token.tst'] as Uint8Array,
      files['timestamp/checkpoint.txt'] as Uint8Array,
      tsa.rootFile,
    );
    expect(openssl.ok, openssl.output).toBe(true);

    const checked = await runCli(['verify-receipt', '--pack', join(dir, 'pack.zip'), ...flags], {});
    expect(checked.code, checked.stderr).toBe(0);
    const verdict = JSON.parse(checked.stdout);
    expect(verdict).toMatchObject({ valid: true, failures: [] });
    expect(verdict.witnesses.map((w: { name: string }) => w.name).sort()).toEqual([
      'witness.test/w1',
      'witness.test/w2',
    ]);
    expect(typeof verdict.timestamped_at).toBe('string');

    // Any byte of them changed, with the manifest made again and signed by the log's own key
    // (so that only their own checks stand between the pack and a verdict): refused.
    const policy = { witnesses, quorum: 2, tsaRoots: [tsa.rootPem] };
    const resigned = (changed: Record<string, Uint8Array>) => {
      const all = new Map(Object.entries({ ...files, ...changed }));
      const manifest = JSON.parse(Buffer.from(files['manifest.json'] as Uint8Array).toString());
      manifest.files = manifest.files.map((f: { path: string }) => {
        const bytes = all.get(f.path) as Uint8Array;
        return { ...f, sha256: sha256(bytes), size: bytes.length };
      });
      const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
      all.set('manifest.json', manifestBytes);
      const signer = must(parseSignerKey(testLogKeys.signerKey));
      const origin = manifest.checkpoint.origin;
      all.set(
        'manifest.sig',
        Buffer.from(signNote(packNoteText(origin, sha256(manifestBytes)), [signer])),
      );
      return verifyEvidencePack(all, [logVerifier], t.registry.formats, policy);
    };
    expect(resigned({})).toMatchObject({ valid: true });
    const flip = (path: string, at: (bytes: Uint8Array) => number) => {
      const bytes = Buffer.from(files[path] as Uint8Array);
      const i = at(bytes);
      bytes[i] = (bytes[i] as number) ^ (bytes[i] === 0x41 ? 0x03 : 0x01);
      return { [path]: new Uint8Array(bytes) };
    };
    const cases: [string, Record<string, Uint8Array>][] = [
      ['a cosignature', flip('checkpoint-cosigned.txt', (b) => b.length - 10)],
      [
        'the cosigned root',
        flip('checkpoint-cosigned.txt', (b) => b.indexOf(0x0a, b.indexOf(0x0a) + 1) + 5),
      ],
      ['the token', flip('timestamp/token.tst', (b) => Math.floor(b.length / 2))],
      ['the stamped checkpoint', flip('timestamp/checkpoint.txt', (b) => b.indexOf(0x0a) + 1)],
    ];
    for (const [what, changed] of cases) {
      expect(resigned(changed).valid, what).toBe(false);
    }
    // Without the token at all, the roots given: the pack misses what is asked of it.
    const { 'timestamp/token.tst': _, ...withoutToken } = files;
    const missing = new Map(Object.entries(withoutToken));
    expect(
      verifyEvidencePack(missing, [logVerifier], t.registry.formats, policy).failures,
    ).toContainEqual({
      file: 'timestamp/token.tst',
      reason: 'the receipt has no time-stamp; one is required',
    });
  });
});

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
