/**
 * `GET /api/v1/customers/{customer_id}/evidence` on both stores: a customer's decisions on two
 * templates and channel changes in one ZIP, every file listed in the signed manifest with its
 * SHA-256, every receipt proven under the pack's one checkpoint, every text shown hashing to
 * what the decision committed to; another tenant's key, an unknown customer and an erased one
 * answered 404 1004; `verify-receipt --pack` accepting the pack and refusing a tampered one.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import { createPartner, setReleasePartners } from '../../src/partners/index.js';
import { createProduct } from '../../src/products/index.js';
import {
  openNote,
  packNoteText,
  parseSignerKey,
  parseVerifierKey,
  signNote,
  verifyEvidencePack,
  verifyReceipt,
} from '../../src/proof/index.js';
import { apiOf } from '../helpers/api.js';
import { expectErrorShape, json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { runCli } from '../helpers/process.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { zipOf } from '../helpers/zip.js';
import { must } from '../proof/fixtures.js';

const logVerifier = must(parseVerifierKey(testLogKeys.verifierKey));

const actor = { actorKind: 'operator', actor: 'test', ip: 'local', userAgent: null } as const;
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
const text = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString('utf8');

// The texts the customer is shown, and their SHA-256 computed here, not by the service.
const savingsText = '<p>We keep your savings details for <b>statements</b>.</p>';
const loansText = '<p>Loan offers by mail — <i>opt in</i>.</p>';
const loansPdf = Buffer.from('%PDF-1.4\n% loan offers\n%%EOF\n', 'latin1');

describe.each(stores)("a customer's evidence pack on $name", (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let savings: { code: string; versionId: string };
  let loans: { code: string; versionId: string };
  const customer = 'hanna.evidence-71c2@example.test';
  const decisionIds: string[] = [];
  const changeIds: string[] = [];
  const blockIds: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'evidence-pack-'));

  beforeAll(async () => {
    // A long interval: the pack itself runs the pass that appends the customer's leaves.
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    await t.db.transaction().execute(async (trx) => {
      const tenantActor = { ...actor, tenantId: a.tenant.id };
      await createProduct(trx, tenantActor, a.tenant.id, { code: 'savings', name: 'Savings' });
      await createPartner(trx, tenantActor, a.tenant.id, { code: 'mailhouse', name: 'Mailhouse' });
      await createPartner(trx, tenantActor, a.tenant.id, { code: 'scoring', name: 'Scoring Ltd' });
    });
    for (const [content, set] of [
      [savingsText, (v: typeof savings) => (savings = v)],
      [loansText, (v: typeof loans) => (loans = v)],
    ] as const) {
      const code = await seedTemplate(t.db, a.tenant.id);
      const { consent_version_id } = await publish(t.db, a.tenant.id, code, {
        content_html: content,
      });
      set({ code, versionId: consent_version_id });
    }
    await t.db
      .transaction()
      .execute((trx) =>
        setReleasePartners(trx, a.tenant.id, loans.versionId, ['scoring', 'mailhouse']),
      );
    // The loans text was also uploaded as a PDF (written as the upload keeps it).
    await t.db
      .insertInto('content_files')
      .values({
        tenant_id: a.tenant.id,
        version_id: loans.versionId,
        media_type: 'application/pdf',
        file_name: 'loan-offers.pdf',
        size: loansPdf.length,
        sha256: sha256(loansPdf),
        content_base64: loansPdf.toString('base64'),
        created_at: new Date().toISOString(),
      })
      .execute();
    await t.db
      .updateTable('template_versions')
      .set({ content_file: 'application/pdf' })
      .where('id', '=', loans.versionId)
      .execute();
    const api = apiOf(t.app, a.headers);
    for (const [versionId, decision] of [
      [savings.versionId, 'given'],
      [loans.versionId, 'given'],
      [savings.versionId, 'withdraw'],
    ] as const) {
      const response = await api.decide(customer, versionId, decision);
      expect(response.statusCode, response.body).toBe(201);
      decisionIds.push(json(response).data.decision_id);
    }
    for (const blocked of [true, false]) {
      const response = await t.app.inject({
        method: 'PUT',
        url: `/api/v1/customers/${encodeURIComponent(customer)}/channels/savings/email`,
        headers: { ...a.headers, 'content-type': 'application/json' },
        payload: JSON.stringify({ blocked }),
      });
      expect(response.statusCode, response.body).toBe(201);
      changeIds.push(json(response).data.record_id);
    }
    // A partner blocked on the loans decision, whose release lists it.
    const block = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/consents/decisions/${decisionIds[1]}/partners/scoring`,
      headers: { ...a.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ blocked: true }),
    });
    expect(block.statusCode, block.body).toBe(201);
    blockIds.push(json(block).data.record_id);
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const getPack = (who: string, headers = a.headers) =>
    t.app.inject({
      method: 'GET',
      url: `/api/v1/customers/${encodeURIComponent(who)}/evidence`,
      headers,
    });

  /** The customer's pack, its files by path. */
  async function pack(): Promise<{ raw: Buffer; files: Record<string, Uint8Array> }> {
    const response = await getPack(customer);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/zip');
    expect(response.headers['content-disposition']).toMatch(
      /^attachment; filename=evidence-\d{8}T\d{6}Z\.zip$/,
    );
    return { raw: response.rawPayload, files: unzipSync(response.rawPayload) };
  }

  it('lists every file of the ZIP in the manifest with its SHA-256 and size, signed with the log key', async () => {
    const { files } = await pack();
    const manifest = JSON.parse(text(files['manifest.json']));
    const listed = manifest.files as { path: string; sha256: string; size: number }[];
    expect(new Set(listed.map((f) => f.path))).toEqual(
      new Set(Object.keys(files).filter((p) => p !== 'manifest.json' && p !== 'manifest.sig')),
    );
    for (const file of listed) {
      const bytes = files[file.path] as Uint8Array;
      expect(file.sha256, file.path).toBe(sha256(bytes));
      expect(file.size, file.path).toBe(bytes.length);
    }
    expect(manifest).toMatchObject({
      format: 'consent-service/evidence-pack/v1',
      tenant_id: a.tenant.id,
      customer_id: customer,
      counts: { decisions: 3, 'channel-changes': 2, 'partner-blocks': 1, versions: 2 },
    });
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    const note = openNote(text(files['manifest.sig']), [key.value]);
    expect(note.ok && note.value.verified.length).toBe(1);
    if (!note.ok) return;
    expect(note.value.text.split('\n')[2]).toBe(
      `manifest sha256:${sha256(files['manifest.json'] as Uint8Array)}`,
    );
  });

  it("holds a receipt for every decision and channel change, each proven under the pack's checkpoint", async () => {
    const { files } = await pack();
    const checkpoint = text(files['checkpoint.txt']);
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    const receipts = [
      ...decisionIds.map((id) => [`records/decisions/${id}.json`, 'decision'] as const),
      ...changeIds.map((id) => [`records/channel-changes/${id}.json`, 'channel-change'] as const),
      ...blockIds.map((id) => [`records/partner-blocks/${id}.json`, 'partner-block'] as const),
    ];
    expect(Object.keys(files).filter((p) => p.startsWith('records/'))).toHaveLength(
      receipts.length,
    );
    for (const [path, kind] of receipts) {
      const receipt = JSON.parse(text(files[path]));
      expect(receipt.checkpoint, path).toBe(checkpoint);
      const verified = verifyReceipt(receipt, [key.value], registry.formats);
      expect(verified.ok && verified.value.kind, path).toBe(kind);
      expect(verified.ok && verified.value.opened, path).toBe(true);
      expect(receipt.opening.customer_id).toBe(customer);
    }
  });

  it("holds each text shown once: its SHA-256 is the decision's content_sha256, with the partners its release listed", async () => {
    const { files } = await pack();
    for (const [version, content, partners, file] of [
      [savings, savingsText, [], null],
      [loans, loansText, ['mailhouse', 'scoring'], loansPdf],
    ] as const) {
      const html = files[`versions/${version.versionId}/content.html`] as Uint8Array;
      expect(text(html)).toBe(content);
      const described = JSON.parse(text(files[`versions/${version.versionId}/version.json`]));
      expect(described).toMatchObject({
        consent_version_id: version.versionId,
        template_code: version.code,
        version: 1,
        content_sha256: sha256(content),
      });
      if (file === null) expect(described.content_file).toBeNull();
      else {
        const path = `versions/${version.versionId}/file.pdf`;
        expect(described.content_file).toEqual({
          path,
          media_type: 'application/pdf',
          file_name: 'loan-offers.pdf',
          size: file.length,
          sha256: sha256(file),
        });
        expect(Buffer.from(files[path] as Uint8Array).equals(file)).toBe(true);
      }
      expect(described.partners.map((p: { code: string }) => p.code)).toEqual(partners);
    }
    for (const id of decisionIds) {
      const receipt = JSON.parse(text(files[`records/decisions/${id}.json`]));
      const leafSha = /sha256:([0-9a-f]{64})/.exec(receipt.leaf)?.[1];
      const shown = files[`versions/${receipt.decision.consent_version_id}/content.html`];
      expect(leafSha).toBe(sha256(shown as Uint8Array));
      // As from the API, the receipt shows the text's publication before the decision.
      const templateId = /\ntemplate (\S+) /.exec(receipt.leaf)?.[1];
      expect(receipt.publication.leaf).toContain(`\ntemplate ${templateId} 1\n`);
      expect(receipt.publication.leaf).toContain(
        ` ${receipt.decision.consent_version_id} sha256:${sha256(shown as Uint8Array)} `,
      );
      expect(receipt.publication.leaf_index).toBeLessThan(receipt.leaf_index);
      const verified = must(verifyReceipt(receipt, [logVerifier], registry.formats));
      expect(verified.publication?.leafIndex).toBe(receipt.publication.leaf_index);
    }
  });

  it("answers 404 1004 for another tenant's key, an unknown customer, and an erased customer", async () => {
    const other = await getPack(customer, b.headers);
    expect(other.statusCode).toBe(404);
    expect(expectErrorShape(other).code).toBe('1004');
    const unknown = await getPack('nobody-3f0e@example.test');
    expect(unknown.statusCode).toBe(404);
    expect(expectErrorShape(unknown).code).toBe('1004');

    const erased = 'ivo.evidence-erased@example.test';
    expect(
      (await apiOf(t.app, a.headers).decide(erased, savings.versionId, 'given')).statusCode,
    ).toBe(201);
    expect((await getPack(erased)).statusCode).toBe(200);
    await eraseCustomer(t.db, t.vault, registry, a.tenant.id, erased, actor);
    const gone = await getPack(erased);
    expect(gone.statusCode).toBe(404);
    expect(expectErrorShape(gone).code).toBe('1004');
  });

  it('verify-receipt --pack accepts the pack; it refuses one with a byte of a text changed, or a manifest entry changed, naming the file', async () => {
    const { raw, files } = await pack();
    const good = join(dir, 'good.zip');
    writeFileSync(good, raw);
    const passed = await runCli(
      ['verify-receipt', '--pack', good, '--key', testLogKeys.verifierKey],
      {},
    );
    expect(passed.code, passed.stderr).toBe(0);
    expect(JSON.parse(passed.stdout)).toMatchObject({
      valid: true,
      customer_id: customer,
      verified: { decisions: 3, 'channel-changes': 2, 'partner-blocks': 1, versions: 2 },
    });

    const textPath = `versions/${savings.versionId}/content.html`;
    const changedText = Uint8Array.from(files[textPath] as Uint8Array);
    changedText[3] = (changedText[3] as number) ^ 0x01;
    const byteChanged = join(dir, 'text-changed.zip');
    writeFileSync(byteChanged, zipSync({ ...files, [textPath]: changedText }));
    const refused = await runCli(
      ['verify-receipt', '--pack', byteChanged, '--key', testLogKeys.verifierKey],
      {},
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${textPath}: its SHA-256 is not the one in the manifest`);

    const manifest = JSON.parse(text(files['manifest.json']));
    manifest.files[0].sha256 = sha256('something else');
    const entryChanged = join(dir, 'manifest-changed.zip');
    writeFileSync(
      entryChanged,
      zipSync({ ...files, 'manifest.json': strToU8(`${JSON.stringify(manifest, null, 2)}\n`) }),
    );
    const refusedManifest = await runCli(
      ['verify-receipt', '--pack', entryChanged, '--key', testLogKeys.verifierKey],
      {},
    );
    expect(refusedManifest.code).toBe(1);
    expect(refusedManifest.stderr).toContain('manifest.json: its SHA-256 is not the one signed');
  });

  it('verify-receipt --pack refuses a pack whose ZIP shows other bytes than it proves: a forged copy of a text before the genuine one, a renamed local header, a folder entry', async () => {
    const { files } = await pack();
    const honest = Object.entries(files).map(([name, bytes]) => ({ name, bytes }));
    const textPath = `versions/${savings.versionId}/content.html`;
    const check = async (name: string, zip: Uint8Array) => {
      const path = join(dir, name);
      writeFileSync(path, zip);
      return runCli(['verify-receipt', '--pack', path, '--key', testLogKeys.verifierKey], {});
    };
    // The same files, rewritten by the forger's tool, still verify: what fails below is the forgery.
    const rewritten = await check('rewritten.zip', zipOf(honest));
    expect(rewritten.code, rewritten.stderr).toBe(0);

    const forged = { name: textPath, bytes: strToU8('<p>We NEVER share your data.</p>') };
    const twice = await check('twice.zip', zipOf([forged, ...honest]));
    expect(twice.code).toBe(1);
    expect(JSON.parse(twice.stdout)).toMatchObject({ valid: false });
    expect(twice.stderr).toContain(`${textPath}: is in the archive more than once`);

    const renamed = honest.map((entry) =>
      entry.name === textPath
        ? { ...entry, localName: textPath.replace('content', 'c0ntent') }
        : entry,
    );
    const local = await check('renamed.zip', zipOf(renamed));
    expect(local.code).toBe(1);
    expect(local.stderr).toContain(
      `${textPath}: its local header does not agree with the central directory`,
    );

    const folder = await check(
      'folder.zip',
      zipOf([...honest, { name: 'records/', bytes: new Uint8Array() }]),
    );
    expect(folder.code).toBe(1);
    expect(folder.stderr).toContain('records/: is a folder entry, which a pack never has');
  });

  it('the check names a file the manifest leaves out, and a receipt left out of a pack signed again', async () => {
    const { files } = await pack();
    const key = parseVerifierKey(testLogKeys.verifierKey);
    const signer = parseSignerKey(testLogKeys.signerKey);
    if (!key.ok || !signer.ok) throw new Error('the test keys do not parse');
    const asMap = (record: Record<string, Uint8Array>) => new Map(Object.entries(record));
    expect(verifyEvidencePack(asMap(files), [key.value], registry.formats)).toMatchObject({
      valid: true,
    });

    const added = verifyEvidencePack(
      asMap({ ...files, 'notes.txt': strToU8('added') }),
      [key.value],
      registry.formats,
    );
    expect(added.failures).toEqual([{ file: 'notes.txt', reason: 'not listed in the manifest' }]);

    // Leaving a receipt out takes a new manifest and signature, which the log's key can make:
    // the counts the manifest keeps still tell.
    const left = `records/channel-changes/${changeIds[0]}.json`;
    const manifest = JSON.parse(text(files['manifest.json']));
    manifest.files = manifest.files.filter((f: { path: string }) => f.path !== left);
    const manifestBytes = strToU8(`${JSON.stringify(manifest, null, 2)}\n`);
    const origin = manifest.checkpoint.origin;
    const { [left]: _left, ...rest } = files;
    const resigned = verifyEvidencePack(
      asMap({
        ...rest,
        'manifest.json': manifestBytes,
        'manifest.sig': strToU8(
          signNote(packNoteText(origin, sha256(manifestBytes)), [signer.value]),
        ),
      }),
      [key.value],
      registry.formats,
    );
    expect(resigned.failures).toEqual([
      { file: 'manifest.json', reason: 'counts 2 channel-changes, the pack proves 1' },
    ]);
  });
});
