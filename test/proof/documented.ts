/**
 * The formats of docs/proof.md written again from the document, with node:crypto alone, so that
 * tests can say what the service should have produced without asking the service. They are held
 * to fixed literal vectors in formats.test.ts (and exportReceiptId in log/exports.test.ts).
 */
import { createHash } from 'node:crypto';

const sha256 = (...parts: (string | Uint8Array)[]): Buffer => {
  const hash = createHash('sha256');
  for (const part of parts)
    hash.update(typeof part === 'string' ? Buffer.from(part, 'utf8') : part);
  return hash.digest();
};

/** base64 SHA-256("subject/v1\n" || salt || customer id). */
export const documentedSubject = (salt: string, customerId: string): string =>
  sha256('subject/v1\n', Buffer.from(salt, 'base64'), customerId).toString('base64');

/** base64 SHA-256("evidence/v1\n" || salt || {"api_key_id":…,"ip":…,"ua":…}), keys in that order. */
export const documentedEvidence = (
  salt: string,
  apiKeyId: string,
  ip: string,
  ua: string | null,
): string =>
  sha256(
    'evidence/v1\n',
    Buffer.from(salt, 'base64'),
    `{"api_key_id":${JSON.stringify(apiKeyId)},"ip":${JSON.stringify(ip)},"ua":${JSON.stringify(ua)}}`,
  ).toString('base64');

/** The leaf text, line by line as documented. */
export const documentedLeaf = (f: {
  record: string;
  time: string;
  templateId: string;
  version: number;
  contentSha256: string;
  decision: string;
  subject: string;
  evidence: string;
}): string =>
  'consent-log/leaf/v1\n' +
  `record ${f.record}\n` +
  `time ${f.time}\n` +
  `template ${f.templateId} ${f.version} sha256:${f.contentSha256}\n` +
  `decision ${f.decision}\n` +
  `subject ${f.subject}\n` +
  `evidence ${f.evidence}\n`;

/** Leaf hash SHA-256(0x00 || leaf). */
export const documentedLeafHash = (leaf: string): Buffer => sha256(Uint8Array.of(0), leaf);

/** Node hash SHA-256(0x01 || left || right). */
export const documentedNodeHash = (left: Uint8Array, right: Uint8Array): Buffer =>
  sha256(Uint8Array.of(1), left, right);

/**
 * An export's receipt id: the name-based UUID (RFC 9562 version 5, SHA-1) whose namespace is the
 * decision id and whose name is the format, a newline and the checkpoint text.
 */
export function exportReceiptId(
  decisionId: string,
  format: 'iso-27560' | 'kantara',
  checkpoint: string,
): string {
  const namespace = Buffer.from(decisionId.replace(/-/g, ''), 'hex');
  const bytes = createHash('sha1')
    .update(namespace)
    .update(`${format}\n${checkpoint}`, 'utf8')
    .digest()
    .subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * base64 SHA-256("cookie-evidence/v1\n" || salt || {"ip":…,"locale":…,"origin":…,"ua":…}), keys
 * in that order.
 */
export const documentedCookieEvidence = (
  salt: string,
  ip: string,
  locale: string,
  origin: string,
  ua: string | null,
  region?: string,
): string =>
  sha256(
    'cookie-evidence/v1\n',
    Buffer.from(salt, 'base64'),
    `{"ip":${JSON.stringify(ip)},"locale":${JSON.stringify(locale)},"origin":${JSON.stringify(origin)},${region === undefined ? '' : `"region":${JSON.stringify(region)},`}"ua":${JSON.stringify(ua)}}`,
  ).toString('base64');

/** A cookie decision's leaf text, line by line as documented; categories given already sorted. */
export const documentedCookieLeaf = (f: {
  record: string;
  time: string;
  configurationId: string;
  version: number;
  contentSha256: string;
  method: string;
  categories: string;
  visitor: string;
  evidence: string;
}): string =>
  'consent-log/cookie/v1\n' +
  `record ${f.record}\n` +
  `time ${f.time}\n` +
  `configuration ${f.configurationId} ${f.version} sha256:${f.contentSha256}\n` +
  `method ${f.method}\n` +
  `categories ${f.categories}\n` +
  `visitor ${f.visitor}\n` +
  `evidence ${f.evidence}\n`;
