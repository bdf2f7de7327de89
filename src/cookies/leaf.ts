import { cookieEvidenceCommitment, cookieLeafText, subjectCommitment } from '../proof/index.js';
import type { ChoiceMethod } from './banner-config.js';

/** What a cookie decision gives its leaf: its record, with its personal fields opened. */
export interface LoggedCookieDecision {
  id: string;
  decided_at: string;
  configuration_id: string;
  configuration_version: number;
  content_sha256: string;
  method: ChoiceMethod;
  /** Every category of the configuration, granted or denied. */
  categories: Record<string, boolean>;
  locale: string;
  origin: string;
  evidence_salt: string;
  /** Opened from `personal`. */
  visitor_id: string;
  ip: string;
  user_agent: string | null;
  /** Where the visitor was, when known. */
  region: string | null;
  /** The A/B variant the visitor saw, when the configuration had variants. */
  variant: string | null;
  /** The subject commitment of the customer the visitor was signed in as, when they were. */
  customer: string | null;
}

/**
 * The leaf a cookie decision makes (`consent-log/cookie/v1`, src/proof/cookie-leaf.ts), from its
 * record and the visitor's subject salt: what the writer queues, and what the log's audit
 * recomputes from the store to compare with the log.
 */
export function leafOfCookieDecision(row: LoggedCookieDecision, subjectSalt: string): string {
  return committedCookieLeaf(
    row,
    subjectCommitment(subjectSalt, row.visitor_id),
    cookieEvidenceCommitment(row.evidence_salt, {
      ip: row.ip,
      userAgent: row.user_agent,
      origin: row.origin,
      locale: row.locale,
      region: row.region,
      variant: row.variant,
      customer: row.customer,
    }),
  );
}

/**
 * The leaf from its commitments: an erased visitor's choice is checked by the subject
 * commitment their subject kept, and the evidence commitment as logged.
 */
export function committedCookieLeaf(
  row: Pick<
    LoggedCookieDecision,
    | 'id'
    | 'decided_at'
    | 'configuration_id'
    | 'configuration_version'
    | 'content_sha256'
    | 'method'
    | 'categories'
  >,
  visitor: string,
  evidence: string,
): string {
  return cookieLeafText({
    recordId: row.id,
    time: row.decided_at,
    configurationId: row.configuration_id,
    version: Number(row.configuration_version),
    contentSha256: row.content_sha256,
    method: row.method,
    categories: row.categories,
    visitor,
    evidence,
  });
}
