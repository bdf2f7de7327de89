import type { ContentDiff } from '../../templates/index.js';
import { count } from '../web/format.js';
import { type Html, html } from '../web/html.js';

/**
 * The words a new version changes against the current one (or against the text a reviewer last
 * saw, given as `label`): added words underlined, removed ones
 * struck through, each also said in words for screen readers and for readers who do not tell
 * the colours apart.
 */
export function diffView(
  diff: ContentDiff,
  against: { version: number; tag: string } | { label: Html },
): Html {
  const versus =
    'label' in against
      ? against.label
      : html`version ${against.version} (tag <span class="mono">${against.tag}</span>)`;
  if (!diff.changed) {
    return html`<p>${diff.markupOnly ? html`Only the formatting changes against ${versus}: the words are the same.` : html`The text is the same as ${versus}.`}</p>`;
  }
  return html`<p>Against ${versus}: ${count(diff.added, 'word', 'words')} added, ${count(diff.removed, 'word', 'words')} removed.</p>
<div class="diff">${diff.parts.map((part) =>
    part.kind === 'added'
      ? html`<ins><span class="visually-hidden">[added: </span>${part.text}<span class="visually-hidden">]</span></ins>`
      : part.kind === 'removed'
        ? html`<del><span class="visually-hidden">[removed: </span>${part.text}<span class="visually-hidden">]</span></del>`
        : part.text,
  )}</div>`;
}
