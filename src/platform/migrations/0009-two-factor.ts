import type { Kysely } from 'kysely';

/**
 * Two-factor sign-in (TOTP, RFC 6238) for users and operators: the shared secret, sealed under
 * the data key; the last time step used, so that a code works once; when it was turned on.
 * One-time recovery codes, kept as hashes. And the sign-in challenges: a password that was right
 * for an account with a second factor opens a short-lived challenge (only a SHA-256 of its
 * cookie kept), which the code then turns into a session.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['users', 'operators']) {
    await db.schema.alterTable(table).addColumn('totp_secret', 'text').execute();
    await db.schema.alterTable(table).addColumn('totp_last_step', 'integer').execute();
    await db.schema.alterTable(table).addColumn('two_factor_since', 'text').execute();
  }

  await db.schema
    .createTable('recovery_codes')
    .addColumn('account_kind', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addPrimaryKeyConstraint('recovery_codes_pk', ['account_kind', 'account_id', 'code_hash'])
    .execute();

  await db.schema
    .createTable('sign_in_challenges')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_kind', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text')
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('next', 'text', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sign_in_challenges_expires_idx')
    .on('sign_in_challenges')
    .column('expires_at')
    .execute();
}
