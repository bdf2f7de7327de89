/**
 * Scans on a schedule (docs/cookie-scans.md, "Scans now and on a schedule"): a system scanned
 * every 1 to 90 days, the first at the next pass after it is set; each instance runs the pass,
 * and the first to take a due schedule (moving it on by its period) scans. A system whose scan
 * is running (started by hand, or by another instance) is skipped until its next time.
 */
import { type Actor, recordAudit } from '../audit-trail/index.js';
import { getSystem, systemById } from '../cookies/index.js';
import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { addDaysIso, nowIso } from '../platform/time.js';
import {
  deleteSchedule,
  dueSchedules,
  findSchedule,
  putSchedule,
  takeSchedule,
} from './repository.js';
import type { ScanRunner } from './runner.js';
import { defaultPages, maxPages } from './service.js';

export const maxEveryDays = 90;

/** A system's schedule as the back-office shows it: none, or every so many days. */
export interface ScanSchedule {
  every_days: number;
  pages: number;
  next_at: string;
}

export async function getScanSchedule(
  db: Db,
  tenantId: string,
  scope: string,
): Promise<ScanSchedule | undefined> {
  const system = await getSystem(db, tenantId, scope);
  const row = await findSchedule(db, tenantId, system.id);
  return row && { every_days: row.every_days, pages: row.pages, next_at: row.next_at };
}

/**
 * Sets (or, with `every_days` null, ends) a system's schedule; audited
 * (`cookie_system.scan_scheduled`). `400 1001` for a period or a page count out of range.
 */
export async function setScanSchedule(
  db: Db,
  actor: Actor,
  tenantId: string,
  scope: string,
  input: { every_days: number | null; pages?: number },
): Promise<ScanSchedule | undefined> {
  const system = await getSystem(db, tenantId, scope);
  const { every_days: every } = input;
  const pages = input.pages ?? defaultPages;
  const details = [
    ...(every !== null && !(Number.isInteger(every) && every >= 1 && every <= maxEveryDays)
      ? [{ field: 'every_days', issue: `is not a whole number of days from 1 to ${maxEveryDays}` }]
      : []),
    ...(!(Number.isInteger(pages) && pages >= 1 && pages <= maxPages)
      ? [{ field: 'pages', issue: `is not a whole number from 1 to ${maxPages}` }]
      : []),
  ];
  if (details.length > 0) throw new AppError('invalidRequest', { details });
  const now = nowIso();
  return db.transaction().execute(async (trx) => {
    if (every === null) await deleteSchedule(trx, tenantId, system.id);
    else {
      await putSchedule(trx, {
        tenant_id: tenantId,
        system_id: system.id,
        every_days: every,
        pages,
        next_at: now,
        updated_at: now,
      });
    }
    await recordAudit(trx, {
      ...actor,
      tenantId,
      action: 'cookie_system.scan_scheduled',
      target: scope,
      details: { every_days: every, pages: every === null ? null : pages },
    });
    return every === null ? undefined : { every_days: every, pages, next_at: now };
  });
}

/**
 * One pass: each schedule due, taken and moved on by its period, then scanned to its end by
 * `runner`, one after another. Answers how many scans it ran. A system whose scan is running is
 * skipped; a scan that failed is kept `failed` (and told to `onError`) and the pass goes on.
 */
export async function runDueScans(
  db: Db,
  runner: ScanRunner,
  onError: (error: unknown) => void,
  now = nowIso(),
): Promise<number> {
  let ran = 0;
  for (const due of await dueSchedules(db, now, 20)) {
    if (!(await takeSchedule(db, due, addDaysIso(now, due.every_days)))) continue;
    try {
      const system = await systemById(db, due.tenant_id, due.system_id);
      if (!system) continue;
      const order = {
        tenantId: due.tenant_id,
        system: system.scope,
        pages: due.pages,
        trigger: 'schedule' as const,
        actor: 'schedule',
      };
      await runner.run(order);
      ran += 1;
    } catch (error) {
      if (error instanceof AppError && error.kind === 'conflict') continue;
      onError(error);
    }
  }
  return ran;
}
