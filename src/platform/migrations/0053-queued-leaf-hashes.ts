import type { Kysely } from 'kysely';

/**
 * From this release on, a leaf waits for the log in `tlog_pending.leaf` as its hash alone (64 hex
 * digits) instead of its text, as the log has kept it since 0052: about 65 bytes a queued leaf
 * instead of about 340, written and deleted with every record. The schema does not change.
 *
 * Release 0.5.0's integrator appends a queued hash as it does a queued text; 0.4.0's would take
 * the hash for a text and log the hash of it, so 0.4.0 must not run beside this release
 * (`oldestRelease`). Texts already queued, and any a 0.5.0 instance queues during a rolling
 * upgrade, are appended as before.
 */
export const oldestRelease = '0.5.0';

export async function up(_db: Kysely<unknown>): Promise<void> {
  // Nothing to change in the store: the oldest release it names is raised with this record.
}
