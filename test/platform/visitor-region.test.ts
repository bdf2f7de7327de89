/**
 * Where a visitor is: from the header the operator's proxy sets, else from a MaxMind-format
 * database (MaxMind's own test file, test/fixtures/maxmind/README.md, whose entries are the
 * expected values), else nowhere.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/platform/config.js';
import { openVisitorRegion } from '../../src/platform/visitor-region.js';

const database = join(import.meta.dirname, '../fixtures/maxmind/GeoIP2-City-Test.mmdb');
const none = { countryHeader: undefined, subdivisionHeader: undefined, database: undefined };

describe('the visitor’s region', () => {
  it('comes from nowhere when no source is set: null for every request', async () => {
    const region = await openVisitorRegion(none);
    expect(region.of({ 'cf-ipcountry': 'TH' }, '216.160.83.56')).toBeNull();
    expect(region.headers).toEqual([]);
    expect(region.byAddress).toBe(false);
  });

  it('is the proxy’s country header, with its subdivision header where it sends one', async () => {
    const region = await openVisitorRegion({
      ...none,
      countryHeader: 'cf-ipcountry',
      subdivisionHeader: 'cf-region-code',
    });
    expect(region.of({ 'cf-ipcountry': 'TH' }, '127.0.0.1')).toBe('TH');
    expect(region.of({ 'cf-ipcountry': 'th' }, '127.0.0.1')).toBe('TH');
    expect(region.of({ 'cf-ipcountry': 'US', 'cf-region-code': 'CA' }, '127.0.0.1')).toBe('US-CA');
    // Cloudflare's unknown and Tor, and what is no code, say nothing.
    for (const value of ['XX', 'T1', 'Thailand', '', 'T']) {
      expect(region.of({ 'cf-ipcountry': value }, '127.0.0.1'), value).toBeNull();
    }
    expect(region.of({ 'cf-ipcountry': 'US', 'cf-region-code': 'California' }, '::1')).toBe('US');
    // Another header is not the trusted one.
    expect(region.of({ 'x-country': 'TH' }, '127.0.0.1')).toBeNull();
    expect(region.headers).toEqual(['cf-ipcountry', 'cf-region-code']);
    expect(region.byAddress).toBe(false);
  });

  it('is the database’s country and first subdivision for the address when no header says', async () => {
    const region = await openVisitorRegion({ ...none, countryHeader: 'cf-ipcountry', database });
    expect(region.of({}, '216.160.83.56')).toBe('US-WA');
    expect(region.of({}, '81.2.69.142')).toBe('GB-ENG');
    expect(region.of({}, '::ffff:81.2.69.142')).toBe('GB-ENG');
    expect(region.of({}, '2001:218::1')).toBe('JP');
    // The header wins where it is sent.
    expect(region.of({ 'cf-ipcountry': 'TH' }, '216.160.83.56')).toBe('TH');
    // An address the database has not, or no address at all.
    expect(region.of({}, '127.0.0.1')).toBeNull();
    expect(region.of({}, 'not an address')).toBeNull();
    expect(region.byAddress).toBe(true);
  });

  it('stops the start, naming the setting, when the database is not one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'region-'));
    const file = join(dir, 'not-a-database.mmdb');
    writeFileSync(file, 'country,code\nThailand,TH\n');
    try {
      for (const path of [file, join(dir, 'missing.mmdb')]) {
        const opening = openVisitorRegion({ ...none, database: path });
        await expect(opening).rejects.toBeInstanceOf(ConfigError);
        await expect(opening).rejects.toThrow(`VISITOR_REGION_DATABASE ${path}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
