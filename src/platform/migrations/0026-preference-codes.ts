import type { Kysely } from 'kysely';

/**
 * E-mail sign-in to the preference centre, for tenants whose customer ids are e-mail addresses.
 * - `preference_centres.email_key_id`: the tenant's API key that sign-ins by e-mail act under
 *   (it stands as the key of the records made after one); null: e-mail sign-in is off.
 * - `preference_codes`: each one-time code asked for. The address is kept only as the customer's
 *   keyed look-up, the code only as an HMAC of the row's id and the code; `tries` counts wrong
 *   codes, `used_at` marks the one use. The index serves the hourly count per address.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('preference_centres').addColumn('email_key_id', 'text').execute();
  await db.schema
    .createTable('preference_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('lookup', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('tries', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema
    .createIndex('preference_codes_lookup_idx')
    .on('preference_codes')
    .columns(['tenant_id', 'lookup', 'created_at'])
    .execute();
}
