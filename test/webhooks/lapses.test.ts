/**
 * `consent.lapsed` on both stores, with two instances on one store each running the pass: a
 * customer's `given` that lapses under its template's validity period is told once, not before
 * its instant; one that is no longer the customer's latest, or whose customer was erased, is not.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/app.js';
import { registry } from '../../src/app/kinds.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import { createDb, type Db, isPostgres } from '../../src/platform/db.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { changeValidityAs } from '../../src/templates/actions.js';
import { getTemplateByCode } from '../../src/templates/service.js';
import { createEndpoint } from '../../src/webhooks/service.js';
import { json, startTestApp, type TestApp, testDataKey } from '../helpers/app.js';
import { insertDecisionAt } from '../helpers/decisions.js';
import { migrateBefore } from '../helpers/schema-history.js';
import {
  publish,
  seedTemplate,
  seedTemplateRow,
  seedTenant,
  seedTenantRow,
} from '../helpers/seed.js';
import { stores, useBareStore } from '../helpers/stores.js';
import {
  byCli,
  eventually,
  fastWebhooks,
  startReceiver,
  verified,
} from '../helpers/webhook-receiver.js';

/** The same instant a whole number of years earlier (12 months a year; none falls on 29 Feb). */
const yearsBefore = (ms: number, years: number) => {
  const d = new Date(ms);
  if (d.getUTCMonth() === 1 && d.getUTCDate() === 29) d.setUTCDate(28);
  d.setUTCFullYear(d.getUTCFullYear() - years);
  return d.toISOString();
};
const yearLater = (iso: string) => `${Number(iso.slice(0, 4)) + 1}${iso.slice(4)}`;

describe.each(stores)('consent.lapsed with two instances ($name)', (store) => {
  let t: TestApp;
  let secondDb: Db;
  let second: FastifyInstance;
  beforeAll(async () => {
    t = await startTestApp(store, { ...fastWebhooks, WEBHOOK_DISPATCH_INTERVAL_MS: '10' });
    secondDb = createDb(t.config);
    second = await buildApp(t.config, secondDb, { logger: false });
    await second.ready();
  });
  afterAll(async () => {
    await second?.close();
    await secondDb?.destroy();
    await t.close();
  });

  it('tells each lapse once, not before its instant, only of a latest given; a lapse a new period makes is told when it was set', async () => {
    const receiver = await startReceiver();
    try {
      const { tenant, apiKey } = await seedTenant(t.db);
      const by = { tenantId: tenant.id, apiKeyId: apiKey.id };
      const code = await seedTemplate(t.db, tenant.id);
      const version = (await publish(t.db, tenant.id, code)).consent_version_id;
      const given = (customer: string, at: string) =>
        insertDecisionAt(t, by, customer, version, 'given', at);

      // Before the template has a period: nothing lapses, so the passes tell nothing yet.
      const longAgo = yearsBefore(Date.now(), 2);
      const ben = await given('ben', longAgo);
      await given('cleo', longAgo);
      await given('cleo', new Date().toISOString()); // given again: the old one is not latest
      await given('dora', longAgo);
      await insertDecisionAt(t, by, 'dora', version, 'withdraw', new Date().toISOString());
      await given('erik', longAgo);
      await eraseCustomer(t.db, t.vault, registry, tenant.id, 'erik', byCli(tenant.id));
      await given('fay', yearsBefore(Date.now() + 60 * 86_400_000, 1)); // lapses in 60 days
      // Lapse a few seconds from now, the sentinel after Anna.
      const anna = await given('anna', yearsBefore(Date.now() + 2_000, 1));
      const gus = await given('gus', yearsBefore(Date.now() + 3_000, 1));

      const { secret } = await createEndpoint(
        t.db,
        t.vault,
        t.config.webhooks,
        registry,
        byCli(tenant.id),
        { url: receiver.url, events: ['consent.lapsed'] },
      );
      await t.db.transaction().execute(async (trx) => {
        const row = await getTemplateByCode(trx, tenant.id, code);
        await changeValidityAs(trx, byCli(tenant.id), row, 12);
      });
      const periodSetAt = (
        await t.db
          .selectFrom('template_validity_changes')
          .select('changed_at')
          .where('tenant_id', '=', tenant.id)
          .executeTakeFirstOrThrow()
      ).changed_at;

      await eventually(() => receiver.received.length >= 3);
      // Both instances go on looking for a while: nothing is told twice.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received).toHaveLength(3);
      const told = receiver.received.map((got) => ({
        at: got.at,
        body: verified(secret, got),
      }));
      expect(told.map((e) => e.body.data.decision_id)).toEqual([ben, anna, gus]);
      const decidedAt = async (id: string) =>
        (
          await t.db
            .selectFrom('decisions')
            .select('decided_at')
            .where('id', '=', id)
            .executeTakeFirstOrThrow()
        ).decided_at;
      const [benTold, annaTold] = told;
      expect(benTold?.body).toEqual({
        type: 'consent.lapsed',
        // Lapsed a year ago under the period set only now: it lapsed when the period was set.
        timestamp: periodSetAt,
        data: {
          decision_id: ben,
          customer_id: 'ben',
          template_code: code,
          consent_version_id: version,
          version: 1,
          decided_at: longAgo,
          expires_at: yearLater(longAgo),
        },
      });
      const annaAt = await decidedAt(anna);
      expect(annaTold?.body).toEqual({
        type: 'consent.lapsed',
        timestamp: yearLater(annaAt),
        data: {
          decision_id: anna,
          customer_id: 'anna',
          template_code: code,
          consent_version_id: version,
          version: 1,
          decided_at: annaAt,
          expires_at: yearLater(annaAt),
        },
      });
      // Each body is as the OpenAPI document's `webhooks` describe the event.
      const docs = json(await t.app.inject({ method: 'GET', url: '/api/docs/json' }));
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats.default(ajv);
      const validate = ajv.compile(
        docs.webhooks['consent.lapsed'].post.requestBody.content['application/json'].schema,
      );
      for (const got of receiver.received) {
        expect(validate(JSON.parse(got.body)), JSON.stringify(validate.errors)).toBe(true);
      }
      // Not sent before the instant it tells of.
      expect(annaTold?.at).toBeGreaterThanOrEqual(Date.parse(yearLater(annaAt)));
    } finally {
      await receiver.close();
    }
  });
});

