import type { DecisionRecord } from '../../records/index.js';
import type { CsvColumn } from '../web/csv.js';

/** The columns of every download of decision records: the export and the Decisions list. */
export const decisionColumns: ReadonlyArray<CsvColumn<DecisionRecord>> = [
  ['decided_at', (r) => r.decided_at],
  ['customer_id', (r) => r.customer_id],
  ['template_code', (r) => r.template_code],
  ['version', (r) => r.version],
  ['tag', (r) => r.tag],
  ['decision', (r) => r.decision],
  ['decision_id', (r) => r.decision_id],
  ['api_key_name', (r) => r.api_key_name],
  ['api_key_prefix', (r) => r.api_key_prefix],
  ['ip', (r) => r.ip],
  ['user_agent', (r) => r.user_agent],
  ['content_sha256', (r) => r.content_sha256],
  // Last, so that a reader of the columns before locales reads them where it did.
  ['locale', (r) => r.locale],
];
