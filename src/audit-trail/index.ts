/** The public surface of `src/audit-trail/`: what other folders may import (its README says what the folder is for). */
export {
  type Actor,
  type AuditCursor,
  type AuditEntry,
  type AuditFilter,
  type AuditListItem,
  type AuditScope,
  auditActions,
  exportAudit,
  listAudit,
  recordAudit,
} from './service.js';
