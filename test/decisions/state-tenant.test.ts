/**
 * A customer's states (`customer_version_states`, `customer_template_states`) name their tenant
 * in a column of their own until a migration drops it (0071 on PostgreSQL, 0073 on SQLite, which
 * also takes it out of the key), and on none after it (`StateTenant`,
 * src/platform/id-type.ts): a subject's id is never shared between tenants. The service runs on
 * either form of either store: one scripted session of the public API answers byte for byte
 * alike on both, its receipts verify and the audit is clean; the reads of a tenant's states as a
 * whole (the back-office's counts of a template's customers, the counts of customers per version
 * and decision of an evidence pack, a customer's decided templates) and an erasure reach that
 * tenant's states only, with a second tenant's customers of the same ids beside them. Each
 * migration drops the column on a store with states in it and writes each table again: every
 * state reads as it did, the same reads answer the same bytes. Each leaves the other store's
 * schema as it was.
 */
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { findDecidedTemplates } from '../../src/decisions/record-repository.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db, isPostgres } from '../../src/platform/db.js';
import { knownTypes, resolveIdType } from '../../src/platform/id-type.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import * as statesWithoutTenant from '../../src/platform/migrations/0071-states-without-tenant.js';
import * as sqliteStatesWithoutTenant from '../../src/platform/migrations/0073-sqlite-states-without-tenant.js';
import { findStoreSetting } from '../../src/platform/store-settings-repository.js';
import { countCustomersPerVersionAndDecision } from '../../src/records/evidence-repository.js';
import {
  countCustomersOnVersion,
  countCustomersPerTemplate,
} from '../../src/templates/reach-repository.js';
import { expectSameRecords, reads, type Session, session } from '../helpers/api-session.js';
import { startTestApp, type TestApp, testDataKey } from '../helpers/app.js';
import {
  columnsOf,
  migrateBefore,
  migratedKeepingSqliteSchema,
  postgresStatesWithTenantStore,
  sqliteSchema,
  sqliteStatesWithTenantStore,
} from '../helpers/schema-history.js';
import { postgresStore, sqliteStore, useBareStore } from '../helpers/stores.js';
import { existingStore } from '../helpers/uuid-ids.js';

const migration = '0071-states-without-tenant';
const tables = ['customer_version_states', 'customer_template_states'];

/** A table's key's columns, in order, from the store's catalogue. */
async function keyOf(db: Db, table: string): Promise<string[]> {
  const { rows } = isPostgres(db)
    ? await sql<{ name: string }>`select a.attname::text as name
        from pg_index as i join pg_attribute as a
          on a.attrelid = i.indrelid and a.attnum = any (i.indkey)
        where i.indrelid = ${table}::regclass and i.indisprimary
        order by array_position(i.indkey::int2[], a.attnum)`.execute(db)
    : await sql<{ name: string }>`select name from pragma_table_info(${table})
        where pk > 0 order by pk`.execute(db);
  return rows.map((row) => row.name);
}

const by = { actorKind: 'operator', actor: 'test', ip: '127.0.0.1', userAgent: null } as const;

/** The tenant's template of the session, its two releases (1.0, 1.1) and its customers' subjects. */
async function recordsOf(t: TestApp, s: Session) {
  const { rows: versions } = await sql<{ template_id: string; id: string }>`
    select v.template_id, v.id from template_versions as v
    join templates as t on t.tenant_id = v.tenant_id and t.id = v.template_id
    where v.tenant_id = ${s.tenantId} and t.code = ${s.code} and v.id = v.release_id
    order by v.version`.execute(t.db);
  const subjectIds = (
    await sql<{ id: string }>`select id from subjects where tenant_id = ${s.tenantId}
      order by created_at`.execute(t.db)
  ).rows.map((row) => row.id);
  return {
    templateId: versions[0]?.template_id as string,
    releaseIds: versions.map((v) => v.id),
    subjectIds,
  };
}

