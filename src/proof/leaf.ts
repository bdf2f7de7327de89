import { createHash } from 'node:crypto';
import { randomBytesPooled } from '../platform/random.js';

/**
 * The bytes of a log leaf (`consent-log/leaf/v1`): they commit to the decision without holding
 * any personal data in clear. The customer id and the evidence enter only as salted SHA-256
 * commitments; whoever holds the salt and the values (the tenant, or the customer with their
 * receipt) can open them, nobody else can test a guess.
 */
export interface LeafFields {
  recordId: string;
  time: string;
  templateId: string;
  version: number;
  /** Hex SHA-256 of the text the customer was shown. */
  contentSha256: string;
  decision: 'given' | 'reject' | 'withdraw' | 'erased';
  /** base64, from `subjectCommitment`. */
  subject: string;
  /** base64, from `evidenceCommitment`; `-` in a tombstone, which has none. */
  evidence: string;
}

export const leafHeader = 'consent-log/leaf/v1';

export function leafText(f: LeafFields): string {
  return [
    leafHeader,
    `record ${f.recordId}`,
    `time ${f.time}`,
    `template ${f.templateId} ${f.version} sha256:${f.contentSha256}`,
    `decision ${f.decision}`,
    `subject ${f.subject}`,
    `evidence ${f.evidence}`,
    '',
  ].join('\n');
}

/** The fields of a leaf's text, or undefined when it is not a v1 leaf. */
export function parseLeaf(text: string): LeafFields | undefined {
  const match =
    /^consent-log\/leaf\/v1\nrecord (\S+)\ntime (\S+)\ntemplate (\S+) (\d+) sha256:([0-9a-f]{64})\ndecision (given|reject|withdraw|erased)\nsubject (\S+)\nevidence (\S+)\n$/.exec(
      text,
    );
  if (!match) return undefined;
  const [, recordId, time, templateId, version, contentSha256, decision, subject, evidence] =
    match as unknown as string[];
  return {
    recordId: recordId as string,
    time: time as string,
    templateId: templateId as string,
    version: Number(version),
    contentSha256: contentSha256 as string,
    decision: decision as LeafFields['decision'],
    subject: subject as string,
    evidence: evidence as string,
  };
}

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
}

/**
 * SHA-256("evidence/v1\n" || salt || canonical JSON {api_key_id, ip, ua}), base64. A record made
 * by a back-office user commits to {api_key_id: null, ip, ua, user_id}, one made through the
 * preference centre adds `via`: each key is there only when set, so every other record commits
 * exactly as before.
 */
export function evidenceCommitment(salt: string, evidence: Evidence): string {
  // Keys in sorted order, so this is the canonical (RFC 8785-style) JSON of the values.
  const canonical = JSON.stringify({
    api_key_id: evidence.apiKeyId,
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
