import sanitizeHtml from 'sanitize-html';

/**
 * What a consent text may contain (contract section 6): text, headings, paragraphs, lists,
 * tables, emphasis, http(s) images and http(s)/mailto links. Everything else is dropped;
 * scripts, styles, SVG, MathML, frames, objects and forms go with their content.
 */
const options: sanitizeHtml.IOptions = {
  allowedTags: [
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'p',
    'br',
    'hr',
    'blockquote',
    'pre',
    'code',
    'div',
    'span',
    'ul',
    'ol',
    'li',
    'dl',
    'dt',
    'dd',
    'table',
    'caption',
    'thead',
    'tbody',
    'tfoot',
    'tr',
    'th',
    'td',
    'colgroup',
    'col',
    'strong',
    'b',
    'em',
    'i',
    'u',
    's',
    'mark',
    'small',
    'sub',
    'sup',
    'abbr',
    'a',
    'img',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'target', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    th: ['colspan', 'rowspan', 'scope'],
    td: ['colspan', 'rowspan'],
    ol: ['start', 'type'],
    abbr: ['title'],
    '*': ['id', 'lang', 'dir'],
  },
  allowedSchemes: [],
  allowedSchemesByTag: { a: ['http', 'https', 'mailto'], img: ['http', 'https'] },
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  nonTextTags: [
    'script',
    'style',
    'textarea',
    'option',
    'noscript',
    'template',
    'svg',
    'math',
    'iframe',
    'frame',
    'frameset',
    'object',
    'embed',
    'form',
    'select',
    'button',
  ],
  transformTags: {
    // Links to the outside open in a new tab without handing it our window.
    a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer' }),
  },
};

/**
 * The content as it is stored, hashed and shown: line endings made LF (a browser's form sends
 * CRLF, a file may have lone CRs), so that one text has one SHA-256 however it was sent; then
 * sanitized.
 */
export function sanitizeContent(html: string): string {
  return sanitizeHtml(normalizeLineEndings(html), options).trim();
}

function normalizeLineEndings(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** Anything a reader sees: not white space, control or invisible format characters (U+200B …). */
const visibleCharacter = /[^\s\p{Z}\p{Cc}\p{Cf}]/u;

/**
 * Whether sanitized content shows its reader any text: a visible character in its text once the
 * tags are removed, or in an image's alt text (what a browser shows, and a screen reader reads,
 * for the image). An image without alt text, an empty element or white space shows no text.
 */
export function hasVisibleText(sanitized: string): boolean {
  let altText = false;
  const text = sanitizeHtml(sanitized, {
    allowedTags: [],
    allowedAttributes: {},
    transformTags: {
      img: (tagName, attribs) => {
        if (visibleCharacter.test(attribs.alt ?? '')) altText = true;
        return { tagName, attribs };
      },
    },
  });
  return altText || visibleCharacter.test(text);
}
