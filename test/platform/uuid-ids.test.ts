/**
 * PostgreSQL stores whose ids are `uuid` columns (16 bytes instead of 37 of text): the service's
 * statements run on them as on today's text ids (`src/platform/id-type.ts`), so that a later
 * release can change the columns while this one still runs beside it. One scripted session of
 * the public API, on a store of each kind, answers byte for byte alike but for ids and times;
 * its receipts verify and the log's audit is clean on both.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb } from '../../src/platform/db.js';
import { resolveIdType } from '../../src/platform/id-type.js';
import { prepared } from '../../src/platform/prepared.js';
import { createProduct } from '../../src/products/index.js';
import { parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { seedPublishedSystem } from '../helpers/cookies.js';
import { publish, seedTemplate, seedTenant } from '../helpers/seed.js';
import { postgresStore } from '../helpers/stores.js';
import { notUuidColumns, postgresUuidStore } from '../helpers/uuid-ids.js';

const uuid = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g;
const time = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g;
const hex = /\b[0-9a-f]{64}\b/g;
/** A checkpoint's root hash and signature. */
const base64 = /[A-Za-z0-9+/]{40,}={0,2}/g;

interface Session {
  /** Every answer as `status body`, ids, times, hashes and signatures as numbered placeholders. */
  answers: string[];
  /** Whether each receipt asked for verified offline. */
  receipts: boolean[];
  audit: { ok: boolean; findings: unknown[] };
}

async function session(t: TestApp): Promise<Session> {
  const a = await seedTenant(t.db);
  const actor = {
    tenantId: a.tenant.id,
    actorKind: 'operator',
    actor: 'test',
    ip: 'local',
    userAgent: null,
  } as const;
  await t.db
    .transaction()
    .execute((trx) => createProduct(trx, actor, a.tenant.id, { code: 'savings', name: 'Savings' }));
  const code = await seedTemplate(t.db, a.tenant.id);
  const v1 = await publish(t.db, a.tenant.id, code, { tag: '1.0', content_html: '<p>One</p>' });
  const v2 = await publish(t.db, a.tenant.id, code, {
    tag: '1.1',
    content_html: '<p>Two</p>',
    allow_reconsent: false,
  });
  const site = await seedPublishedSystem(t.db, a.tenant.id);
  const api = apiOf(t.app, a.headers);
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: { ...a.headers, 'content-type': 'application/json' },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });

  const responses = [
    await api.latest(code),
    await api.pending('ann', code),
    await api.decide('ann', v1.consent_version_id, 'given'),
    await api.decide('ann', v2.consent_version_id.toUpperCase(), 'given'),
    await api.decide('ann', v2.consent_version_id, 'given'),
    await api.decide('ann', v2.consent_version_id, 'reject'),
    await api.decide('bob', v2.consent_version_id, 'withdraw'),
    await api.decide('bob', v2.consent_version_id, 'given'),
    await api.decide('bob', 'not-a-uuid', 'given'),
    await api.decide('bob', '01900000-0000-7000-8000-000000000000', 'given'),
    await api.pending('ann', code),
    await api.latest('nope'),
  ];
  const decisionId = json(responses[3]!).data.decision_id as string;
  const firstPage = await call('GET', '/api/v1/customers/ann/consents?limit=1');
  responses.push(
    firstPage,
    await call(
      'GET',
      `/api/v1/customers/ann/consents?limit=1&cursor=${encodeURIComponent(json(firstPage).data.next_cursor)}`,
    ),
    await call(
      'GET',
      `/api/v1/customers/ann/consents/templates/${code}/as-of?at=${encodeURIComponent(new Date().toISOString())}`,
    ),
    await call('PUT', '/api/v1/customers/ann/channels/savings/email', { blocked: true }),
    await call('GET', '/api/v1/customers/ann/channels'),
    await call('POST', '/api/v1/consents/status', {
      template_code: code,
      customer_ids: ['ann', 'bob', 'cay'],
      channel: { product_code: 'savings', channel: 'email' },
    }),
    await call('GET', '/api/v1/customers/ann/consents?include=controls'),
    await call('GET', '/api/v1/decisions/not-a-uuid/receipt'),
    await call('GET', '/api/v1/decisions/01900000-0000-7000-8000-000000000000/receipt'),
  );
  const choice = {
    event_id: '0f0e0d0c-0b0a-4908-8706-050403020100',
    visitor_id: 'b3c1a2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
    configuration_id: site.configurationId,
    configuration_version: site.version,
    method: 'accept-all',
    categories: {
      necessary: true,
      analytics: true,
      marketing: true,
      functional: true,
      personalization: true,
    },
    locale: 'en',
  };
  for (let i = 0; i < 2; i += 1) {
    responses.push(
      await t.app.inject({
        method: 'POST',
        url: `/cookies/v1/${site.scope}/decisions`,
        headers: { origin: 'https://www.bank.example', 'content-type': 'text/plain;charset=UTF-8' },
        payload: JSON.stringify(choice),
      }),
    );
  }
  const key = parseVerifierKey(testLogKeys.verifierKey);
  if (!key.ok) throw new Error(key.reason);
  const receipts: boolean[] = [];
  for (const url of [
    `/api/v1/decisions/${decisionId}/receipt?wait=true`,
    `/api/v1/channel-changes/${json(responses[15]!).data.record_id}/receipt?wait=true`,
  ]) {
    const receipt = await call('GET', url);
    receipts.push(
      receipt.statusCode === 200 && verifyReceipt(json(receipt), [key.value], registry.formats).ok,
    );
  }
  const seen = new Map<string, string>();
  const placeholder = (value: string, kind: string) => {
    const known = seen.get(value.toLowerCase()) ?? `<${kind}${seen.size}>`;
    seen.set(value.toLowerCase(), known);
    return known;
  };
  return {
    answers: responses.map((r) =>
      `${r.statusCode} ${r.body}`
        .replaceAll(code, '<code>')
        .replace(/"next_cursor":"[^"]+"/g, '"next_cursor":"<cursor>"')
        .replace(uuid, (m) => placeholder(m, 'id'))
        .replace(time, (m) => placeholder(m, 'time'))
        .replace(hex, (m) => placeholder(m, 'hash'))
        .replace(base64, (m) => placeholder(m, 'signed')),
    ),
    receipts,
    audit: await auditLog(t.db, t.vault, registry, a.tenant.id),
  };
}

