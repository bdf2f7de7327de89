import pg from 'pg';
import { inject } from 'vitest';
import { postgresDatabase, type TestStore } from './stores.js';

/**
 * The id columns that hold no UUID of the service's: what a client, a provider or a standard
 * names (a customer's id, a cookie choice's event, a SCIM `externalId`, an OIDC client, a
 * passkey's credential), a role's (`admin` and the like), an e-mail key's fingerprint. Every
 * other `id` and `…_id` column holds a UUID.
 */
export const notUuidColumns = [
  'customer_id',
  'event_id',
  'external_id',
  'client_id',
  'credential_id',
  'email_key_id',
  'role_id',
  'roles.id',
];

/**
 * A migrated PostgreSQL store with its ids as `uuid` columns (16 bytes instead of 37 in every
 * row and key that carries one), as a later release's migration will make them: every text `id`
 * and `…_id` column but `notUuidColumns`, the foreign keys between them dropped and made again
 * around the change. For the tests that check the service's statements run on such a store
 * (`TEST_STORE_IDS=uuid`, test/README.md).
 */
export async function useUuidIds(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('begin');
    const { rows: keys } = await client.query<{ tbl: string; name: string; def: string }>(
      `select c.conrelid::regclass::text as tbl, c.conname as name,
         pg_get_constraintdef(c.oid) as def
       from pg_constraint c join pg_namespace n on n.oid = c.connamespace
       where c.contype = 'f' and n.nspname = current_schema()`,
    );
    for (const key of keys) {
      await client.query(`alter table ${key.tbl} drop constraint ${quote(key.name)}`);
    }
    const { rows: columns } = await client.query<{ tbl: string; col: string }>(
      `select table_name as tbl, column_name as col from information_schema.columns
       where table_schema = current_schema() and data_type = 'text'
         and (column_name = 'id' or column_name like '%\\_id')
         and not (column_name = any($1) or table_name || '.' || column_name = any($1))
         and table_name not like 'kysely\\_%'
       order by table_name, column_name`,
      [notUuidColumns],
    );
    const byTable = new Map<string, string[]>();
    for (const { tbl, col } of columns) {
      byTable.set(tbl, [
        ...(byTable.get(tbl) ?? []),
        `alter column ${quote(col)} type uuid using ${quote(col)}::uuid`,
      ]);
    }
    for (const [table, changes] of byTable) {
      await client.query(`alter table ${quote(table)} ${changes.join(', ')}`);
    }
    for (const key of keys) {
      await client.query(`alter table ${key.tbl} add constraint ${quote(key.name)} ${key.def}`);
    }
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    await client.end();
  }
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** PostgreSQL with the service's schema and its ids as `uuid` columns (`useUuidIds`). */
export const postgresUuidStore: TestStore = {
  name: 'postgres',
  create: () => postgresDatabase(),
  async createMigrated() {
    const created = await postgresDatabase(inject('templateStores').postgres);
    await useUuidIds(created.databaseUrl);
    return created;
  },
};