/** What the reads of a tenant's states as a whole answer, ids replaced by what they name. */
async function tenantWide(t: TestApp, s: Session) {
  const { templateId, releaseIds, subjectIds } = await recordsOf(t, s);
  const release = (id: string) => `1.${releaseIds.indexOf(id)}`;
  const perVersion = await countCustomersPerVersionAndDecision(t.db, s.tenantId, releaseIds);
  const decided = await t.db
    .transaction()
    .execute((trx) => findDecidedTemplates(trx, s.tenantId, subjectIds[0] as string));
  return {
    perTemplate: (await countCustomersPerTemplate(t.db, s.tenantId)).map((row) => ({
      template: row.template_id === templateId ? 'the session’s' : row.template_id,
      count: Number(row.count),
    })),
    onRelease: [
      await countCustomersOnVersion(t.db, s.tenantId, releaseIds[0] as string),
      await countCustomersOnVersion(t.db, s.tenantId, releaseIds[1] as string),
    ],
    perVersion: perVersion
      .map((row) => `${release(row.consent_version_id)} ${row.last_decision} ${Number(row.count)}`)
      .sort(),
    decided: decided.map((row) => ({
      template: row.template_id === templateId ? 'the session’s' : row.template_id,
      version: row.version,
    })),
  };
}

const forms = [
  // PostgreSQL's key led with the subject before its column went (0064, then 0071); SQLite's
  // loses both at once (0073).
  {
    store: 'PostgreSQL',
    withTenant: postgresStatesWithTenantStore,
    keyWithTenant: 'subject',
    withoutTenant: postgresStore,
  },
  {
    store: 'SQLite',
    withTenant: sqliteStatesWithTenantStore,
    keyWithTenant: 'tenant',
    withoutTenant: sqliteStore,
  },
];

describe.each(forms)('$store states with and without their tenant in a column', (form) => {
  let onColumn: TestApp;
  let onNone: TestApp;
  beforeAll(async () => {
    onColumn = await startTestApp(form.withTenant);
    onNone = await startTestApp(form.withoutTenant);
  });
  afterAll(async () => {
    await onColumn?.close();
    await onNone?.close();
  });

  it('the service reads the form from the store', async () => {
    for (const table of tables) {
      expect(await columnsOf(onColumn.db, table)).toContain('tenant_id');
      expect(await columnsOf(onNone.db, table)).not.toContain('tenant_id');
      expect(await keyOf(onNone.db, table)).not.toContain('tenant_id');
    }
    await resolveIdType(onColumn.db);
    await resolveIdType(onNone.db);
    expect(knownTypes(onColumn.db)).toMatchObject({
      stateKey: form.keyWithTenant,
      stateTenant: 'column',
    });
    expect(knownTypes(onNone.db)).toMatchObject({ stateKey: 'subject', stateTenant: 'none' });
  });

  it('a scripted session answers byte for byte alike on both; receipts verify, the audit is clean', async () => {
    const onColumnSession = await session(onColumn);
    const onNoneSession = await session(onNone);
    expect(onNoneSession.answers).toEqual(onColumnSession.answers);
    expect(onNoneSession.receipts).toEqual([true, true]);
    expect(onNoneSession.audit).toMatchObject({ ok: true, findings: [] });
  });

  it("a tenant's states read as a whole and an erasure reach that tenant's alone", async () => {
    const answers = [];
    for (const t of [onColumn, onNone]) {
      // Two tenants, each with customers `ann` and `bob`.
      const a = await session(t);
      const b = await session(t);
      const before = await tenantWide(t, a);
      // ann: given on 1.0, then on 1.1, whose `allow_reconsent: false` refuses her reject; bob:
      // a withdraw refused (nothing given), then given on 1.1 (section 5).
      expect(before).toEqual({
        perTemplate: [{ template: 'the session’s', count: 2 }],
        onRelease: [1, 2],
        perVersion: ['1.0 given 1', '1.1 given 2'],
        decided: [{ template: 'the session’s', version: 2 }],
      });
      expect(await tenantWide(t, b)).toEqual(before);

      const erased = await eraseCustomer(t.db, t.vault, registry, a.tenantId, 'ann', by);
      expect(erased).toMatchObject({ erased: true });
      const after = await tenantWide(t, a);
      expect(after).toEqual({
        perTemplate: [{ template: 'the session’s', count: 1 }],
        onRelease: [0, 1],
        perVersion: ['1.1 given 1'],
        decided: [],
      });
      // The other tenant's ann keeps her states.
      expect(await tenantWide(t, b)).toEqual(before);
      answers.push({ before, after });
    }
    expect(answers[1]).toEqual(answers[0]);
  });
});

