import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import type { AuditReport, Finding } from './audit.js';
import { findLastAuditRun, insertAuditRun } from './repository.js';

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
  await insertAuditRun(db, {
    log_id: report.log_id,
    id: newId(),
    ran_at: nowIso(),
    ran_by: ranBy,
    ok: report.ok ? 1 : 0,
    entries: report.entries,
    checkpoints: report.checkpoints,
    findings: JSON.stringify(report.findings),
  });
}

export async function lastAuditRun(db: Executor, logId: string): Promise<AuditRun | undefined> {
  const row = await findLastAuditRun(db, logId);
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

/**
 * A person in the back-office audited their tenant's log: the report is kept as the last run
 * and the act is recorded in the audit trail, together. The audit itself (`auditLog`) is a long
 * read of the whole log, made before the transaction: no writer waits for it.
 */
export async function recordLogAudit(trx: Trx, report: AuditReport, actor: Actor): Promise<void> {
  await saveAuditRun(trx, report, actor.actor);
  await recordAudit(trx, {
    ...actor,
    action: 'log.audited',
    details: { ok: report.ok, entries: report.entries, findings: report.findings.length },
  });
}
