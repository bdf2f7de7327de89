import { createHash } from 'node:crypto';
import { subjectCommitment } from './commitments.js';
import { hasStrings, type LeafFormat } from './leaf-format.js';
import { fail, ok, type Result } from './result.js';

/**
 * The bytes of a website visitor's cookie choice in the log (`consent-log/cookie/v1`), beside
 * the decisions' `consent-log/leaf/v1`. Like a decision's, it holds nothing personal in clear:
 * the visitor id and the evidence enter only as salted SHA-256 commitments. Add formats, never
 * alter one: old receipts verify against it.
 *
 * ```
 * consent-log/cookie/v1
 * record <cookie decision id>
 * time <ISO 8601 UTC>
 * configuration <configuration id> <version> sha256:<hex of the configuration's content>
 * method <accept-all|reject-all|custom|gpc>
 * categories <key>=<0|1> … (every category of the configuration, sorted by key)
 * visitor <base64 commitment>
 * evidence <base64 commitment>
 * ```
 */
export interface CookieLeafFields {
  recordId: string;
  time: string;
  configurationId: string;
  version: number;
  /** Hex SHA-256 of the canonical JSON of the configuration's content the visitor was shown. */
  contentSha256: string;
  method: 'accept-all' | 'reject-all' | 'custom' | 'gpc';
  /** Every category of the configuration: granted (true) or denied. */
  categories: Record<string, boolean>;
  /**
   * base64: `subjectCommitment(salt, visitor id)` (leaf.ts), the visitor's subject commitment,
   * which an erasure's tombstone names as it names a customer's.
   */
  visitor: string;
  /** base64, from `cookieEvidenceCommitment`. */
  evidence: string;
}

export const cookieLeafHeader = 'consent-log/cookie/v1';

export function cookieLeafText(f: CookieLeafFields): string {
  const categories = Object.keys(f.categories)
    .sort()
    .map((key) => `${key}=${f.categories[key] ? 1 : 0}`)
    .join(' ');
  return [
    cookieLeafHeader,
    `record ${f.recordId}`,
    `time ${f.time}`,
    `configuration ${f.configurationId} ${f.version} sha256:${f.contentSha256}`,
    `method ${f.method}`,
    `categories ${categories}`,
    `visitor ${f.visitor}`,
    `evidence ${f.evidence}`,
    '',
  ].join('\n');
}

/** The fields of a cookie leaf's text, or undefined when it is not a cookie v1 leaf. */
export function parseCookieLeaf(text: string): CookieLeafFields | undefined {
  const match =
    /^consent-log\/cookie\/v1\nrecord (\S+)\ntime (\S+)\nconfiguration (\S+) (0|[1-9]\d{0,14}) sha256:([0-9a-f]{64})\nmethod (accept-all|reject-all|custom|gpc)\ncategories ((?:[a-z][a-z0-9_]*=[01])(?: [a-z][a-z0-9_]*=[01])*)\nvisitor (\S+)\nevidence (\S+)\n$/.exec(
      text,
    );
  if (!match) return undefined;
  const [, recordId, time, configurationId, version, sha, method, list, visitor, evidence] =
    match as unknown as string[];
  // Strictly ascending, as cookieLeafText writes them: a repeat, or another order, would be other
  // bytes for the same choice. (A look-up with `in` took a category named `constructor` for one
  // already seen, from the object's prototype.)
  const categories: Record<string, boolean> = {};
  let previous = '';
  for (const pair of (list as string).split(' ')) {
    const [key, value] = pair.split('=') as [string, string];
    if (key <= previous) return undefined;
    previous = key;
    categories[key] = value === '1';
  }
  return {
    recordId: recordId as string,
    time: time as string,
    configurationId: configurationId as string,
    version: Number(version),
    contentSha256: sha as string,
    method: method as CookieLeafFields['method'],
    categories,
    visitor: visitor as string,
    evidence: evidence as string,
  };
}

/** The evidence kept with a cookie choice, as its leaf commits to it. */
export interface CookieEvidence {
  /** The address as the tenant keeps it (full, truncated or a keyed hash). */
  ip: string;
  userAgent: string | null;
  /** The page's origin. */
  origin: string;
  locale: string;
  /** Where the visitor was (`TH`, `US-CA`), when the service knew. */
  region?: string | null;
  /** The A/B variant the visitor saw, when the configuration had variants. */
  variant?: string | null;
  /** The subject commitment of the customer the visitor was signed in as, when they were. */
  customer?: string | null;
}

/**
 * SHA-256("cookie-evidence/v1\n" || salt || canonical JSON {ip, locale, origin, ua}), base64. A
 * choice made while signed in adds `customer`, the customer's subject commitment (first); one
 * whose visitor's region was known adds `region` (between `origin` and `ua`); one on a
 * configuration with A/B variants adds `variant` (last): only then, so every other choice commits
 * exactly as before.
 */
