import { describe, expect, it } from 'vitest';
import { sanitizeContent } from '../../src/templates/sanitize.js';

describe('content_html sanitizing (contract section 6)', () => {
  it.each([
    ['scripts', '<p>a</p><script>alert(1)</script>', '<p>a</p>'],
    ['styles', '<style>p{color:red}</style><p>a</p>', '<p>a</p>'],
    ['event-handler attributes', '<p onclick="x()" onmouseover="y()">a</p>', '<p>a</p>'],
    ['style attributes', '<p style="color:red">a</p>', '<p>a</p>'],
    [
      'javascript: links',
      '<a href="javascript:alert(1)">a</a>',
      '<a rel="noopener noreferrer">a</a>',
    ],
    [
      'javascript: links in mixed case',
      '<a href="JaVaScRiPt:alert(1)">a</a>',
      '<a rel="noopener noreferrer">a</a>',
    ],
    ['data: URLs on images', '<img src="data:image/png;base64,AAAA" alt="x">', '<img alt="x" />'],
    [
      'data: URLs on links',
      '<a href="data:text/html,<b>x</b>">a</a>',
      '<a rel="noopener noreferrer">a</a>',
    ],
    ['iframes', '<iframe src="https://example.com"></iframe><p>a</p>', '<p>a</p>'],
    ['objects and embeds', '<object data="x.swf"></object><embed src="x.swf"><p>a</p>', '<p>a</p>'],
    [
      'SVG with its content',
      '<svg><script>alert(1)</script><text>t</text></svg><p>a</p>',
      '<p>a</p>',
    ],
    [
      'forms with their controls',
      '<form action="https://x"><input name="a"><button>Go</button></form><p>a</p>',
      '<p>a</p>',
    ],
  ])('removes %s', (_what, input, expected) => {
    expect(sanitizeContent(input)).toBe(expected);
  });

  it.each([
    ['text and headings', '<h1>T</h1><h2>S</h2><h3>s</h3><p>Plain text</p>'],
    ['lists', '<ul><li>a</li></ul><ol><li>b</li></ol>'],
    [
      'tables',
      '<table><thead><tr><th>h</th></tr></thead><tbody><tr><td colspan="2">d</td></tr></tbody></table>',
    ],
    ['emphasis', '<p><strong>s</strong> <em>e</em> <b>b</b> <i>i</i> <u>u</u></p>'],
    [
      'images with http and https sources',
      '<img src="https://example.com/a.png" alt="a" /><img src="http://example.com/b.png" />',
    ],
    [
      'http, https and mailto links',
      '<a href="https://example.com" rel="noopener noreferrer">a</a><a href="http://example.com" rel="noopener noreferrer">b</a><a href="mailto:dpo@example.com" rel="noopener noreferrer">c</a>',
    ],
  ])('keeps %s', (_what, html) => {
    expect(sanitizeContent(html)).toBe(html);
  });
});