describe('PostgreSQL stores of uuid ids', () => {
  let onText: TestApp;
  let onUuid: TestApp;
  beforeAll(async () => {
    onText = await startTestApp(postgresStore);
    onUuid = await startTestApp(postgresUuidStore);
  });
  afterAll(async () => {
    await onText?.close();
    await onUuid?.close();
  });

  it('holds every id of the service as a 16-byte uuid, and the service reads the type from the store', async () => {
    const { rows } = await sql<{ table_name: string; column_name: string }>`
      select table_name, column_name from information_schema.columns
      where table_schema = current_schema() and data_type = 'text'
        and (column_name = 'id' or column_name like '%\\_id') and table_name not like 'kysely\\_%'`.execute(
      onUuid.db,
    );
    const listed = (row: { table_name: string; column_name: string }) =>
      notUuidColumns.includes(row.column_name) ||
      notUuidColumns.includes(`${row.table_name}.${row.column_name}`);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((row) => !listed(row))).toEqual([]);
    const { rows: types } = await sql<{ data_type: string; n: number }>`
      select data_type, count(*)::int as n from information_schema.columns
      where table_schema = current_schema() and table_name in ('decisions', 'subjects', 'tlog_entries')
        and column_name in ('id', 'tenant_id', 'subject_id', 'log_id', 'record_id')
      group by data_type`.execute(onUuid.db);
    expect(types).toEqual([{ data_type: 'uuid', n: 7 }]);
    expect(await resolveIdType(onUuid.db)).toBe('uuid');
    expect(await resolveIdType(onText.db)).toBe('text');
  });

  it('a new handle whose first statements start together reads the id type once, and each statement runs once', async () => {
    const statements: string[] = [];
    const db = createDb(loadConfig({ DATABASE_URL: onUuid.config.databaseUrl }), (event) => {
      if (event.level === 'query') statements.push(event.query.sql);
    });
    const byId = prepared((d, p: (name: 'id') => never) =>
      d.selectFrom('tenants').select('id').where('id', '=', p('id')),
    );
    try {
      const ids = Array.from({ length: 200 }, () => crypto.randomUUID());
      const found = await Promise.all(ids.map((id) => byId.first(db, { id })));
      expect(found.every((row) => row === undefined)).toBe(true);
      expect(statements.filter((text) => text.includes('information_schema'))).toHaveLength(1);
      expect(statements).toHaveLength(201);
    } finally {
      await db.destroy();
    }
  });

  it('a scripted session answers byte for byte alike on text and uuid ids; receipts verify, the audit is clean', async () => {
    const text = await session(onText);
    const binary = await session(onUuid);
    expect(binary.answers).toEqual(text.answers);
    // The session reached what it meant to, on both.
    expect(text.answers.map((line) => line.slice(0, 3))).toEqual([
      '200', // latest
      '200', // pending
      '201', // given on 1.0
      '201', // given on 1.1, its id in upper case
      '200', // the same again: no re-consent
      '409', // reject: no re-consent
      '409', // nothing to withdraw
      '201',
      '400', // a version id that is no UUID
      '404', // an unknown version
      '200',
      '404',
      '200', // the history's first page
      '200', // its next page by the cursor
      '200', // as of now
      '201', // a channel blocked
      '200',
      '200', // bulk status
      '200', // the history with the controls
      '400', // a receipt of an id that is no UUID
      '404', // a receipt of an unknown decision
      '201', // a cookie choice
      '200', // its retry
    ]);
    expect(binary.receipts).toEqual([true, true]);
    expect(text.receipts).toEqual([true, true]);
    expect(binary.audit).toMatchObject({ ok: true, findings: [] });
    expect(text.audit).toMatchObject({ ok: true, findings: [] });
  });
});
