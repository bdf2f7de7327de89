import { type Kysely, type Migration, sql } from 'kysely';
import {
  createVault0006 as createVault,
  keyFingerprint0006 as keyFingerprint,
  newId0006 as newId,
  newSalt0006 as newSalt,
  type Vault0006 as SubjectVault,
  sealPersonal0006 as sealPersonal,
  subjectCommitment0006 as subjectCommitment,
} from './0006-subjects.frozen.js';

/**
 * Erasure by crypto-shredding (docs/erasure.md): a customer becomes a subject with a random id,
 * a keyed look-up and a key of their own; the personal fields of their decisions (customer id,
 * IP address, user agent) are sealed under that key, and every other table names the subject.
 * Existing records are converted here, which is why this migration needs the data key.
 */
export function subjectsMigration(dataKey: Buffer): Migration {
  return {
    up: (db) => up(db, createVault(dataKey), keyFingerprint(dataKey)),
  };
}

async function up(db: Kysely<unknown>, vault: SubjectVault, fingerprint: string): Promise<void> {
  await db.schema
    .createTable('subjects')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('lookup', 'text')
    .addColumn('wrapped_key', 'text')
    .addColumn('salt', 'text')
    .addColumn('commitment', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('erased_at', 'text')
    .addPrimaryKeyConstraint('subjects_pk', ['tenant_id', 'id'])
    .execute();
  // Erased subjects have no look-up: NULLs never collide.
  await db.schema
    .createIndex('subjects_lookup_uq')
    .on('subjects')
    .columns(['tenant_id', 'lookup'])
    .unique()
    .execute();
  await db.schema
    .createTable('erasures')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('template_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('content_sha256', 'text', (c) => c.notNull())
    .addColumn('erased_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('erasures_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createTable('store_keys')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  const now = new Date().toISOString();
  await sql`insert into store_keys (name, fingerprint, created_at)
    values ('data', ${fingerprint}, ${now})`.execute(db);

  // Renamed rather than rebuilt: the keys and indexes follow the column.
  await db.schema.alterTable('decisions').renameColumn('customer_id', 'subject_id').execute();
  await db.schema.alterTable('decisions').addColumn('personal', 'text').execute();
  for (const table of ['customer_template_states', 'customer_version_states']) {
    await db.schema.alterTable(table).renameColumn('customer_id', 'subject_id').execute();
  }
  await db.schema
    .alterTable('idempotency_keys')
    .renameColumn('customer_id', 'customer_lookup')
    .execute();

  await convertCustomers(db, vault, now);
  await convertIdempotencyRecords(db, vault);
  await convertLookUps(db, vault);

  await db.schema.alterTable('decisions').dropColumn('ip').execute();
  await db.schema.alterTable('decisions').dropColumn('user_agent').execute();
  await db.schema.dropTable('log_subjects').execute();
}

/**
 * Each customer with decisions becomes a subject, keeping the salt their leaves were made with.
 * The customers are listed once, in a work table of their own (the decisions' column changes
 * under the loop), and read from it a page at a time in key order: one pass, whatever the size.
 */
async function convertCustomers(db: Kysely<unknown>, vault: SubjectVault, now: string) {
  await sql`create table migration_0006_customers as
    select distinct tenant_id, subject_id as customer_id from decisions`.execute(db);
  await sql`create index migration_0006_customers_idx
    on migration_0006_customers (tenant_id, customer_id)`.execute(db);
  let after = { tenant_id: '', customer_id: '' };
  for (;;) {
    const { rows } = await sql<{ tenant_id: string; customer_id: string }>`
      select tenant_id, customer_id from migration_0006_customers
      where (tenant_id, customer_id) > (${after.tenant_id}, ${after.customer_id})
      order by tenant_id, customer_id limit 500`.execute(db);
    const last = rows.at(-1);
    if (!last) break;
    for (const row of rows) await convertCustomer(db, vault, row.tenant_id, row.customer_id, now);
    after = last;
  }
  await sql`drop table migration_0006_customers`.execute(db);
}

async function convertCustomer(
  db: Kysely<unknown>,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
  now: string,
) {
  const { rows: salts } = await sql<{ salt: string; created_at: string }>`
    select salt, created_at from log_subjects
    where tenant_id = ${tenantId} and customer_id = ${customerId}`.execute(db);
  const salt = salts[0]?.salt ?? newSalt();
  const id = newId();
  const { key, wrapped } = vault.newKey(tenantId, id);
  await sql`insert into subjects
    (tenant_id, id, lookup, wrapped_key, salt, commitment, created_at, erased_at)
    values (${tenantId}, ${id}, ${vault.lookup(tenantId, customerId)}, ${wrapped}, ${salt},
      ${subjectCommitment(salt, customerId)}, ${salts[0]?.created_at ?? now}, null)`.execute(db);
  const { rows: decisions } = await sql<{ id: string; ip: string; user_agent: string | null }>`
    select id, ip, user_agent from decisions
    where tenant_id = ${tenantId} and subject_id = ${customerId}`.execute(db);
  for (const decision of decisions) {
    const personal = sealPersonal(key, decision.id, {
      customer_id: customerId,
      ip: decision.ip,
      user_agent: decision.user_agent,
    });
    await sql`update decisions set subject_id = ${id}, personal = ${personal}
      where tenant_id = ${tenantId} and id = ${decision.id}`.execute(db);
  }
  for (const table of ['customer_template_states', 'customer_version_states']) {
    await sql`update ${sql.table(table)} set subject_id = ${id}
      where tenant_id = ${tenantId} and subject_id = ${customerId}`.execute(db);
  }
}

/** Idempotency records name the customer by look-up too (a page at a time, in key order). */
async function convertIdempotencyRecords(db: Kysely<unknown>, vault: SubjectVault) {
  let after = { tenant_id: '', key: '' };
  for (;;) {
    const { rows } = await sql<{ tenant_id: string; key: string; customer_lookup: string }>`
      select tenant_id, key, customer_lookup from idempotency_keys
      where (tenant_id, key) > (${after.tenant_id}, ${after.key})
      order by tenant_id, key limit 500`.execute(db);
    const last = rows.at(-1);
    if (!last) return;
    for (const row of rows) {
      await sql`update idempotency_keys
        set customer_lookup = ${vault.lookup(row.tenant_id, row.customer_lookup)}
        where tenant_id = ${row.tenant_id} and key = ${row.key}`.execute(db);
    }
    after = last;
  }
}

/**
 * The audit log's customer look-ups name the customer's subject instead of their id, or no one
 * when the customer had no record (a page at a time, in key order).
 */
async function convertLookUps(db: Kysely<unknown>, vault: SubjectVault) {
  let after = '';
  for (;;) {
    const { rows } = await sql<{ id: string; tenant_id: string; target: string | null }>`
      select id, tenant_id, target from audit_log
      where id > ${after} and action = 'customer.looked_up'
      order by id limit 500`.execute(db);
    const last = rows.at(-1);
    if (!last) return;
    for (const row of rows) {
      const lookup = row.target === null ? null : vault.lookup(row.tenant_id, row.target);
      const { rows: subjects } = await sql<{ id: string }>`select id from subjects
        where tenant_id = ${row.tenant_id} and lookup = ${lookup}`.execute(db);
      await sql`update audit_log set target = ${subjects[0]?.id ?? null}
        where id = ${row.id}`.execute(db);
    }
    after = last.id;
  }
}
