import { type ActedBy, isActedBy } from './acted-by.js';
import {
  type ExplicitAct,
  evidenceCommitment,
  explicitMethods,
  subjectCommitment,
} from './commitments.js';
import { fail, ok, type Result } from './result.js';

/** What a verified leaf states, named as a receipt names its record's fields. */
export type StatedRecord = Record<string, string | number | boolean | Record<string, boolean>>;

/**
 * A kind of record's leaf format, as a receipt is checked against it with nothing but the log's
 * verifier key (`verifyReceipt`), and an evidence pack's files (`verifyEvidencePack`). Each kind
 * declares its own; add formats, never alter one: old receipts verify against it.
 */
export interface LeafFormat<Fields = unknown> {
  /** The leaf's first line (`consent-log/channel/v1`): it tells the format of a logged leaf. */
  header: string;
  /** What `verify-receipt` calls the record (`channel-change`). */
  kind: string;
  /** How a refusal names one (`channel change`). */
  noun: string;
  /** The receipt's member stating the record (`channel_change`). */
  section: string;
  /** Its folder under an evidence pack's `records/`. */
  folder?: string;
  text(fields: Fields): string;
  /** The fields of a leaf's text; undefined when it is not a leaf of this format. */
  parse(text: string): Fields | undefined;
  /**
   * What the leaf states, named as the receipt's section names them: each one the section
   * states must be exactly this.
   */
  record(leaf: Fields): StatedRecord;
  /** The receipt's opening against the leaf's commitments: true when it opened them. */
  opening(opening: object, leaf: Fields): Result<boolean>;
  /**
   * For a record made on a text the customer was shown: the version (as the receipt names it)
   * and the SHA-256 its leaf commits to, which an evidence pack's copy of the text must have.
   */
  shown?(receipt: Record<string, unknown>, leaf: Fields): { versionId: string; sha256: string };
  /**
   * For a record made on a published text: what its leaf names (the template or configuration,
   * its version, the text's SHA-256), which a publication leaf before it must cover.
   */
  publishedOn?(leaf: Fields): PublishedOn;
  /**
   * For a record whose subject is not the customer's own (a website visitor's choice made while
   * signed in): whether its receipt's opening names this customer, as an evidence pack's every
   * such record must.
   */
  ofCustomer?(receipt: Record<string, unknown>, customerId: string): boolean;
}

/** A record made on a published text, as its leaf names it: what, its version, the text's hash. */
export interface PublishedOn {
  what: 'template' | 'configuration';
  /** The template's id, or the configuration's. */
  of: string;
  version: number;
  /** Hex SHA-256 of the text the record's leaf commits to. */
  sha256: string;
}

/** One line of a line format: `<label> <value>`, the value kept in the field `field`. */
export interface LeafLine {
  label: string;
  field: string;
  /** The value's pattern (a regular expression's source, no groups); `\S+` when absent. */
  pattern?: string;
  /** `flag`: `0` or `1`, a boolean field. */
  type?: 'text' | 'flag';
}

/**
 * A format whose lines are each a label and one value, after its header: the shape of the
 * control formats and of any new kind's (the decision and cookie formats, older, have lines of
 * several values). The text ends with a newline; parsing accepts exactly what `text` writes.
 */
export function lineLeafFormat<Fields extends object>(
  spec: Omit<LeafFormat<Fields>, 'text' | 'parse'> & { lines: readonly LeafLine[] },
): LeafFormat<Fields> {
  const { lines, ...rest } = spec;
  const escaped = spec.header.replace(/[/.]/g, (c) => `\\${c}`);
  const body = lines
    .map((line) => `${line.label} (${line.type === 'flag' ? '[01]' : (line.pattern ?? '\\S+')})\\n`)
    .join('');
  const shape = new RegExp(`^${escaped}\\n${body}$`);
  return {
    ...rest,
    text: (fields) =>
      [
        spec.header,
        ...lines.map((line) => {
          const value = (fields as Record<string, unknown>)[line.field];
          return `${line.label} ${line.type === 'flag' ? (value ? 1 : 0) : String(value)}`;
        }),
        '',
      ].join('\n'),
    parse: (text) => {
      const match = shape.exec(text);
      if (!match) return undefined;
      const fields: Record<string, unknown> = {};
      lines.forEach((line, i) => {
        const value = match[i + 1] as string;
        fields[line.field] = line.type === 'flag' ? value === '1' : value;
      });
      return fields as Fields;
    },
  };
}

/**
 * What opens a customer's leaf (a decision's, a control's): the customer id and the evidence
 * with their salts; who made it is an API key, or none and a back-office user; `via` only for a
 * record made through the preference centre (its evidence commits to it then).
 */
export function customerOpening(
  opening: object,
  leaf: { subject: string; evidence: string },
): Result<boolean> {
  if (
    !hasStrings(opening, ['customer_id', 'subject_salt', 'evidence_salt', 'ip']) ||
    !hasActor(opening) ||
    !hasVia(opening) ||
    !hasExplicit(opening) ||
    !hasActedBy(opening)
  ) {
    return fail("the receipt's opening is not a decision's (customer id, evidence and salts)");
  }
  if (subjectCommitment(opening.subject_salt, opening.customer_id) !== leaf.subject) {
    return fail("the customer id and salt do not open the leaf's subject commitment");
  }
  const evidence = evidenceCommitment(opening.evidence_salt, {
    ip: opening.ip,
    userAgent: opening.user_agent,
    apiKeyId: opening.api_key_id,
    userId: opening.user_id,
    via: opening.via,
    explicit: opening.explicit,
    actedBy: opening.acted_by,
  });
  if (evidence !== leaf.evidence) {
    return fail("the evidence and salt do not open the leaf's evidence commitment");
  }
  return ok(true);
}

/**
 * Whether a receipt's opening has these string fields (and a user agent that is a string or
 * null): it comes from a file, and a commitment over a missing value would throw, not fail.
 */
export function hasStrings<K extends string>(
  opening: object,
  keys: readonly K[],
): opening is Record<K, string> & { user_agent: string | null } {
  const fields = opening as Record<string, unknown>;
  const ua = fields.user_agent;
  return (
    keys.every((key) => typeof fields[key] === 'string') && (ua === null || typeof ua === 'string')
  );
}

/** Who made the record: an API key's id, or none and a back-office user's id. */
function hasActor(
  opening: object,
): opening is { api_key_id: string | null; user_id?: string | null } {
  const { api_key_id: key, user_id: user } = opening as Record<string, unknown>;
  if (typeof key === 'string') return user === undefined || user === null;
  return key === null && typeof user === 'string';
}

/** The explicit act, when the opening names one: its method and the text shown, or absent. */
function hasExplicit(opening: object): opening is { explicit?: ExplicitAct } {
  const { explicit } = opening as Record<string, unknown>;
  if (explicit === undefined) return true;
  if (typeof explicit !== 'object' || explicit === null) return false;
  const { method, text_shown: text } = explicit as Record<string, unknown>;
  return (
    typeof method === 'string' &&
    explicitMethods.includes(method as ExplicitAct['method']) &&
    typeof text === 'string'
  );
}

/** Who acted, when the opening names it (PDPA section 20), or absent. */
function hasActedBy(opening: object): opening is { acted_by?: ActedBy } {
  const { acted_by: acted } = opening as Record<string, unknown>;
  return acted === undefined || isActedBy(acted);
}

/** The channel the record came through, when the opening names one: a string, or absent. */
function hasVia(opening: object): opening is { via?: string } {
  const { via } = opening as Record<string, unknown>;
  return via === undefined || typeof via === 'string';
}
