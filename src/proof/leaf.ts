import { customerOpening, type LeafFormat } from './leaf-format.js';

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

/** The decisions' format, as receipts and evidence packs are checked against it. */
export const decisionLeafFormat: LeafFormat<LeafFields> = {
  header: leafHeader,
  kind: 'decision',
  noun: 'decision',
  section: 'decision',
  folder: 'decisions',
  text: leafText,
  parse: parseLeaf,
  record: (leaf) => ({
    decision_id: leaf.recordId,
    decided_at: leaf.time,
    template_id: leaf.templateId,
    version: leaf.version,
    content_sha256: leaf.contentSha256,
    decision: leaf.decision,
  }),
  opening: customerOpening,
  shown: (receipt, leaf) => ({
    versionId: String(
      (receipt.decision as { consent_version_id?: unknown } | undefined)?.consent_version_id ?? '',
    ),
    sha256: leaf.contentSha256,
  }),
  publishedOn: (leaf) => ({
    what: 'template',
    of: leaf.templateId,
    version: leaf.version,
    sha256: leaf.contentSha256,
  }),
};
