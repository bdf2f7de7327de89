import { createHash } from 'node:crypto';
import { randomBytesPooled } from '../platform/random.js';
import { type ActedBy, canonicalActedBy } from './acted-by.js';

/** A new random salt (16 bytes, base64). */
export function newSalt(): string {
  return randomBytesPooled(16).toString('base64');
}

/** SHA-256("subject/v1\n" || salt || customer id), base64. Customer ids are compared exactly. */
export function subjectCommitment(salt: string, customerId: string): string {
  return createHash('sha256')
    .update('subject/v1\n')
    .update(Buffer.from(salt, 'base64'))
    .update(customerId, 'utf8')
    .digest('base64');
}

/**
 * The evidence kept with a record, as the leaf commits to it. Who made it is an API key, or, for
 * a control changed in the back-office, a user: then `apiKeyId` is null and `userId` is set.
 * `via` names the channel the record came through when it was not the API itself
 * (`preference-centre`: the customer's own page).
 */
export interface Evidence {
  ip: string;
  userAgent: string | null;
  apiKeyId: string | null;
  userId?: string | null;
  via?: string | null;
  /** The explicit act behind a `given` on sensitive data (PDPA section 26), when there was one. */
  explicit?: ExplicitAct | null | undefined;
  /** Who acted, when the client said (PDPA section 20): the subject or a representative. */
  actedBy?: ActedBy | null | undefined;
}

/** How a person may confirm a consent to sensitive data. */
export const explicitMethods = ['separate-tick', 'signature', 'one-time-code'] as const;

/** How a person confirmed a consent to sensitive data, and the exact text they confirmed. */
export interface ExplicitAct {
  method: (typeof explicitMethods)[number];
  text_shown: string;
}

/**
 * SHA-256("evidence/v1\n" || salt || canonical JSON {api_key_id, ip, ua}), base64. A record made
 * by a back-office user commits to {api_key_id: null, ip, ua, user_id}, one made through the
 * preference centre adds `via`, one with an explicit act (a consent to sensitive data) adds
 * `explicit` ({method, text_shown}), one whose client said who acted adds `acted_by` ({role,
 * reference, age_band, court_order, co_consent}, each key only when set): each key is there only
 * when set, so every other record commits exactly as before.
 */
export function evidenceCommitment(salt: string, evidence: Evidence): string {
  // Keys in sorted order, so this is the canonical (RFC 8785-style) JSON of the values.
  const canonical = JSON.stringify({
    ...(evidence.actedBy ? { acted_by: canonicalActedBy(evidence.actedBy) } : {}),
    api_key_id: evidence.apiKeyId,
    ...(evidence.explicit
      ? { explicit: { method: evidence.explicit.method, text_shown: evidence.explicit.text_shown } }
      : {}),
    ip: evidence.ip,
    ua: evidence.userAgent,
    ...(evidence.userId ? { user_id: evidence.userId } : {}),
    ...(evidence.via ? { via: evidence.via } : {}),
  });
  return createHash('sha256')
    .update('evidence/v1\n')
    .update(Buffer.from(salt, 'base64'))
    .update(canonical, 'utf8')
    .digest('base64');
}
