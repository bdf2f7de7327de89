/**
 * Publications in the tenant's log (docs/proof.md, "Publications"), on both stores: publishing a
 * version leaves the documented leaf (every locale's text and file hash, the partners, when it
 * went live), and a decision's receipt shows it before the decision, which `verify-receipt`
 * checks and prints. The hashes of the texts are computed here from the texts themselves.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import type { Actor } from '../../src/audit-trail/index.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { createPartner } from '../../src/partners/index.js';
import { parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import {
  attachContentFile,
  createDraftAs,
  getTemplateByCode,
  publishOutsideReview,
} from '../../src/templates/index.js';
import { publishDraft } from '../../src/templates/service.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { entriesOfLog, leafHex } from '../helpers/log-entries.js';
import { runCli } from '../helpers/process.js';
import { type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { must } from '../proof/fixtures.js';

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');
/** A leaf's hash (RFC 6962: SHA-256 of 0x00 and its text), as the log and its queue keep it. */
const leafHashHex = (text: string) =>
  createHash('sha256')
    .update(Buffer.from([0]))
    .update(text, 'utf8')
    .digest('hex');
const verifier = must(parseVerifierKey(testLogKeys.verifierKey));

describe.each(stores)('publications in the log on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let code: string;
  let templateId: string;
  let main: string;
  let other: string;
  const dir = mkdtempSync(join(tmpdir(), 'publications-'));
  const texts: Record<string, string> = {};

  const actor = (): Actor => ({
    tenantId: a.tenant.id,
    actorKind: 'operator',
    actor: 'command line',
    ip: 'local',
    userAgent: null,
  });

  beforeAll(async () => {
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    code = await seedTemplate(t.db, a.tenant.id);
    const template = await getTemplateByCode(t.db, a.tenant.id, code);
    templateId = template.id;
    main = template.default_locale;
    other = main === 'th' ? 'en' : 'th';
    texts[main] = '<p>Consent text</p>';
    texts[other] = '<p>Consent text (other)</p>';
    await t.db.transaction().execute(async (trx) => {
      for (const partner of ['thai-credit', 'acme-bank']) {
        await createPartner(trx, actor(), a.tenant.id, { code: partner, name: partner });
      }
    });
  });
  afterAll(async () => {
    await t.close();
  });

  /** A version's publication: its row's id and times, and its leaf's hash as the log holds or queues it. */
  async function publicationOf(version: number) {
    const row = await t.db
      .selectFrom('publications')
      .selectAll()
      .where('tenant_id', '=', a.tenant.id)
      .where('of_id', '=', templateId)
      .where('version', '=', version)
      .executeTakeFirstOrThrow();
    const queued = await t.db
      .selectFrom('tlog_pending')
      .select('leaf')
      .where('log_id', '=', a.tenant.id)
      .where('record_id', '=', row.id)
      .executeTakeFirst();
    const logged = await entriesOfLog(t.db, a.tenant.id)
      .select(leafHex(t.db))
      .where('e.record_id', '=', row.id)
      .executeTakeFirst();
    return { row, hash: queued?.leaf ?? logged?.leaf };
  }

  const variantIds = async (version: number) =>
    Object.fromEntries(
      (
        await t.db
          .selectFrom('template_versions')
          .select(['locale', 'id'])
          .where('tenant_id', '=', a.tenant.id)
          .where('template_id', '=', templateId)
          .where('version', '=', version)
          .execute()
      ).map((v) => [v.locale, v.id]),
    ) as Record<string, string>;

  /** The documented text lines of a release's locales, sorted by locale. */
  const textLines = (ids: Record<string, string>, files: Record<string, string> = {}) =>
    [main, other]
      .sort()
      .map(
        (locale) =>
          `text ${locale} ${ids[locale]} sha256:${sha256(texts[locale] as string)} file:${files[locale] ?? '-'}\n`,
      )
      .join('');

  it('publishing a version with two locales and two partners leaves the documented leaf', async () => {
    const version = await t.db.transaction().execute((trx) =>
      publishOutsideReview(
        trx,
        actor(),
        a.tenant.id,
        code,
        { tag: '1.0', content_html: texts[main] },
        {
          variants: [{ locale: other, content_html: texts[other] }],
          partners: ['thai-credit', 'acme-bank'],
        },
      ),
    );
    const { row, hash } = await publicationOf(1);
    expect(hash).toBe(
      leafHashHex(
        'consent-log/publication/v1\n' +
          `record ${row.id}\n` +
          `time ${version.published_at}\n` +
          `effective ${version.published_at}\n` +
          `template ${templateId} 1\n` +
          textLines(await variantIds(1)) +
          'partners acme-bank thai-credit\n',
      ),
    );
  });

  it("a decision's receipt shows the publication before it, of the very text; verify-receipt prints the link", async () => {
    const ids = await variantIds(1);
    const { row, hash } = await publicationOf(1);
    const decided = await apiOf(t.app, a.headers).decide('c-pub-1', ids[other] as string, 'given');
    expect(decided.statusCode, decided.body).toBe(201);
    const id = json(decided).data.decision_id;
    const answer = await t.app.inject({
      method: 'GET',
      url: `/api/v1/decisions/${id}/receipt?wait=true`,
      headers: a.headers,
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const receipt = json(answer).data;
    expect(leafHashHex(receipt.publication.leaf)).toBe(hash);
    expect(receipt.publication.leaf_index).toBeLessThan(receipt.leaf_index);
    const verified = must(verifyReceipt(receipt, [verifier], registry.formats));
    expect(verified.publication?.leafIndex).toBe(receipt.publication.leaf_index);

    const file = join(dir, `receipt-${store.name}.json`);
    writeFileSync(file, JSON.stringify(json(answer)));
    const result = await runCli(['verify-receipt', file, '--key', testLogKeys.verifierKey], {});
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).published).toEqual({
      publication_id: row.id,
      leaf_index: receipt.publication.leaf_index,
      published_at: row.published_at,
      effective_at: row.published_at,
      what: 'template',
      of: templateId,
      version: 1,
      text: { locale: other, id: ids[other], sha256: sha256(texts[other] as string) },
    });

    // Shown as if it came after the decision, the receipt does not verify.
    const moved = {
      ...receipt,
      publication: { ...receipt.publication, leaf_index: receipt.leaf_index },
    };
    expect(verifyReceipt(moved, [verifier], registry.formats)).toMatchObject({
      ok: false,
      reason: "the receipt's publication is not in the log before its record",
    });
  });

  it("a version's uploaded content file is in its leaf, and a scheduled one's leaf says when it goes live", async () => {
    const pdf = Buffer.from('%PDF-1.4 a consent text\n%%EOF\n', 'latin1');
    const goesLive = new Date(Date.now() + 86_400_000).toISOString();
    const published = await t.db.transaction().execute(async (trx) => {
      const template = await getTemplateByCode(trx, a.tenant.id, code);
      const draft = await createDraftAs(
        trx,
        { ...actor(), userId: '0190e8a0-0000-7000-8000-0000000000ff' },
        template,
        { tag: '2.0', content_html: texts[main] },
      );
      await attachContentFile(trx, actor(), template, draft.id, {
        fileName: 'terms.pdf',
        bytes: pdf,
        truncated: false,
      });
      return publishDraft(trx, draft, code, 'test', 'draft', goesLive);
    });
    expect(published.published_at).toBe(goesLive);
    const { row, hash } = await publicationOf(2);
    expect(row.published_at < goesLive).toBe(true);
    const ids = await variantIds(2);
    expect(hash).toBe(
      leafHashHex(
        'consent-log/publication/v1\n' +
          `record ${row.id}\n` +
          `time ${row.published_at}\n` +
          `effective ${goesLive}\n` +
          `template ${templateId} 2\n` +
          `text ${main} ${ids[main]} sha256:${sha256(texts[main] as string)} file:${sha256(pdf)}\n` +
          'partners -\n',
      ),
    );
  });

  it("the log's audit rebuilds every publication leaf from its row", async () => {
    const report = await auditLog(t.db, t.vault, registry, a.tenant.id);
    expect(report.findings).toEqual([]);
    expect(report.ok).toBe(true);
  });
});