/** Every state of the store, with the tenant of its subject, in one order. */
async function statesOf(t: TestApp) {
  const { rows: onVersions } = await sql`select s.tenant_id, st.subject_id,
      st.consent_version_id, st.last_decision_id, st.last_decision, st.last_decided_at
    from customer_version_states as st join subjects as s on s.id = st.subject_id
    order by st.subject_id, st.consent_version_id`.execute(t.db);
  const { rows: onTemplates } = await sql`select s.tenant_id, st.subject_id, st.template_id,
      st.decision_count, st.last_decision_id, st.last_decision, st.last_consent_version_id,
      st.last_decided_at
    from customer_template_states as st join subjects as s on s.id = st.subject_id
    order by st.subject_id, st.template_id`.execute(t.db);
  return { onVersions, onTemplates };
}

/**
 * What a migration test records on a store of the old form before migrating it: two tenants'
 * sessions, the second's `bob` erased, and what each tenant's reads and the states answer then.
 */
async function recordOn(old: TestApp) {
  const before = await session(old);
  const other = await session(old);
  await eraseCustomer(old.db, old.vault, registry, other.tenantId, 'bob', by);
  const at = new Date().toISOString();
  const readsBefore = await reads(old, before, at);
  const otherReads = await reads(old, other, at);
  const statesBefore = await statesOf(old);
  expect(statesBefore.onVersions.length).toBeGreaterThan(2);
  return { before, other, at, readsBefore, otherReads, statesBefore };
}

/** The file each table's rows are in: a table written again is in a new one. */
async function filesOf(t: TestApp) {
  const { rows } = await sql<{ file: string }>`select pg_relation_filenode(t)::text as file
    from unnest(${tables}::regclass[]) as t`.execute(t.db);
  return rows.map((row) => row.file);
}

describe('migration 0071 on a PostgreSQL store with states in it', () => {
  it("drops the states' tenant and writes each table again; every state reads as it did, the same reads answer the same bytes, receipts verify, the audit is clean", async () => {
    const created = await postgresStatesWithTenantStore.createMigrated!();
    const old = await startTestApp(existingStore(created.databaseUrl));
    const { before, other, at, readsBefore, otherReads, statesBefore } = await recordOn(old);
    const filesBefore = await filesOf(old);
    for (const table of tables) expect(await columnsOf(old.db, table)).toContain('tenant_id');
    await old.close();
    // Started again as the release with 0071, which its start applies.
    const handle = createDb(loadConfig({ DATABASE_URL: created.databaseUrl }));
    await sql`delete from kysely_migration
      where name in (${migration}, '0072-sqlite-keys-without-tenant', '0073-sqlite-states-without-tenant', '0074-sqlite-binary-ids')`.execute(
      handle,
    );
    await handle.destroy();
    const next = await startTestApp(existingStore(created.databaseUrl, created.drop));
    try {
      for (const table of tables)
        expect(await columnsOf(next.db, table)).not.toContain('tenant_id');
      const filesAfter = await filesOf(next);
      for (const [i, file] of filesAfter.entries()) expect(file).not.toBe(filesBefore[i]);
      expect(await findStoreSetting(next.db, 'oldest_release')).toBe('0.21.0');
      expect(await statesOf(next)).toEqual(statesBefore);
      await expectSameRecords(next, before, at, readsBefore);
      expect(await reads(next, other, at)).toEqual(otherReads);
      // It records on, and runs again as a no-op.
      expect((await session(next)).answers).toEqual(before.answers);
      const filesNow = await filesOf(next);
      await statesWithoutTenant.up(next.db as unknown as Kysely<unknown>);
      expect(await filesOf(next)).toEqual(filesNow);
    } finally {
      await next.close();
    }
  });
});

