import { diffWords, diffWordsWithSpace } from 'diff';
import sanitizeHtml from 'sanitize-html';

/** One run of the comparison: words both versions have, or only the new, or only the old. */
export interface DiffPart {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

export interface ContentDiff {
  parts: DiffPart[];
  /** Whether the words differ. */
  changed: boolean;
  /** Whether only the markup differs (emphasis, a link's target, a list's kind). */
  markupOnly: boolean;
  added: number;
  removed: number;
}

/** Elements that end a line of text as a reader sees it. */
const blockEnd =
  /<\/(p|h[1-6]|li|td|th|tr|blockquote|pre|div|ul|ol|table|caption|dd|dt)>|<br\s*\/?>/gi;

/** The five escapes sanitize-html writes into text, undone (it decodes every other entity). */
const escapes: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};

/**
 * The visible text of sanitized content, a line per paragraph, heading, list item or cell,
 * spaces collapsed: what a reader reads, so that the comparison is of words, not markup.
 */
export function visibleText(sanitized: string): string {
  const text = sanitizeHtml(
    sanitized.replace(blockEnd, (end) => `${end}\n`),
    {
      allowedTags: [],
      allowedAttributes: {},
    },
  ).replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => escapes[entity] ?? entity);
  return text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}

/**
 * Languages written without spaces between words (Thai, Lao, Khmer, Burmese, Chinese, Japanese,
 * Tibetan): their words are found by the runtime's dictionary-based word segmenter (ICU), not by
 * spaces, which would make a whole sentence one word.
 */
const unspaced = new Set(['th', 'lo', 'km', 'my', 'zh', 'ja', 'bo']);

function segmenterFor(locale: string | undefined): Intl.Segmenter | undefined {
  if (locale === undefined || !unspaced.has(new Intl.Locale(locale).language)) return undefined;
  return new Intl.Segmenter(locale, { granularity: 'word' });
}

function words(text: string, segmenter: Intl.Segmenter | undefined): number {
  if (segmenter) return [...segmenter.segment(text)].filter((s) => s.isWordLike).length;
  return text.split(/\s+/).filter(Boolean).length;
}

/**
 * How the new version's words differ from the current one's, word by word (jsdiff), for a
 * reviewer: what is added, what is removed, and whether only the formatting changed. The text's
 * locale decides what a word is (see `unspaced`).
 */
export function contentDiff(beforeHtml: string, afterHtml: string, locale?: string): ContentDiff {
  const before = visibleText(beforeHtml);
  const after = visibleText(afterHtml);
  const segmenter = segmenterFor(locale);
  const changes = segmenter
    ? diffWords(before, after, { intlSegmenter: segmenter })
    : diffWordsWithSpace(before, after);
  const parts: DiffPart[] = changes.map((change) => ({
    kind: change.added ? 'added' : change.removed ? 'removed' : 'same',
    text: change.value,
  }));
  const count = (kind: DiffPart['kind']) =>
    parts.filter((p) => p.kind === kind).reduce((n, p) => n + words(p.text, segmenter), 0);
  const added = count('added');
  const removed = count('removed');
  const changed = before !== after;
  return { parts, changed, markupOnly: !changed && beforeHtml !== afterHtml, added, removed };
}
