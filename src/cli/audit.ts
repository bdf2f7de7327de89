import { type AuditReport, auditLog, saveAuditRun } from '../decision-log/index.js';
import { getTenantByAlias } from '../tenants/index.js';
import { type Commands, required } from './command.js';

/** The `audit` command (a group of the command line's table): the decision log recomputed. */
export const auditCommands: Commands = {
  audit: {
    options: ['tenant'],
    unbounded: true,
    run: async (db, o, _config, vault, registry) => {
      const tenant = await getTenantByAlias(db, required(o, 'tenant'));
      const report = await auditLog(db, vault, registry, tenant.id);
      await saveAuditRun(db, report, 'command line');
      return report;
    },
    failure: (result) => {
      const report = result as AuditReport;
      if (report.ok) return undefined;
      const kinds = [...new Set(report.findings.map((f) => f.kind))].join(', ');
      return `The audit found ${report.findings.length} problem(s) in the log: ${kinds}.`;
    },
  },
};
