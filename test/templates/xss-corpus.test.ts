/**
 * A corpus of known XSS payloads (test/fixtures/xss-payloads.txt) against the content sanitizer
 * (contract section 6) and the public content file (section 7). Whatever goes in, what comes out
 * must hold nothing a browser would run, judged on the tree a real HTML parser (parse5, the WHATWG
 * algorithm) builds from it: see helpers/html-safety.ts for the checks.
 */
import { readFileSync } from 'node:fs';
import { type DefaultTreeAdapterTypes, parseFragment } from 'parse5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeContent } from '../../src/templates/sanitize.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { documentProblems, fragmentProblems, schemeOf } from '../helpers/html-safety.js';
import { pollUntil } from '../helpers/process.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

/** The payloads, one per line; `{{0xHH}}` stands for a character a line cannot hold. */
function loadPayloads(): string[] {
  const text = readFileSync(new URL('../fixtures/xss-payloads.txt', import.meta.url), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '' && line !== '#' && !line.startsWith('# '))
    .map((line) =>
      line.replace(/\{\{0x([0-9A-Fa-f]{2})\}\}/g, (_m, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      ),
    );
}

const payloads = loadPayloads();
const cases = payloads.map((payload, index) => ({
  index: index + 1,
  payload,
  // A readable label for the test name: control characters shown as escapes, long ones cut.
  label: JSON.stringify(payload.length > 70 ? `${payload.slice(0, 70)}…` : payload),
}));

type Element = DefaultTreeAdapterTypes.Element;

/** Every element of a fragment, in document order (bounded by the fragment's size). */
function elementsOf(html: string): Element[] {
  const found: Element[] = [];
  const stack: DefaultTreeAdapterTypes.Node[] = [parseFragment(html)];
  for (let i = 0; stack.length > 0 && i < 100_000; i += 1) {
    const node = stack.pop() as DefaultTreeAdapterTypes.Node;
    if ('tagName' in node) found.push(node);
    if ('childNodes' in node) stack.push(...[...node.childNodes].reverse());
  }
  return found;
}

function attr(element: Element | undefined, name: string): string | undefined {
  return element?.attrs.find((a) => a.name === name)?.value;
}

function textOf(html: string): string {
  const texts: string[] = [];
  const stack: DefaultTreeAdapterTypes.Node[] = [parseFragment(html)];
  for (let i = 0; stack.length > 0 && i < 100_000; i += 1) {
    const node = stack.pop() as DefaultTreeAdapterTypes.Node;
    if (node.nodeName === '#text') texts.push((node as DefaultTreeAdapterTypes.TextNode).value);
    if ('childNodes' in node) stack.push(...[...node.childNodes].reverse());
  }
  return texts.join('');
}

describe('the XSS corpus', () => {
  it('holds at least 100 distinct payloads', () => {
    expect(payloads.length).toBeGreaterThanOrEqual(100);
    expect(new Set(payloads).size).toBe(payloads.length);
  });

  it('is recognised as executable by the checks before sanitizing (the checks are not blind)', () => {
    // Most raw payloads must be flagged; the few that are harmless as they stand (escaped text,
    // a bare scheme-less string) are the exception.
    const flagged = payloads.filter((payload) => fragmentProblems(payload).length > 0);
    expect(flagged.length).toBeGreaterThanOrEqual(Math.floor(payloads.length * 0.85));
  });
});

describe('sanitizeContent on the XSS corpus (contract section 6)', () => {
  it.for(cases)('payload $index $label: leaves nothing executable', ({ payload }) => {
    const output = sanitizeContent(payload);
    expect(fragmentProblems(output), `sanitized: ${JSON.stringify(output)}`).toEqual([]);
  });

  it.for(cases)('payload $index $label: sanitizing again changes nothing', ({ payload }) => {
    const output = sanitizeContent(payload);
    expect(sanitizeContent(output)).toBe(output);
  });
});

describe('sanitizeContent keeps the content the contract allows', () => {
  it('keeps headings, paragraphs, lists, tables and emphasis with their text', () => {
    const input =
      '<h1>Title</h1><h2>Sub</h2><h3>Third</h3><p>Plain <strong>strong</strong> <em>em</em> <b>b</b> <i>i</i> <u>u</u></p>' +
      '<ul><li>one</li></ul><ol><li>two</li></ol>' +
      '<table><thead><tr><th>Head</th></tr></thead><tbody><tr><td>Cell</td></tr></tbody></table>';
    const output = sanitizeContent(input);
    const tags = elementsOf(output).map((element) => element.tagName);
    for (const tag of ['h1', 'h2', 'h3', 'p', 'strong', 'em', 'b', 'i', 'u', 'ul', 'ol', 'li']) {
      expect(tags, `${tag} in ${output}`).toContain(tag);
    }
    for (const tag of ['table', 'thead', 'tbody', 'tr', 'th', 'td']) expect(tags).toContain(tag);
    expect(textOf(output)).toBe(textOf(input));
    expect(fragmentProblems(output)).toEqual([]);
  });

  it('keeps http and https images with their sources', () => {
    const output = sanitizeContent(
      '<img src="https://example.com/a.png" alt="A"><img src="http://example.com/b.png" alt="B">',
    );
    const images = elementsOf(output).filter((element) => element.tagName === 'img');
    expect(images.map((image) => attr(image, 'src'))).toEqual([
      'https://example.com/a.png',
      'http://example.com/b.png',
    ]);
    expect(images.map((image) => attr(image, 'alt'))).toEqual(['A', 'B']);
  });

  it('keeps http, https and mailto links with their targets and text', () => {
    const output = sanitizeContent(
      '<a href="https://example.com/privacy">Privacy</a> <a href="http://example.com/">Home</a> ' +
        '<a href="mailto:dpo@example.com">DPO</a>',
    );
    const links = elementsOf(output).filter((element) => element.tagName === 'a');
    expect(links.map((link) => attr(link, 'href'))).toEqual([
      'https://example.com/privacy',
      'http://example.com/',
      'mailto:dpo@example.com',
    ]);
    expect(links.map((link) => schemeOf(attr(link, 'href') ?? ''))).toEqual([
      'https',
      'http',
      'mailto',
    ]);
    expect(textOf(output)).toBe('Privacy Home DPO');
  });

  it('keeps the allowed content around a payload while removing the payload', () => {
    const output = sanitizeContent(
      '<h2>Your data</h2><script>alert(1)</script><p onclick="alert(1)">We keep <em>little</em>.</p>' +
        '<a href="javascript:alert(1)">bad</a><a href="https://example.com">good</a>',
    );
    expect(fragmentProblems(output)).toEqual([]);
    expect(textOf(output)).toBe('Your dataWe keep little.badgood');
    const links = elementsOf(output).filter((element) => element.tagName === 'a');
    expect(links.map((link) => attr(link, 'href'))).toEqual([undefined, 'https://example.com']);
  });

  it('keeps escaped markup as visible text', () => {
    const output = sanitizeContent('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
    expect(textOf(output)).toBe('<script>alert(1)</script>');
    expect(fragmentProblems(output)).toEqual([]);
  });
});

describe.each(stores)('published XSS payloads on $name (contract sections 6 and 7)', (store) => {
  let t: TestApp;
  let tenant: SeededTenant;
  let code: string;

  beforeAll(async () => {
    t = await startTestApp(store);
    tenant = await seedTenant(t.db);
    code = await seedTemplate(t.db, tenant.tenant.id);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.for(cases)(
    'payload $index $label: published, its content_html and public content file hold nothing executable',
    async ({ payload }) => {
      // Visible text first, so that a payload sanitized to nothing is still published (content
      // with nothing visible is refused), and the payload keeps the end of the text to itself.
      const content = `<p>Visible text</p>${payload}`;
      const version = await publish(t.db, tenant.tenant.id, code, { content_html: content });
      expect(version.content_html).toBe(sanitizeContent(content));
      expect(fragmentProblems(version.content_html)).toEqual([]);

      const file = await t.app.inject({
        method: 'GET',
        url: `/api/content/${version.consent_version_id}.html`,
      });
      expect(file.statusCode, file.body).toBe(200);
      expect(file.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(documentProblems(file.body), file.body).toEqual([]);
    },
  );

  it('latest shows a published payload sanitized (once the publish is visible)', async () => {
    const payload =
      '<p onclick="alert(1)">Hi</p><svg/onload=alert(1)><a href="java&#x09;script:alert(1)">x</a>';
    const expected = (await publish(t.db, tenant.tenant.id, code, { content_html: payload }))
      .content_html;
    // A publish is visible to requests starting more than 1 s after it (contract section 6).
    const shown = await pollUntil(
      async () => {
        const latest = await t.app.inject({
          method: 'GET',
          url: `/api/v1/consent-templates/${code}/latest`,
          headers: tenant.headers,
        });
        expect(latest.statusCode, latest.body).toBe(200);
        const html = JSON.parse(latest.body).data.content_html as string;
        return html === expected ? html : undefined;
      },
      { timeoutMs: budget(3_000), intervalMs: 100 },
    );
    expect(shown).toBe(expected);
    expect(fragmentProblems(shown ?? '')).toEqual([]);
  });
});
