import type { Kysely } from 'kysely';

/**
 * The single-use links an access or portability request is answered through
 * (docs/requests.md, "What done does"): the link's token kept only as its SHA-256, when it
 * expires, and when it was used. Adds a table only: the release before runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('request_deliveries')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addPrimaryKeyConstraint('request_deliveries_pk', ['tenant_id', 'id'])
    .execute();
}