export function cookieEvidenceCommitment(salt: string, evidence: CookieEvidence): string {
  // Keys in sorted order: the canonical JSON of the values.
  const canonical = JSON.stringify({
    ...(evidence.customer ? { customer: evidence.customer } : {}),
    ip: evidence.ip,
    locale: evidence.locale,
    origin: evidence.origin,
    ...(evidence.region ? { region: evidence.region } : {}),
    ua: evidence.userAgent,
    ...(evidence.variant ? { variant: evidence.variant } : {}),
  });
  return createHash('sha256')
    .update('cookie-evidence/v1\n')
    .update(Buffer.from(salt, 'base64'))
    .update(canonical, 'utf8')
    .digest('base64');
}

/** The cookie choices' format, as receipts are checked against it. */
export const cookieLeafFormat: LeafFormat<CookieLeafFields> = {
  header: cookieLeafHeader,
  kind: 'cookie-decision',
  noun: 'cookie decision',
  section: 'cookie_decision',
  folder: 'cookie-decisions',
  text: cookieLeafText,
  parse: parseCookieLeaf,
  record: (leaf) => ({
    decision_id: leaf.recordId,
    decided_at: leaf.time,
    configuration_id: leaf.configurationId,
    configuration_version: leaf.version,
    content_sha256: leaf.contentSha256,
    method: leaf.method,
    categories: leaf.categories,
  }),
  opening: cookieOpening,
  ofCustomer: (receipt, customerId) => cookieOpeningNames(receipt.opening, customerId),
  publishedOn: (leaf) => ({
    what: 'configuration',
    of: leaf.configurationId,
    version: leaf.version,
    sha256: leaf.contentSha256,
  }),
};

/**
 * What opens a cookie leaf: the visitor id, the evidence (address, agent, origin, locale, and
 * the region when it was known), their salts; for a choice made while signed in, the customer's
 * subject commitment, with their subject's salt until they are erased.
 */
function cookieOpening(opening: object, leaf: CookieLeafFields): Result<boolean> {
  const { region, variant } = opening as { region?: unknown; variant?: unknown };
  const customer = customerOpening(opening);
  if (
    customer === false ||
    !hasStrings(opening, [
      'visitor_id',
      'subject_salt',
      'evidence_salt',
      'ip',
      'origin',
      'locale',
    ]) ||
    (region !== undefined && typeof region !== 'string') ||
    (variant !== undefined && typeof variant !== 'string')
  ) {
    return fail(
      "the receipt's opening is not a cookie decision's (visitor id, evidence and salts)",
    );
  }
  if (subjectCommitment(opening.subject_salt, opening.visitor_id) !== leaf.visitor) {
    return fail("the visitor id and salt do not open the leaf's visitor commitment");
  }
  const evidence = cookieEvidenceCommitment(opening.evidence_salt, {
    ip: opening.ip,
    userAgent: opening.user_agent,
    origin: opening.origin,
    locale: opening.locale,
    region: region as string | undefined,
    variant: variant as string | undefined,
    customer: customer?.commitment,
  });
  if (evidence !== leaf.evidence) {
    return fail("the evidence and salt do not open the leaf's evidence commitment");
  }
  return ok(true);
}

/** A cookie opening's `customer`, opened by a customer id: their subject's commitment and salt. */
export interface CookieCustomerOpening {
  commitment: string;
  /** The customer's subject salt; absent once the customer was erased. */
  subject_salt?: string;
}

/** The opening's `customer`: undefined when absent, false when it is not the shape above. */
function customerOpening(opening: object): CookieCustomerOpening | undefined | false {
  const { customer } = opening as { customer?: unknown };
  if (customer === undefined) return undefined;
  if (typeof customer !== 'object' || customer === null) return false;
  const { commitment, subject_salt: salt } = customer as Record<string, unknown>;
  if (typeof commitment !== 'string' || (salt !== undefined && typeof salt !== 'string')) {
    return false;
  }
  return salt === undefined ? { commitment } : { commitment, subject_salt: salt };
}

/**
 * Whether a cookie receipt's opening names this customer: its customer commitment opens with
 * their id and the salt it carries. False for a choice made by no one signed in, and for one whose
 * customer was erased (the salt is gone, so nothing ties the choice to an id any more).
 */
export function cookieOpeningNames(opening: unknown, customerId: string): boolean {
  if (typeof opening !== 'object' || opening === null) return false;
  const customer = customerOpening(opening);
  if (!customer || customer.subject_salt === undefined) return false;
  return subjectCommitment(customer.subject_salt, customerId) === customer.commitment;
}
