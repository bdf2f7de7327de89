import type { LeafFormat, PublishedOn, StatedRecord } from './leaf-format.js';
import { fail } from './result.js';

/**
 * The bytes of a publication in the log (`consent-log/publication/v1`): a template's version, or
 * a cookie system's configuration, as it was made live. It states the SHA-256 of every text it
 * publishes, so that a later decision's leaf, which commits to the SHA-256 of the text its
 * customer was shown, can be tied to a publication logged before it: the text existed, unchanged,
 * before the decision. Nothing personal is in it. Add formats, never alter one: old receipts
 * verify against it.
 *
 * ```
 * consent-log/publication/v1
 * record <publication id>
 * time <ISO 8601 UTC: when it was published>
 * effective <ISO 8601 UTC: when it goes live (later than time when scheduled)>
 * template <template id> <version>        (or: configuration <configuration id> <version>)
 * text <locale> <text id> sha256:<hex> file:<hex>|file:-   (one a locale, sorted by locale)
 * partners <code> <code> …                (sorted; `partners -` when none)
 * ```
 *
 * A template's version has a text per locale, each with its `consent_version_id` and, when one
 * was uploaded, the SHA-256 of its content file. A configuration's content is one canonical JSON
 * for every locale: its one line is `text * <configuration id> sha256:<hex> file:-`.
 */
export interface PublicationLeafFields {
  recordId: string;
  time: string;
  effective: string;
  /** What was published: a template's version, or a cookie system's configuration. */
  what: PublishedOn['what'];
  /** The template's id, or the configuration's. */
  of: string;
  version: number;
  texts: readonly PublishedText[];
  /** The partners' codes the version lists, sorted. */
  partners: readonly string[];
}

/** One text of a publication. */
export interface PublishedText {
  /** BCP 47; `*` for a configuration's content, every locale in one. */
  locale: string;
  /** The text's id: the version's `consent_version_id` in this locale, the configuration's id. */
  id: string;
  /** Hex SHA-256 of the text a customer is shown (a decision's leaf commits to the same). */
  sha256: string;
  /** Hex SHA-256 of the uploaded content file, or null when there is none. */
  file: string | null;
}

export const publicationLeafHeader = 'consent-log/publication/v1';

const byLocale = (a: PublishedText, b: PublishedText) => (a.locale < b.locale ? -1 : 1);

export function publicationLeafText(f: PublicationLeafFields): string {
  const texts = [...f.texts].sort(byLocale);
  const partners = [...f.partners].sort();
  return [
    publicationLeafHeader,
    `record ${f.recordId}`,
    `time ${f.time}`,
    `effective ${f.effective}`,
    `${f.what} ${f.of} ${f.version}`,
    ...texts.map((t) => `text ${t.locale} ${t.id} sha256:${t.sha256} file:${t.file ?? '-'}`),
    `partners ${partners.length === 0 ? '-' : partners.join(' ')}`,
    '',
  ].join('\n');
}

const HEAD =
  /^consent-log\/publication\/v1\nrecord (\S+)\ntime (\S+)\neffective (\S+)\n(template|configuration) (\S+) (0|[1-9]\d{0,14})\n/;
const TEXT = /^text (\S+) (\S+) sha256:([0-9a-f]{64}) file:([0-9a-f]{64}|-)$/;
const PARTNERS = /^partners (-|[a-z0-9][a-z0-9-]*(?: [a-z0-9][a-z0-9-]*)*)$/;

/**
 * The fields of a publication leaf's text, or undefined when it is not one. Exactly the bytes
 * `publicationLeafText` writes are accepted: texts in locale order, one a locale, partners
 * sorted, at least one text.
 */
export function parsePublicationLeaf(text: string): PublicationLeafFields | undefined {
  const head = HEAD.exec(text);
  if (!head || !text.endsWith('\n')) return undefined;
  const [, recordId, time, effective, what, of, version] = head as unknown as string[];
  const lines = text.slice(head[0].length, -1).split('\n');
  const partnersLine = PARTNERS.exec(lines.pop() ?? '');
  if (!partnersLine || lines.length === 0) return undefined;
  const texts: PublishedText[] = [];
  let previous = '';
  for (const line of lines) {
    const match = TEXT.exec(line);
    if (!match) return undefined;
    const [, locale, id, sha256, file] = match as unknown as string[];
    // One a locale, in ascending order, as `publicationLeafText` writes them.
    if ((locale as string) <= previous) return undefined;
    previous = locale as string;
    texts.push({
      locale: locale as string,
      id: id as string,
      sha256: sha256 as string,
      file: file === '-' ? null : (file as string),
    });
  }
  const list = partnersLine[1] as string;
  const fields: PublicationLeafFields = {
    recordId: recordId as string,
    time: time as string,
    effective: effective as string,
    what: what as PublicationLeafFields['what'],
    of: of as string,
    version: Number(version),
    texts,
    partners: list === '-' ? [] : list.split(' '),
  };
  // A repeat, or another order, would be other bytes for the same publication.
  return publicationLeafText(fields) === text ? fields : undefined;
}

/**
 * Whether a publication is of the text a record was made on: the same template (or
 * configuration) and version, with a text of the hash the record's leaf commits to.
 */
export function publicationCovers(publication: PublicationLeafFields, on: PublishedOn): boolean {
  return (
    publication.what === on.what &&
    publication.of === on.of &&
    publication.version === on.version &&
    publication.texts.some((t) => t.sha256 === on.sha256)
  );
}

/** The publications' format, as the log's audit and receipts check it. */
export const publicationLeafFormat: LeafFormat<PublicationLeafFields> = {
  header: publicationLeafHeader,
  kind: 'publication',
  noun: 'publication',
  // Not `publication`: that is the member in which a decision's receipt shows the publication
  // that came before it, and a receipt's member names the kind of its own record.
  section: 'published_text',
  folder: 'publications',
  text: publicationLeafText,
  parse: parsePublicationLeaf,
  record: (leaf): StatedRecord => ({
    publication_id: leaf.recordId,
    published_at: leaf.time,
    effective_at: leaf.effective,
    [leaf.what === 'template' ? 'template_id' : 'configuration_id']: leaf.of,
    version: leaf.version,
  }),
  opening: () => fail('a publication has no opening: nothing in it is personal'),
};
