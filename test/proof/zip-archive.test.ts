/**
 * The strict reading of an evidence pack's ZIP (src/proof/zip-archive.ts): an archive as the
 * service writes it (fflate's zipSync) is read whole; every way a forger can make ZIP tools show
 * other bytes than the verifier checks is refused, naming the entry.
 */
import { strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { readZipStrictly } from '../../src/proof/zip-archive.js';
import { type ForgedEntry, zipOf } from '../helpers/zip.js';

const genuine = strToU8('<p>We share your data with Acme Insurance.</p>');
const forged = strToU8('<p>We NEVER share your data.</p>');
const text = 'versions/0190e8a0-0000-7000-8000-0000000000aa/content.html';
const entries: ForgedEntry[] = [
  { name: 'manifest.json', bytes: strToU8('{}\n') },
  { name: text, bytes: genuine },
];

describe('reading an evidence pack archive strictly', () => {
  it("reads the service's own archive, deflated, whole and without a problem", () => {
    const zip = zipSync(
      { 'manifest.json': strToU8('{}\n'), [text]: genuine, 'records/a.json': strToU8('[]') },
      { level: 6, mtime: new Date('2026-11-27T09:15:02Z') },
    );
    const { files, problems } = readZipStrictly(zip);
    expect(problems).toEqual([]);
    expect([...files.keys()]).toEqual(['manifest.json', text, 'records/a.json']);
    expect(Buffer.from(files.get(text) ?? []).toString()).toBe(
      '<p>We share your data with Acme Insurance.</p>',
    );
  });

  it('the forged archives of these tests are well-formed ZIPs: fflate reads an honest one alike', () => {
    const zip = zipOf(entries);
    expect(readZipStrictly(zip)).toEqual({
      files: new Map([
        ['manifest.json', strToU8('{}\n')],
        [text, genuine],
      ]),
      problems: [],
    });
    expect(unzipSync(zip)).toEqual({ 'manifest.json': strToU8('{}\n'), [text]: genuine });
  });

  it('refuses a forged second copy of a text placed before the genuine one', () => {
    const zip = zipOf([
      entries[0] as ForgedEntry,
      { name: text, bytes: forged },
      entries[1] as ForgedEntry,
    ]);
    expect(readZipStrictly(zip).problems).toEqual([
      { entry: text, reason: 'is in the archive more than once' },
    ]);
  });

  it('refuses a name given twice but for case or Unicode form', () => {
    const zip = zipOf([...entries, { name: text.toUpperCase(), bytes: forged }]);
    expect(readZipStrictly(zip).problems).toEqual([
      { entry: text.toUpperCase(), reason: `is the name of ${text} but for case or form` },
    ]);
    const composed = 'versions/caf\u00e9.html';
    const decomposed = 'versions/cafe\u0301.html';
    const forms = zipOf([
      { name: composed, bytes: genuine },
      { name: decomposed, bytes: forged },
    ]);
    expect(readZipStrictly(forms).problems).toEqual([
      { entry: decomposed, reason: `is the name of ${composed} but for case or form` },
    ]);
  });

  it('refuses an entry whose local header names another file than the central directory', () => {
    const zip = zipOf([
      entries[0] as ForgedEntry,
      { name: text, bytes: genuine, localName: text.replace('content', 'c0ntent') },
    ]);
    expect(readZipStrictly(zip).problems).toEqual([
      { entry: text, reason: 'its local header does not agree with the central directory' },
    ]);
  });

  it.each([
    ['records/', 'is a folder entry, which a pack never has'],
    ['/etc/passwd', 'is an absolute path'],
    ['C:/pack/manifest.json', 'is an absolute path'],
    ['records\\..\\manifest.json', 'has a backslash or a control character'],
    ['records/a\u0000.json', 'has a backslash or a control character'],
    ['records/../manifest.json', 'has an empty, "." or ".." part'],
    ['records//a.json', 'has an empty, "." or ".." part'],
    ['./manifest.json', 'has an empty, "." or ".." part'],
  ])('refuses the entry %j: it %s', (name, reason) => {
    const zip = zipOf([
      ...entries,
      { name, bytes: name.endsWith('/') ? new Uint8Array() : forged },
    ]);
    expect(readZipStrictly(zip).problems).toEqual([{ entry: name, reason }]);
  });

  it('refuses bytes that no entry of the central directory accounts for', () => {
    const zip = zipOf(entries, { gap: 40 });
    const end = zip.length - 22 - 46 * 2 - 'manifest.json'.length - text.length;
    expect(readZipStrictly(zip).problems).toEqual([
      { reason: `bytes ${end - 40} to ${end} belong to no entry` },
    ]);
  });

  it('refuses what is no ZIP, or a ZIP with anything after its end', () => {
    expect(readZipStrictly(strToU8('not a zip')).problems).toEqual([
      { reason: 'not a ZIP archive (no end of central directory)' },
    ]);
    const trailing = Buffer.concat([zipOf(entries), Buffer.from('extra')]);
    expect(readZipStrictly(trailing).problems).toEqual([
      { reason: 'not a ZIP archive (no end of central directory)' },
    ]);
  });
});

describe('the test helper that forges archives', () => {
  it('states the CRC-32 of the check vector "123456789", 0xCBF43926, in both headers', () => {
    const zip = Buffer.from(zipOf([{ name: 'a', bytes: strToU8('123456789') }]));
    expect(zip.readUInt32LE(14)).toBe(0xcbf43926);
    expect(zip.readUInt32LE(30 + 1 + 9 + 16)).toBe(0xcbf43926);
  });
});
