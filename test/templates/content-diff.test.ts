import { describe, expect, it } from 'vitest';
import { diffView } from '../../src/backoffice/templates/diff-view.js';
import { contentDiff, visibleText } from '../../src/templates/diff.js';

describe('what a new version changes, word by word', () => {
  it('compares the visible text: a line per block, entities as characters, spaces collapsed', () => {
    expect(
      visibleText(
        '<h1>Terms &amp; conditions</h1><p>A  line<br>and   another</p><ul><li>one</li><li>two &lt;x&gt;</li></ul>',
      ),
    ).toBe('Terms & conditions\nA line\nand another\none\ntwo <x>');
  });

  it('added words', () => {
    expect(contentDiff('<p>You agree to email.</p>', '<p>You agree to email and SMS.</p>')).toEqual(
      {
        parts: [
          { kind: 'same', text: 'You agree to email' },
          { kind: 'added', text: ' and SMS' },
          { kind: 'same', text: '.' },
        ],
        changed: true,
        markupOnly: false,
        added: 2,
        removed: 0,
      },
    );
  });

  it('a removed paragraph', () => {
    expect(
      contentDiff('<p>We keep your name.</p><p>Old paragraph.</p>', '<p>We keep your name.</p>'),
    ).toEqual({
      parts: [
        { kind: 'same', text: 'We keep your name.' },
        { kind: 'removed', text: '\nOld paragraph.' },
      ],
      changed: true,
      markupOnly: false,
      added: 0,
      removed: 2,
    });
  });

  it('a change of formatting only is told apart from no change', () => {
    expect(contentDiff('<p>Keep it</p>', '<p><strong>Keep</strong> it</p>')).toMatchObject({
      changed: false,
      markupOnly: true,
    });
    expect(contentDiff('<p>Keep it</p>', '<p>Keep it</p>')).toMatchObject({
      changed: false,
      markupOnly: false,
    });
  });

  it('the view marks added and removed words, says so in words, and escapes the text', () => {
    const view = diffView(
      contentDiff('<p>Keep this for a year.</p>', '<p>Keep &lt;script&gt; for a year.</p>'),
      { version: 3, tag: '2.1' },
    ).text;
    expect(view).toContain('Against version 3 (tag <span class="mono">2.1</span>):');
    expect(view).toContain(
      '<del><span class="visually-hidden">[removed: </span>this<span class="visually-hidden">]</span></del>',
    );
    expect(view).toMatch(/<ins><span class="visually-hidden">\[added: <\/span>[^<]*&lt;/);
    expect(view).not.toContain('<script');
  });

  it('Thai, written without spaces, is diffed by its words (the runtime segmenter), not as one run', () => {
    const diff = contentDiff(
      '<p>ธนาคารเก็บอีเมลของท่าน</p>',
      '<p>ธนาคารเก็บอีเมลและหมายเลขโทรศัพท์ของท่าน</p>',
      'th',
    );
    expect(diff.parts).toEqual([
      { kind: 'same', text: 'ธนาคารเก็บอีเมล' },
      // "and", "number", "telephone"
      { kind: 'added', text: 'และหมายเลขโทรศัพท์' },
      { kind: 'same', text: 'ของท่าน' },
    ]);
    expect(diff).toMatchObject({ changed: true, added: 3, removed: 0 });
  });
});
