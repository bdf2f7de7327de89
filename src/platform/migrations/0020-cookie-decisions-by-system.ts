import type { Kysely } from 'kysely';

/**
 * A system's choices are found by an index that starts with the system, not the tenant. With
 * (tenant, system, time), PostgreSQL could answer a retry's look-up by event id — (tenant,
 * system, event id), the unique constraint — through the time index instead, reading every
 * choice of the system, whenever the table's statistics were stale: on a store that had just
 * started taking choices, each batch read them all. An index on (system, time, id) cannot serve
 * that look-up, so the unique constraint always does. A system id names one tenant's system, so
 * the listings (a system's choices by time, then id) lose nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('cookie_decisions_system_idx').execute();
  await db.schema
    .createIndex('cookie_decisions_system_time_idx')
    .on('cookie_decisions')
    .columns(['system_id', 'decided_at', 'id'])
    .execute();
}