describe.each(stores)('upgrading a store to consent.lapsed on $name', (store) => {
  const bare = useBareStore(store);

  it('a template that had a period is placed three days before the lapse boundary of the upgrade, so older lapses are not told; one without a period has no place', async () => {
    const { db } = bare;
    await migrateBefore(db, '0029');
    const { tenant } = await seedTenantRow(db);
    const withPeriod = await seedTemplateRow(db, tenant.id);
    const without = await seedTemplateRow(db, tenant.id);
    await db
      .updateTable('templates')
      .set({ validity_months: 6 })
      .where('tenant_id', '=', tenant.id)
      .where('code', '=', withPeriod)
      .execute();

    expect(await migrateToLatest(db, testDataKey)).toEqual([
      '0029-lapse-progress',
      '0030-log-epochs',
      '0031-log-witnesses',
      '0032-publications',
      '0033-sensitive-templates',
      '0034-representation-rules',
      '0035-held-consent-acts',
      '0036-subject-requests',
      '0037-request-deliveries',
      '0038-processing-record',
      '0039-request-reminders',
      '0040-cookie-scans',
      '0041-choice-region',
      '0042-choice-variant',
      '0043-cookie-overrides',
      '0044-choice-customer',
      '0045-single-sign-on',
      '0046-scim',
      '0047-passkeys',
      '0048-log-nodes-from-level-4',
      '0049-pending-from-indexes',
      '0050-sqlite-states-by-key',
      '0051-erased-evidence',
      '0052-log-leaf-hashes',
      '0053-queued-leaf-hashes',
      '0054-decision-keys-without-tenant',
      '0055-choice-and-subject-keys-without-tenant',
      '0056-control-change-keys-without-tenant',
      '0057-log-record-key-without-log',
      '0058-uuid-ids',
      '0059-decision-content-hash-optional',
      '0060-cookie-choice-content-hash-optional',
      '0061-decision-times-timestamptz',
      '0062-log-entries-binary',
      '0063-subject-lookups-binary',
      '0064-state-keys-without-tenant',
      '0065-control-state-keys-without-tenant',
      '0066-sealed-columns-binary',
      '0067-customer-time-key-without-id',
      '0068-log-nodes-from-level-6',
      '0069-log-entries-by-number',
      '0070-subject-times-timestamptz',
      '0071-states-without-tenant',
      '0072-sqlite-keys-without-tenant',
      '0073-sqlite-states-without-tenant',
      '0074-sqlite-binary-ids',
    ]);
    const progress = await db
      .selectFrom('lapse_progress as p')
      .innerJoin('templates as t', (join) =>
        join.onRef('t.tenant_id', '=', 'p.tenant_id').onRef('t.id', '=', 'p.template_id'),
      )
      .select(['t.code', 'p.decided_through', 'p.through_id'])
      .execute();
    // Only the template with a period, placed three days or more before six months ago.
    // Placed before every decision: no id, which 0058 makes the nil UUID on PostgreSQL.
    const noId = isPostgres(db) ? '00000000-0000-0000-0000-000000000000' : '';
    expect(progress.map((p) => [p.code, p.through_id])).toEqual([[withPeriod, noId]]);
    const sixMonthsAgo = new Date();
    sixMonthsAgo.setUTCMonth(sixMonthsAgo.getUTCMonth() - 6);
    const place = Date.parse(progress[0]?.decided_through ?? '');
    expect(place).toBeLessThanOrEqual(sixMonthsAgo.getTime() - 3 * 86_400_000 + 1);
    expect(place).toBeGreaterThan(sixMonthsAgo.getTime() - 8 * 86_400_000);
    expect(without).not.toBe(withPeriod);
  });
});
