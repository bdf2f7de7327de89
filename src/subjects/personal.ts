import { type ActedBy, isActedBy } from '../proof/index.js';
import { openFields, sealFields } from './crypto.js';

/** What is personal in a decision: sealed under the customer's key, bound to the record's id. */
export interface PersonalFields {
  customer_id: string;
  ip: string;
  user_agent: string | null;
  /**
   * The channel the record came through (`preference-centre`), part of its evidence: sealed
   * only when set, so every other record's sealed fields stay as they were.
   */
  via?: string;
  /**
   * The explicit act behind a consent to sensitive data (how the person confirmed, the text
   * shown), part of its evidence: sealed only when set.
   */
  explicit?: { method: string; text_shown: string };
  /** Who acted (the subject or a representative) and the basis stated: sealed only when set. */
  acted_by?: ActedBy;
}

export function sealPersonal(key: Buffer, recordId: string, fields: PersonalFields): string {
  return sealFields(key, recordId, {
    customer_id: fields.customer_id,
    ip: fields.ip,
    user_agent: fields.user_agent,
    ...(fields.via ? { via: fields.via } : {}),
    ...(fields.explicit ? { explicit: fields.explicit } : {}),
    ...(fields.acted_by ? { acted_by: fields.acted_by } : {}),
  });
}

/** The fields sealed for the record; throws when the key or the sealed bytes are not its own. */
export function openPersonal(key: Buffer, recordId: string, sealed: string): PersonalFields {
  const fields = openFields(key, recordId, sealed);
  const { customer_id, ip, user_agent, via, explicit, acted_by } = fields;
  if (typeof customer_id !== 'string' || typeof ip !== 'string') {
    throw new Error(`the sealed fields of record ${recordId} are incomplete`);
  }
  return {
    customer_id,
    ip,
    user_agent: typeof user_agent === 'string' ? user_agent : null,
    ...(typeof via === 'string' ? { via } : {}),
    ...(isExplicit(explicit) ? { explicit } : {}),
    ...(isActedBy(acted_by) ? { acted_by } : {}),
  };
}

function isExplicit(value: unknown): value is { method: string; text_shown: string } {
  if (typeof value !== 'object' || value === null) return false;
  const { method, text_shown: text } = value as Record<string, unknown>;
  return typeof method === 'string' && typeof text === 'string';
}

/**
 * A text of the customer's (what they wrote with a request, a note about them), sealed under
 * their key and bound to `binding` (the row it is kept in): gone with the key on erasure.
 */
export function sealText(key: Buffer, binding: string, text: string): string {
  return sealFields(key, binding, { text });
}

/** A text sealed by `sealText`; throws when the key or the sealed bytes are not its own. */
export function openText(key: Buffer, binding: string, sealed: string): string {
  const { text } = openFields(key, binding, sealed);
  if (typeof text !== 'string') throw new Error(`the sealed text of ${binding} is incomplete`);
  return text;
}