describe('migration 0071 on SQLite', () => {
  const bare = useBareStore(sqliteStore);

  it('leaves the schema as it was, and raises the oldest release', async () => {
    const { db } = bare;
    expect(await migratedKeepingSqliteSchema(db, '0071', migration)).toEqual([
      migration,
      '0072-sqlite-keys-without-tenant',
      '0073-sqlite-states-without-tenant',
      '0074-sqlite-binary-ids',
    ]);
    expect(await findStoreSetting(db, 'oldest_release')).toBe('0.21.0');
  });
});

describe('migration 0073 on a SQLite store with states in it', () => {
  it("drops the states' tenant from their rows and keys; every state reads as it did, the same reads answer the same bytes, receipts verify, the audit is clean", async () => {
    const created = await sqliteStatesWithTenantStore.createMigrated!();
    const old = await startTestApp(existingStore(created.databaseUrl, async () => {}, 'sqlite'));
    const { before, other, at, readsBefore, otherReads, statesBefore } = await recordOn(old);
    for (const table of tables) expect(await keyOf(old.db, table)).toContain('tenant_id');
    await old.close();
    // Started again as the release with 0073, which its start applies.
    const handle = createDb(loadConfig({ DATABASE_URL: created.databaseUrl }));
    await sql`delete from kysely_migration
      where name in ('0073-sqlite-states-without-tenant', '0074-sqlite-binary-ids')`.execute(
      handle,
    );
    await handle.destroy();
    const next = await startTestApp(existingStore(created.databaseUrl, created.drop, 'sqlite'));
    try {
      expect(await columnsOf(next.db, 'customer_version_states')).toEqual([
        'subject_id',
        'consent_version_id',
        'last_decision_id',
        'last_decision',
        'last_decided_at',
      ]);
      expect(await keyOf(next.db, 'customer_version_states')).toEqual([
        'subject_id',
        'consent_version_id',
      ]);
      expect(await columnsOf(next.db, 'customer_template_states')).not.toContain('tenant_id');
      expect(await keyOf(next.db, 'customer_template_states')).toEqual([
        'subject_id',
        'template_id',
      ]);
      expect(await findStoreSetting(next.db, 'oldest_release')).toBe('0.21.0');
      expect(await statesOf(next)).toEqual(statesBefore);
      await expectSameRecords(next, before, at, readsBefore);
      expect(await reads(next, other, at)).toEqual(otherReads);
      // It records on; a state is unique under its new key; it runs again as a no-op.
      expect((await session(next)).answers).toEqual(before.answers);
      const [state] = (await statesOf(next)).onVersions as Array<Record<string, unknown>>;
      await expect(
        sql`insert into customer_version_states (subject_id, consent_version_id,
          last_decision_id, last_decision, last_decided_at)
          values (${state?.subject_id}, ${state?.consent_version_id}, 'x', 'given', ${at})`.execute(
          next.db,
        ),
      ).rejects.toThrow(/UNIQUE constraint failed/);
      const schema = await sqliteSchema(next.db);
      await sqliteStatesWithoutTenant.up(next.db as unknown as Kysely<unknown>);
      expect(await sqliteSchema(next.db)).toEqual(schema);
    } finally {
      await next.close();
    }
  });
});

describe('migration 0073 on PostgreSQL', () => {
  const bare = useBareStore(postgresStore);

  it('leaves the schema as it was, and raises the oldest release', async () => {
    const { db } = bare;
    await migrateBefore(db, '0073');
    const columns = await columnsOf(db, 'customer_version_states');
    expect(await migrateToLatest(db, testDataKey)).toEqual([
      '0073-sqlite-states-without-tenant',
      '0074-sqlite-binary-ids',
    ]);
    expect(await columnsOf(db, 'customer_version_states')).toEqual(columns);
    expect(await findStoreSetting(db, 'oldest_release')).toBe('0.21.0');
  });
});
