/** The queries of `cookie_scans`. */
import type { Executor } from '../platform/db.js';
import type { CookieScanRow, CookieScanSchedulesTable, CookieScansTable } from './table.js';

export async function insertScan(db: Executor, row: CookieScansTable): Promise<void> {
  await db.insertInto('cookie_scans').values(row).execute();
}

/**
 * Ends a running scan (done, failed, interrupted); a scan already ended stays as it is (one its
 * instance marked interrupted while stopping is not then called done). Answers whether it ended
 * it.
 */
export async function endScan(
  db: Executor,
  tenantId: string,
  id: string,
  change: Partial<
    Pick<CookieScansTable, 'status' | 'finished_at' | 'violations' | 'changes' | 'result' | 'error'>
  >,
): Promise<boolean> {
  const result = await db
    .updateTable('cookie_scans')
    .set(change)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The schedule of a system, if it has one. */
export async function findSchedule(
  db: Executor,
  tenantId: string,
  systemId: string,
): Promise<CookieScanSchedulesTable | undefined> {
  return db
    .selectFrom('cookie_scan_schedules')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('system_id', '=', systemId)
    .executeTakeFirst();
}

export async function putSchedule(db: Executor, row: CookieScanSchedulesTable): Promise<void> {
  await db
    .insertInto('cookie_scan_schedules')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'system_id']).doUpdateSet((eb) => ({
        every_days: eb.ref('excluded.every_days'),
        pages: eb.ref('excluded.pages'),
        next_at: eb.ref('excluded.next_at'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}

export async function deleteSchedule(
  db: Executor,
  tenantId: string,
  systemId: string,
): Promise<void> {
  await db
    .deleteFrom('cookie_scan_schedules')
    .where('tenant_id', '=', tenantId)
    .where('system_id', '=', systemId)
    .execute();
}

/** Schedules due by `now`, the longest due first. */
export async function dueSchedules(
  db: Executor,
  now: string,
  limit: number,
): Promise<CookieScanSchedulesTable[]> {
  return db
    .selectFrom('cookie_scan_schedules')
    .selectAll()
    .where('next_at', '<=', now)
    .orderBy('next_at')
    .limit(limit)
    .execute();
}

/**
 * Moves a due schedule on to `next`, if it is still due at `was` (another instance's pass may
 * have taken it): answers whether this pass took it.
 */
export async function takeSchedule(
  db: Executor,
  row: CookieScanSchedulesTable,
  next: string,
): Promise<boolean> {
  const result = await db
    .updateTable('cookie_scan_schedules')
    .set({ next_at: next })
    .where('tenant_id', '=', row.tenant_id)
    .where('system_id', '=', row.system_id)
    .where('next_at', '=', row.next_at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
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

/**
 * The system's newest finished scan, or the last before `beforeId` (the one a new scan's changes
 * are counted from).
 */
export async function lastDoneScan(
  db: Executor,
  tenantId: string,
  systemId: string,
  beforeId?: string,
): Promise<CookieScanRow | undefined> {
  let query = db
    .selectFrom('cookie_scans')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('system_id', '=', systemId)
    .where('status', '=', 'done');
  if (beforeId !== undefined) query = query.where('id', '<', beforeId);
  return query.orderBy('id', 'desc').limit(1).executeTakeFirst();
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
