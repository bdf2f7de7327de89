import type { Kysely } from 'kysely';

/**
 * A tenant's own classification of cookies and hosts (docs/cookie-scans.md, "Classification"):
 * `cookie_classification_overrides`, one row per cookie name (or prefix ending in `*`) or host,
 * which wins over the Open Cookie Database and the host list in every later scan. Adds a table
 * only: the release before runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('cookie_classification_overrides')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('pattern', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('provider', 'text')
    .addColumn('purpose', 'text')
    .addColumn('retention', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('cookie_classification_overrides_pk', ['tenant_id', 'kind', 'pattern'])
    .execute();
}
