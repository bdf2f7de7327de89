import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTemplate } from '../src/templates/service.js';
import { apiOf } from './helpers/api.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { publish, seedTenant } from './helpers/seed.js';
import { postgresStore, sqliteStore, type TestStore } from './helpers/stores.js';

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const time = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g;

/**
 * Runs one scripted session and returns every answer as raw text, with ids and times replaced
 * by placeholders numbered in order of appearance (the only bytes allowed to differ).
 */
async function session(t: TestApp): Promise<string[]> {
  const a = await seedTenant(t.db);
  const code = 'parity_terms';
  await t.db
    .transaction()
    .execute((trx) => createTemplate(trx, a.tenant.id, { code, name: 'Terms' }));
  const v1 = await publish(t.db, a.tenant.id, code, { tag: '1.0', content_html: '<p>One ü €</p>' });
  const v2 = await publish(t.db, a.tenant.id, code, {
    tag: '1.1',
    content_html: '<h2>Two</h2>',
    allow_reconsent: false,
  });
  const api = apiOf(t.app, a.headers);
  const responses = [
    await api.latest(code),
    await api.pending('cust@example.com', code),
    await api.decide('cust@example.com', v1.consent_version_id, 'given'),
    await api.decide('cust@example.com', v2.consent_version_id, 'given'),
    await api.decide('cust@example.com', v2.consent_version_id, 'given'),
    await api.decide('cust@example.com', v2.consent_version_id, 'reject'),
    await api.decide('cust@example.com', v2.consent_version_id, 'withdraw'),
    await api.decide('cust@example.com', v2.consent_version_id, 'withdraw'),
    await api.pending('cust@example.com', code),
    await api.decide('cust@example.com', '01900000-0000-7000-8000-000000000000', 'given'),
    await api.latest('nope'),
  ];
  const seen = new Map<string, string>();
  const placeholder = (value: string, kind: string) => {
    if (!seen.has(value)) seen.set(value, `<${kind}${seen.size}>`);
    return seen.get(value) ?? value;
  };
  return responses.map((r) =>
    `${r.statusCode} ${r.headers['content-type']} ${r.body}`
      .replace(uuid, (m) => placeholder(m, 'id'))
      .replace(time, (m) => placeholder(m, 'time')),
  );
}

describe('the same answers on every store', () => {
  const apps: TestApp[] = [];
  beforeAll(async () => {
    for (const store of [sqliteStore, postgresStore] satisfies TestStore[]) {
      apps.push(await startTestApp(store));
    }
  });
  afterAll(async () => {
    for (const t of apps) await t.close();
  });

  it('a scripted session answers byte for byte alike on SQLite and PostgreSQL', async () => {
    const [sqlite, postgres] = apps;
    const onSqlite = await session(sqlite!);
    const onPostgres = await session(postgres!);
    expect(onPostgres).toEqual(onSqlite);
    // The session did reach the rules it meant to: 201, 201, 200, 409, 201, 409.
    expect(onSqlite.map((line) => line.slice(0, 3))).toEqual([
      '200',
      '200',
      '201',
      '201',
      '200',
      '409',
      '201',
      '409',
      '200',
      '404',
      '404',
    ]);
  });
});
