import type { Executor } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import type { AuditReport, Finding } from './audit.js';

export interface AuditRun {
  ran_at: string;
  ran_by: string;
  ok: boolean;
  entries: number;
  checkpoints: number;
  findings: Finding[];
}

/** Keeps an audit's result (who ran it, when, what it found). */
export async function saveAuditRun(db: Executor, report: AuditReport, ranBy: string) {
  await db
    .insertInto('tlog_audits')
    .values({
      log_id: report.log_id,
      id: newId(),
      ran_at: nowIso(),
      ran_by: ranBy,
      ok: report.ok ? 1 : 0,
      entries: report.entries,
      checkpoints: report.checkpoints,
      findings: JSON.stringify(report.findings),
    })
    .execute();
}

export async function lastAuditRun(db: Executor, logId: string): Promise<AuditRun | undefined> {
  const row = await db
    .selectFrom('tlog_audits')
    .selectAll()
    .where('log_id', '=', logId)
    .orderBy('ran_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    ran_at: row.ran_at,
    ran_by: row.ran_by,
    ok: Number(row.ok) === 1,
    entries: Number(row.entries),
    checkpoints: Number(row.checkpoints),
    findings: JSON.parse(row.findings) as Finding[],
  };
}
