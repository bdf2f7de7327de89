/**
 * What a finished scan tells (docs/cookie-scans.md, "Told"): when it found a violation, or a
 * cookie or host new since the scan before, the tenant's webhook endpoints get
 * `cookie_scan.flagged`, and, with `SMTP_URL`, everyone who may edit the tenant's cookie systems
 * gets an e-mail naming the system, the counts and the scan's page.
 */
import { activeUsersWith } from '../accounts/index.js';
import { writeJournal } from '../journal/index.js';
import type { Db } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import type { Mailer } from '../platform/mail.js';
import type { ScanChanges, ScanFindings } from './findings.js';

/** A scan's page in the back-office, as an e-mail links to it. */
export function scanPageUrl(publicBaseUrl: string, scope: string, scanId: string): string {
  return `${publicBaseUrl}/backoffice/cookies/systems/${encodeURIComponent(scope)}/scans/${scanId}`;
}

export interface Teller {
  mailer: Mailer | undefined;
  /** The back-office page of a system's scan. */
  page(scope: string, scanId: string): string;
}

interface Finished {
  scan_id: string;
  system: string;
  trigger: string;
  started_at: string;
  finished_at: string | null;
  system_name: string;
}

/** Whether a scan's result calls for telling anyone. */
export function flagged(findings: ScanFindings, changes: ScanChanges): boolean {
  return (
    findings.violations.length > 0 || changes.new_cookies.length + changes.new_hosts.length > 0
  );
}

function textOf(scan: Finished, findings: ScanFindings, changes: ScanChanges, page: string) {
  const lines = [`The cookie scan of ${scan.system_name} (${scan.system}) found:`, ''];
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  if (findings.violations.length > 0) {
    lines.push(
      `- ${count(findings.violations.length, 'violation', 'violations')}: a tracker that ran before a choice or after Reject all`,
    );
  }
  if (changes.new_cookies.length > 0) {
    lines.push(
      `- ${count(changes.new_cookies.length, 'new cookie', 'new cookies')}: ${changes.new_cookies.map((c) => c.name).join(', ')}`,
    );
  }
  if (changes.new_hosts.length > 0) {
    lines.push(
      `- ${count(changes.new_hosts.length, 'new host', 'new hosts')}: ${changes.new_hosts.join(', ')}`,
    );
  }
  lines.push('', 'See the scan here:', '', `  ${page}`, '');
  return lines.join('\n');
}

/**
 * Tells of a flagged scan: the webhook event first (in its own transaction), then the e-mails,
 * each tried once (a failure is the caller's to log: the scan itself stands).
 */
export async function tellFlagged(
  db: Db,
  teller: Teller,
  tenantId: string,
  scan: Finished,
  findings: ScanFindings,
  changes: ScanChanges,
): Promise<void> {
  const data = {
    scan_id: scan.scan_id,
    system: scan.system,
    trigger: scan.trigger,
    started_at: scan.started_at,
    finished_at: scan.finished_at,
    violations_count: findings.violations.length,
    violations: findings.violations.slice(0, 50),
    new_cookies: changes.new_cookies,
    new_hosts: changes.new_hosts,
  };
  await db.transaction().execute((trx) =>
    writeJournal(trx, {
      events: [
        {
          tenant_id: tenantId,
          id: newId(),
          type: 'cookie_scan.flagged',
          record_id: null,
          subject_id: null,
          data: JSON.stringify(data),
          occurred_at: scan.finished_at ?? scan.started_at,
        },
      ],
    }),
  );
  if (!teller.mailer) return;
  const subject = `Cookie scan of ${scan.system_name}: ${
    findings.violations.length > 0 ? 'violations found' : 'new cookies or hosts'
  }`;
  const text = textOf(scan, findings, changes, teller.page(scan.system, scan.scan_id));
  for (const user of await activeUsersWith(db, tenantId, 'cookies:edit')) {
    await teller.mailer.send({ to: user.email, subject, text });
  }
}
