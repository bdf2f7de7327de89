import type { ControlRecord, DecisionRecord } from '../../records/index.js';
import type { CsvColumn } from '../web/csv.js';
import { dayIn } from '../web/time-zone.js';

/**
 * The columns of every download of decision records (the export and the Decisions list), in
 * docs/backoffice.md. `decided_at` is the exact instant in UTC; `decided_on` is its day in the
 * tenant's time zone, named in `time_zone`: the day the filters' `from` and `to` read.
 */
export function decisionColumns(zone: string): ReadonlyArray<CsvColumn<DecisionRecord>> {
  return [
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
    // Added columns come last, so that a reader of the earlier ones reads them where it did.
    ['locale', (r) => r.locale],
    ['decided_on', (r) => dayIn(r.decided_at, zone)],
    ['time_zone', () => zone],
  ];
}

/**
 * The columns of the download of control changes (channel changes and partner blocks), in
 * docs/backoffice.md: the fields of the other kind are empty. `made_by` is the API key's id, or
 * `user:` and the back-office user's id.
 */
export function controlColumns(zone: string): ReadonlyArray<CsvColumn<ControlRecord>> {
  return [
    ['changed_at', (r) => r.changed_at],
    ['type', (r) => r.type],
    ['customer_id', (r) => r.customer_id],
    ['product_code', (r) => r.product_code],
    ['channel', (r) => r.channel],
    ['decision_id', (r) => r.decision_id],
    ['partner_code', (r) => r.partner_code],
    ['blocked', (r) => (r.blocked ? 'true' : 'false')],
    ['change_id', (r) => r.change_id],
    ['made_by', (r) => r.api_key_id ?? (r.user_id ? `user:${r.user_id}` : null)],
    ['ip', (r) => r.ip],
    ['user_agent', (r) => r.user_agent],
    ['idempotency_key', (r) => r.idempotency_key],
    ['changed_on', (r) => dayIn(r.changed_at, zone)],
    ['time_zone', () => zone],
  ];
}
