/**
 * Finds executable content in HTML the way a browser would see it: the text is parsed with
 * parse5 (the WHATWG HTML parsing algorithm, so entities in attribute values are decoded once,
 * exactly as a browser decodes them, and misnested or unclosed markup is repaired the same way),
 * then every element and attribute of the resulting tree is checked.
 */
import { type DefaultTreeAdapterTypes, parse, parseFragment, serialize } from 'parse5';

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;

/** Elements that run code, load other documents or change how the page or its URLs behave. */
export const forbiddenElements = new Set([
  'script',
  'style',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'form',
  'svg',
  'math',
  'base',
  'meta',
  'link',
  'template',
]);

/** URL-bearing (or document-bearing) attributes that sanitized content never needs. */
const otherUrlAttributes = new Set([
  'action',
  'formaction',
  'srcdoc',
  'srcset',
  'background',
  'poster',
  'data',
  'codebase',
  'classid',
  'lowsrc',
  'dynsrc',
  'ping',
  'longdesc',
  'manifest',
  'icon',
  'archive',
  'xlink:href',
  'http-equiv',
]);

const allowedSchemes: Record<string, Set<string>> = {
  href: new Set(['http', 'https', 'mailto']),
  src: new Set(['http', 'https']),
};

/**
 * What a URL is once a browser has ignored what it ignores: the value as parsed (entities already
 * decoded by the parser, once, as a browser decodes them) with every C0 control, space, DEL and C1
 * control removed, at its ends (the URL parser's trimming) and anywhere inside (stricter than the
 * URL parser, which drops only tabs and newlines inside). Other Unicode characters (a BOM,
 * a zero-width space, a no-break space) stay: no browser ignores them, and a URL that starts with
 * one has no scheme (it resolves as a relative path).
 */
export function normalizedUrl(value: string): string {
  // Not String#trim: that also drops a BOM or a no-break space, which browsers keep.
  return [...value]
    .filter((char) => {
      const code = char.codePointAt(0) ?? 0;
      return code > 0x20 && (code < 0x7f || code > 0x9f);
    })
    .join('');
}

/** The URL's scheme in lower case, or undefined for a relative URL. */
export function schemeOf(url: string): string | undefined {
  return /^([a-z][a-z0-9+.-]*):/i.exec(normalizedUrl(url))?.[1]?.toLowerCase();
}

function attributeName(attr: { name: string; prefix?: string }): string {
  return (attr.prefix ? `${attr.prefix}:${attr.name}` : attr.name).toLowerCase();
}

function isElement(node: Node): node is Element {
  return 'tagName' in node;
}

function childrenOf(node: Node): Node[] {
  const children: Node[] = 'childNodes' in node ? [...node.childNodes] : [];
  // A <template>'s content lives apart from its children.
  if ('content' in node && node.content) children.push(node.content as Node);
  return children;
}

function describeElement(element: Element): string {
  return `<${element.tagName}${element.attrs.map((a) => ` ${attributeName(a)}="${a.value}"`).join('')}>`;
}

/** Problems of one element (its own tag and attributes, not its children). */
function elementProblems(element: Element): string[] {
  const problems: string[] = [];
  const name = element.tagName.toLowerCase();
  if (forbiddenElements.has(name)) problems.push(`forbidden element ${describeElement(element)}`);
  if (element.namespaceURI !== 'http://www.w3.org/1999/xhtml') {
    problems.push(`element outside the HTML namespace ${describeElement(element)}`);
  }
  for (const attr of element.attrs) {
    const attrName = attributeName(attr);
    if (attrName.startsWith('on')) problems.push(`event handler ${attrName} on <${name}>`);
    if (attrName === 'style') problems.push(`style attribute on <${name}>`);
    if (otherUrlAttributes.has(attrName)) problems.push(`attribute ${attrName} on <${name}>`);
    const schemes = allowedSchemes[attrName];
    if (schemes) {
      const scheme = schemeOf(attr.value);
      if (scheme !== undefined && !schemes.has(scheme)) {
        problems.push(
          `${attrName} with scheme ${scheme}: on <${name}> (${JSON.stringify(attr.value)})`,
        );
      }
    }
  }
  return problems;
}

/** Walks the tree (bounded by its size) and collects every problem. */
function treeProblems(root: Node, skip: (element: Element) => boolean = () => false): string[] {
  const problems: string[] = [];
  const stack: Node[] = [root];
  for (let visited = 0; stack.length > 0 && visited < 1_000_000; visited += 1) {
    const node = stack.pop() as Node;
    if (isElement(node) && !skip(node)) problems.push(...elementProblems(node));
    stack.push(...childrenOf(node));
  }
  return problems;
}

/**
 * Executable content in an HTML fragment (as `content_html` is shown inside a client's page). The
 * fragment is checked as parsed, and again after a serialize-and-parse round trip, so that markup
 * which only turns executable on re-parsing (mutation XSS) is caught too.
 */
export function fragmentProblems(html: string): string[] {
  const once = parseFragment(html);
  const problems = treeProblems(once);
  const twice = parseFragment(serialize(once));
  for (const problem of treeProblems(twice)) problems.push(`after a round trip: ${problem}`);
  return [...new Set(problems)];
}

/**
 * Executable content in a whole HTML document (the public content file). Its head may hold the
 * page's own `<meta charset>`, `<meta name="viewport">` and `<title>`; nothing else may be there.
 */
export function documentProblems(html: string): string[] {
  const document = parse(html);
  const ownHeadElement = (element: Element): boolean => {
    if (element.parentNode === null || !isElement(element.parentNode as Node)) return false;
    if ((element.parentNode as Element).tagName !== 'head') return false;
    const attrs = Object.fromEntries(element.attrs.map((a) => [attributeName(a), a.value]));
    if (element.tagName === 'title') return element.attrs.length === 0;
    if (element.tagName !== 'meta' || element.attrs.length > 2) return false;
    if (element.attrs.length === 1) return attrs.charset?.toLowerCase() === 'utf-8';
    return attrs.name === 'viewport' && typeof attrs.content === 'string';
  };
  return treeProblems(document, ownHeadElement);
}
