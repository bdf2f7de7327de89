import type { Kysely } from 'kysely';

/**
 * An endpoint's secret before its last rotation, and until when it still signs beside the new
 * one (docs/webhooks.md, "Rotating the secret"). Endpoints never rotated have neither.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // One column a statement: SQLite's ALTER TABLE adds one at a time.
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('previous_secret_sealed', 'text')
    .execute();
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('previous_secret_signs_until', 'text')
    .execute();
}
