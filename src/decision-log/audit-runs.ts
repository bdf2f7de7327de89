import { type Actor, recordAudit } from '../audit-trail/service.js';
import type { Db, Executor } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import type { SubjectVault } from '../subjects/vault.js';
import { type AuditReport, auditLog, type Finding } from './audit.js';
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
 * A person in the back-office audits their tenant's log: the report is kept as the last run
 * and the act is recorded in the audit log.
 */
export async function runLogAudit(
  db: Db,
  vault: SubjectVault,
  tenantId: string,
  actor: Actor,
): Promise<AuditReport> {
  const report = await auditLog(db, vault, tenantId);
  await saveAuditRun(db, report, actor.actor);
  await recordAudit(db, {
    ...actor,
    action: 'log.audited',
    details: { ok: report.ok, entries: report.entries, findings: report.findings.length },
  });
  return report;
}
