/**
 * The section 39 record in the back-office, on both stores (docs/pdpa.md, "Sections 28, 29 and
 * 39"): generated from a template live by its logged publication (purpose, sensitive data and so
 * explicit consent, retention, the partners its release listed, one abroad), the channels and a
 * refused request; completed by the tenant's fields; exported as CSV and as a printable document
 * in Thai and English, each export audited; as of a day before any of it, empty.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { createPartner } from '../../src/partners/index.js';
import { openRequest, takeStep } from '../../src/requests/index.js';
import { changeValidityAs } from '../../src/templates/actions.js';
import {
  changeDataCategoriesAs,
  getTemplateByCode,
  publishOutsideReview,
} from '../../src/templates/index.js';
import type { TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

describe.each(stores)('the section 39 record on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;
  let code: string;
  const actor = (s: SeededTenant) =>
    ({
      tenantId: s.tenant.id,
      actorKind: 'tenant',
      actor: 'test',
      ip: 'local',
      userAgent: null,
    }) as const;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
    code = await seedTemplate(t.db, a.tenant.id);
    await t.db.transaction().execute(async (trx) => {
      await createPartner(trx, actor(a), a.tenant.id, {
        code: 'thai-life',
        name: 'Thai Life Assurance',
        purpose: 'Underwriting health cover',
        country: 'TH',
      });
      await createPartner(trx, actor(a), a.tenant.id, {
        code: 'sg-analytics',
        name: 'SG Analytics Pte',
        purpose: 'Claims analytics',
        country: 'SG',
      });
      const template = await getTemplateByCode(trx, a.tenant.id, code);
      await changeValidityAs(trx, actor(a), template, 24);
      await changeDataCategoriesAs(trx, actor(a), await getTemplateByCode(trx, a.tenant.id, code), [
        'health',
      ]);
      await publishOutsideReview(
        trx,
        actor(a),
        a.tenant.id,
        code,
        { tag: '1.0', content_html: '<p>Health cover</p>' },
        { partners: ['thai-life', 'sg-analytics'] },
      );
    });
    const requester = {
      tenantId: a.tenant.id,
      apiKeyId: a.apiKey.id,
      userId: null,
      ip: '192.0.2.1',
      userAgent: null,
    };
    const opened = await openRequest(t.db, t.vault, requester, {
      customerId: 'cust-39',
      kind: 'erasure',
    });
    await takeStep(
      t.db,
      t.vault,
      requester,
      opened.request.id,
      {
        step: 'refused',
        ground: 'legal_obligation',
        reason: 'Loan records are kept ten years under the Bank of Thailand rules.',
      },
      { registry },
    );
  });
  afterAll(() => t?.close());

  const audits = (action: string) =>
    t.db
      .selectFrom('audit_log')
      .select(['details', 'actor'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', action)
      .orderBy('created_at')
      .execute();

  it('shows the purpose with its basis, data, retention and recipients, the channels and the refusal', async () => {
    const page = await admin.get('/backoffice/processing-record');
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain('Explicit consent for sensitive data (section 26)');
    expect(text).toContain('health');
    expect(text).toContain('24 months from consent');
    expect(text).toContain('Thai Life Assurance (TH): Underwriting health cover');
    expect(text).toContain('SG Analytics Pte (SG, transfer abroad): Claims analytics');
    expect(text).toContain('Email, SMS, Push, Phone, Post');
    expect(text).toContain('legal_obligation');
    expect(text).toContain('Loan records are kept ten years under the Bank of Thailand rules.');
    expect(text).not.toContain('cust-39');
  });

  it('keeps what the tenant fills in, audited, and refuses one too long with the page', async () => {
    const fields = {
      controller_name: 'Acme Bank Public Company Limited',
      controller_address: '1 Silom Road, Bangkok 10500',
      controller_contact: 'privacy@acme.example',
      dpo_name: 'Khun Somsri',
      dpo_contact: 'dpo@acme.example',
      security_measures: 'AES-256 at rest; TLS 1.3; access by role, reviewed quarterly.',
    };
    const saved = await admin.submit(
      '/backoffice/processing-record',
      '/backoffice/processing-record',
      fields,
    );
    expect(saved.statusCode).toBe(303);
    expect(textOf((await admin.get('/backoffice/processing-record')).body)).toContain(
      'Khun Somsri',
    );
    expect(await audits('processing_record.changed')).toEqual([
      expect.objectContaining({ details: JSON.stringify({ fields: Object.keys(fields) }) }),
    ]);
    const long = await admin.submit(
      '/backoffice/processing-record',
      '/backoffice/processing-record',
      {
        ...fields,
        dpo_name: 'x'.repeat(201),
      },
    );
    expect(long.statusCode).toBe(400);
    expect(textOf(long.body)).toContain('At most 200 characters.');
  });

  it('exports the CSV with the purpose and the refusal, audited with the day', async () => {
    const today = textOf((await admin.get('/backoffice/processing-record')).body);
    const csv = await admin.get('/backoffice/processing-record.csv');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const rows = parse(csv.body, { columns: true }) as Record<string, string>[];
    expect(rows.find((r) => r.section === 'purpose')).toMatchObject({
      item: code,
      legal_basis: 'explicit_consent',
      data_categories: 'health',
      retention_months: '24',
      // By partner code, as the publication lists them.
      recipients: 'SG Analytics Pte (SG); Thai Life Assurance (TH)',
      transfers_abroad: 'SG Analytics Pte (SG)',
    });
    expect(rows.find((r) => r.section === 'refusal')).toMatchObject({
      item: expect.stringMatching(/^erasure [0-9a-f-]{36}$/),
      detail: 'legal_obligation: Loan records are kept ten years under the Bank of Thailand rules.',
    });
    expect(rows.filter((r) => r.section === 'channel').map((r) => r.item)).toEqual([
      'email',
      'sms',
      'push',
      'phone',
      'post',
    ]);
    const exported = await audits('processing_record.exported');
    expect(JSON.parse(exported.at(-1)?.details ?? '{}')).toMatchObject({
      format: 'csv',
      language: 'en',
      as_of: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    expect(today).toContain('Record of processing');
  });

  it('prints in Thai and English, and as of a day before anything was published it is empty', async () => {
    const th = await admin.get('/backoffice/processing-record/print?lang=th');
    expect(th.statusCode).toBe(200);
    expect(th.body).toContain('<html lang="th">');
    expect(th.body).toContain('บันทึกรายการกิจกรรมการประมวลผลข้อมูลส่วนบุคคล (มาตรา 39)');
    expect(th.body).toContain('ความยินยอมโดยชัดแจ้งสำหรับข้อมูลอ่อนไหว (มาตรา 26)');
    expect(th.body).toContain('ส่งไปต่างประเทศ');
    const en = await admin.get('/backoffice/processing-record/print?lang=en');
    expect(en.body).toContain('Record of processing activities (PDPA section 39)');
    const before = await admin.get('/backoffice/processing-record/print?lang=en&at=2020-01-01');
    const text = textOf(before.body);
    expect(text).toContain('As of the end of 2020-01-01');
    expect(text).toContain('No request was refused.');
    expect(text).not.toContain('Thai Life Assurance');
    const printed = (await audits('processing_record.exported')).map((e) =>
      JSON.parse(e.details ?? '{}'),
    );
    expect(printed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ format: 'print', language: 'th' }),
        { format: 'print', language: 'en', as_of: '2020-01-01' },
      ]),
    );
  });
});
