/**
 * PostgreSQL's keys of a customer's states (`customer_version_states_pk`,
 * `customer_template_states_pk`) leading with the tenant, as 0.12.0 and the releases before it
 * made them, or with the subject (`StateKey`, src/platform/id-type.ts; migration 0064). The
 * service runs on a store of either form:
 * its upserts name the key by its name, and `pending`'s read, answered from the key alone, names
 * the state's tenant only where the key holds it. One scripted session of the public API
 * (decisions on one version again and again, `pending`, history, a channel's block, bulk status,
 * a cookie choice) answers byte for byte alike on both but for ids, times and hashes, its
 * receipts verify and the audit is clean; `pending`'s batch is an index-only scan of the state's
 * key on both. Migration 0064 converts a store with customers in it: the same reads answer the
 * same bytes after it, its customers decide again, and it runs again as a no-op; SQLite's store
 * is left as it was.
 */
import { CompiledQuery, type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerVersionStates } from '../../src/decisions/pending-repository.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { knownTypes, resolveIdType } from '../../src/platform/id-type.js';
import * as stateKeysWithoutTenant from '../../src/platform/migrations/0064-state-keys-without-tenant.js';
import { findStoreSetting } from '../../src/platform/store-settings-repository.js';
import { apiOf } from '../helpers/api.js';
import { expectSameRecords, placeheld, reads, session } from '../helpers/api-session.js';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import { vacuumUntilAllVisible } from '../helpers/indexes.js';
import {
  keyColumns,
  migratedKeepingSqliteSchema,
  postgresTenantStateKeysStore,
} from '../helpers/schema-history.js';
import { postgresStore, sqliteStore, useBareStore } from '../helpers/stores.js';
import { existingStore } from '../helpers/uuid-ids.js';

/** The plan node that reads `customer_version_states` in `pending`'s batch for this look-up. */
async function pendingScan(t: TestApp, tenantId: string, customer: string, versionId: string) {
  await vacuumUntilAllVisible(t.db, ['customer_version_states']);
  await resolveIdType(t.db);
  const query = customerVersionStates.bind(t.db, {
    positions: [0],
    tenantIds: [tenantId],
    lookups: [t.vault.lookup(tenantId, customer)],
    versionIds: [versionId],
  });
  // The test's tables hold a few rows, which a plan would read whole: the keys are what is asked.
  return t.db.connection().execute(async (c) => {
    await sql`set enable_seqscan = off`.execute(c);
    try {
      const { rows } = await c.executeQuery<{ 'QUERY PLAN': unknown }>(
        CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]),
      );
      const nodes: Array<Record<string, unknown>> = [];
      const walk = (node: Record<string, unknown>) => {
        nodes.push(node);
        for (const child of (node.Plans as Array<Record<string, unknown>> | undefined) ?? []) {
          walk(child);
        }
      };
      const plan = rows[0]?.['QUERY PLAN'] as Array<{ Plan: Record<string, unknown> }>;
      walk(plan[0]!.Plan);
      return nodes.find((node) => node['Relation Name'] === 'customer_version_states');
    } finally {
      await sql`reset enable_seqscan`.execute(c);
    }
  });
}

describe('PostgreSQL customer states keyed by the tenant and by the subject', () => {
  let onTenant: TestApp;
  let onSubject: TestApp;
  beforeAll(async () => {
    onTenant = await startTestApp(postgresTenantStateKeysStore);
    onSubject = await startTestApp(postgresStore);
  });
  afterAll(async () => {
    await onTenant?.close();
    await onSubject?.close();
  });

  it("the service reads the key's form from the store", async () => {
    expect(await keyColumns(onTenant.db, 'customer_version_states_pk')).toEqual([
      'tenant_id',
      'subject_id',
      'consent_version_id',
    ]);
    expect(await keyColumns(onSubject.db, 'customer_version_states_pk')).toEqual([
      'subject_id',
      'consent_version_id',
    ]);
    expect(await keyColumns(onSubject.db, 'customer_template_states_pk')).toEqual([
      'subject_id',
      'template_id',
    ]);
    await resolveIdType(onTenant.db);
    await resolveIdType(onSubject.db);
    expect(knownTypes(onTenant.db)?.stateKey).toBe('tenant');
    expect(knownTypes(onSubject.db)?.stateKey).toBe('subject');
  });

  it('a scripted session answers byte for byte alike on both; receipts verify, the audit is clean; the records read alike', async () => {
    const tenant = await session(onTenant);
    const subject = await session(onSubject);
    expect(subject.answers).toEqual(tenant.answers);
    expect(subject.receipts).toEqual([true, true]);
    expect(subject.audit).toMatchObject({ ok: true, findings: [] });
    expect(tenant.audit).toMatchObject({ ok: true, findings: [] });
    const now = new Date().toISOString();
    const again = async (t: TestApp, s: typeof tenant) =>
      placeheld((await reads(t, s, now)).map((line) => line.replaceAll(s.code, '<code>')));
    expect(await again(onSubject, subject)).toEqual(await again(onTenant, tenant));

    // Each state holds its customer's latest decision, those decided again included: the
    // upserts that met a state already there updated it, on both keys.
    for (const [t, s] of [
      [onTenant, tenant],
      [onSubject, subject],
    ] as const) {
      const { rows } = await sql<{ count: number; recorded: number; last: string; latest: string }>`
        select ts.decision_count as count, ts.last_decision as last,
          (select count(*)::int from decisions as d
            where d.subject_id = ts.subject_id and d.template_id = ts.template_id) as recorded,
          (select d.decision from decisions as d
            where d.subject_id = ts.subject_id and d.template_id = ts.template_id
            order by d.seq desc limit 1) as latest
        from customer_template_states as ts
        where ts.subject_id in (select id from subjects where tenant_id = ${s.tenantId})`.execute(
        t.db,
      );
      expect(rows).toHaveLength(2);
      expect(rows.some((row) => row.recorded > 1)).toBe(true);
      for (const row of rows) expect([row.count, row.last]).toEqual([row.recorded, row.latest]);
      const { rows: versions } = await sql<{ last: string; latest: string }>`
        select cv.last_decision_id as last,
          (select d.id from decisions as d
            where d.subject_id = cv.subject_id and d.consent_version_id = cv.consent_version_id
            order by d.decided_at desc, d.seq desc limit 1) as latest
        from customer_version_states as cv
        where cv.subject_id in (select id from subjects where tenant_id = ${s.tenantId})`.execute(
        t.db,
      );
      expect(versions.length).toBeGreaterThan(1);
      for (const row of versions) expect(row.last).toBe(row.latest);
    }
  });

  it("pending's batch reads the state from its key alone on both", async () => {
    for (const t of [onTenant, onSubject]) {
      const s = await session(t);
      const { rows } = await sql<{ id: string }>`select v.id from template_versions as v
        join templates as tp on tp.tenant_id = v.tenant_id and tp.id = v.template_id
        where v.tenant_id = ${s.tenantId} and tp.code = ${s.code} and v.version = 2`.execute(t.db);
      const scan = await pendingScan(t, s.tenantId, 'ann', rows[0]!.id);
      expect(scan).toMatchObject({
        'Node Type': 'Index Only Scan',
        'Index Name': 'customer_version_states_pk',
      });
    }
  });
});

