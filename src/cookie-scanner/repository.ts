/** The queries of `cookie_scans`. */
import type { Executor } from '../platform/db.js';
import type { CookieScanRow, CookieScansTable } from './table.js';

export async function insertScan(db: Executor, row: CookieScansTable): Promise<void> {
  await db.insertInto('cookie_scans').values(row).execute();
}

export async function updateScan(
  db: Executor,
  tenantId: string,
  id: string,
  change: Partial<
    Pick<CookieScansTable, 'status' | 'finished_at' | 'violations' | 'changes' | 'result' | 'error'>
  >,
): Promise<void> {
  await db
    .updateTable('cookie_scans')
    .set(change)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

/**
 * Marks `interrupted` a system's scans left `running` since before `startedBefore`: their
 * instance stopped (a scan never runs past its time limit), and they would hold the system's one
 * running place for good.
 */
export async function interruptStaleScans(
  db: Executor,
  tenantId: string,
  systemId: string,
  startedBefore: string,
  now: string,
): Promise<void> {
  await db
    .updateTable('cookie_scans')
    .set({
      status: 'interrupted',
      finished_at: now,
      error: 'Its instance stopped during the scan.',
    })
    .where('tenant_id', '=', tenantId)
    .where('system_id', '=', systemId)
    .where('status', '=', 'running')
    .where('started_at', '<', startedBefore)
    .execute();
}

export async function runningScan(
  db: Executor,
  tenantId: string,
  systemId: string,
): Promise<CookieScanRow | undefined> {
  return db
    .selectFrom('cookie_scans')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('system_id', '=', systemId)
    .where('status', '=', 'running')
    .executeTakeFirst();
}

/** The system's last finished scan before `id` (the one a new scan's changes are counted from). */
export async function lastDoneScan(
  db: Executor,
  tenantId: string,
  systemId: string,
  beforeId: string,
): Promise<CookieScanRow | undefined> {
  return db
    .selectFrom('cookie_scans')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('system_id', '=', systemId)
    .where('status', '=', 'done')
    .where('id', '<', beforeId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function findScan(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<CookieScanRow | undefined> {
  return db
    .selectFrom('cookie_scans')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A system's scans, newest first, without their findings. */
export async function listScans(
  db: Executor,
  tenantId: string,
  systemId: string,
  limit: number,
): Promise<Omit<CookieScanRow, 'result'>[]> {
  return db
    .selectFrom('cookie_scans')
    .select([
      'tenant_id',
      'id',
      'system_id',
      'status',
      'trigger',
      'actor',
      'urls',
      'pages_limit',
      'started_at',
      'finished_at',
      'violations',
      'changes',
      'error',
    ])
    .where('tenant_id', '=', tenantId)
    .where('system_id', '=', systemId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