describe('migration 0064 on a PostgreSQL store with customers in it', () => {
  it("takes the tenant out of the states' keys; the same reads answer the same bytes, the customers decide again", async () => {
    // The store as 0.12.0 leaves it: its keys led by the tenant (0064 recorded as applied, so
    // that the test app, which migrates on its start, leaves them so).
    const created = await postgresTenantStateKeysStore.createMigrated!();
    const old = await startTestApp(existingStore(created.databaseUrl));
    const before = await session(old);
    const at = new Date().toISOString();
    const readsBefore = await reads(old, before, at);
    const statesOf = async (db: Db) =>
      (
        await sql<{ last_decision_id: string }>`select subject_id, consent_version_id,
            last_decision_id, last_decision,
            last_decided_at
          from customer_version_states
          where subject_id in (select id from subjects where tenant_id = ${before.tenantId})
          order by subject_id, consent_version_id`.execute(db)
      ).rows;
    const statesBefore = await statesOf(old.db);
    expect(statesBefore.length).toBeGreaterThan(1);
    expect(await keyColumns(old.db, 'customer_version_states_pk')).toEqual([
      'tenant_id',
      'subject_id',
      'consent_version_id',
    ]);
    await old.close();
    // Started again as the release with 0064, which its start applies.
    const handle = createDb(loadConfig({ DATABASE_URL: created.databaseUrl }));
    await sql`delete from kysely_migration
      where name in ('0064-state-keys-without-tenant', '0065-control-state-keys-without-tenant',
        '0066-sealed-columns-binary', '0067-customer-time-key-without-id',
        '0068-log-nodes-from-level-6', '0069-log-entries-by-number', '0070-subject-times-timestamptz',
        '0071-states-without-tenant', '0072-sqlite-keys-without-tenant', '0073-sqlite-states-without-tenant', '0074-sqlite-binary-ids')`.execute(
      handle,
    );
    await handle.destroy();
    const next = await startTestApp(existingStore(created.databaseUrl, created.drop));
    try {
      expect(await keyColumns(next.db, 'customer_version_states_pk')).toEqual([
        'subject_id',
        'consent_version_id',
      ]);
      expect(await keyColumns(next.db, 'customer_template_states_pk')).toEqual([
        'subject_id',
        'template_id',
      ]);
      expect(await findStoreSetting(next.db, 'oldest_release')).toBe('0.21.0');
      expect(await statesOf(next.db)).toEqual(statesBefore);
      await expectSameRecords(next, before, at, readsBefore);
      // Ann decides again on the version she decided on: her state there moves to it.
      const api = apiOf(next.app, before.headers);
      const { consent_version_id } = json(await api.latest(before.code)).data;
      const again = json(await api.decide('ann', consent_version_id, 'withdraw')).data;
      expect(again).toMatchObject({ decision: 'withdraw' });
      expect(json(await api.pending('ann', before.code)).data).toMatchObject({
        accepted: true,
        decision: 'withdraw',
      });
      const states = await statesOf(next.db);
      expect(states).toHaveLength(statesBefore.length);
      expect(states.map((row) => row.last_decision_id)).toContain(again.decision_id);
      // It runs again as a no-op.
      await stateKeysWithoutTenant.up(next.db as unknown as Kysely<unknown>);
      expect(await keyColumns(next.db, 'customer_version_states_pk')).toEqual([
        'subject_id',
        'consent_version_id',
      ]);
    } finally {
      await next.close();
    }
  });
});

describe('migration 0064 on SQLite', () => {
  const bare = useBareStore(sqliteStore);

  it('leaves the schema as it was, and raises the oldest release', async () => {
    const { db } = bare;
    expect(await migratedKeepingSqliteSchema(db, '0064')).toEqual([
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
    expect(await findStoreSetting(db, 'oldest_release')).toBe('0.21.0');
  });
});
