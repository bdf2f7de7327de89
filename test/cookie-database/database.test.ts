/**
 * The pinned Open Cookie Database and its classifier (vendor/open-cookie-database/SOURCE.md):
 * the file is the one pinned, byte for byte; well-known cookies are classified as its own lines
 * say (quoted here from the file); a wildcard entry matches by prefix, the longest first; a file
 * of another form, or an unknown category, is refused naming what is wrong.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pinnedCookieDatabase, readCookieDatabase } from '../../src/cookie-database/index.js';

const file = new URL('../../vendor/open-cookie-database/open-cookie-database.csv', import.meta.url);
const header =
  'ID,Platform,Category,Cookie / Data Key name,Domain,Description,Retention period,Data Controller,User Privacy & GDPR Rights Portals,Wildcard match';

describe('the pinned Open Cookie Database', () => {
  it('is the file SOURCE.md pins, with its 2,264 entries', () => {
    const bytes = readFileSync(file);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(
      '0a8d78901ae55d859e34f7cc760262819af4c764b4f9bc3bbdeea2296e31f156',
    );
    expect(pinnedCookieDatabase().size).toBe(2264);
  });

  it('classifies _ga as analytics from Google, and _gid, and a Meta Pixel cookie as marketing', () => {
    // 256c18e8-d881-11e9-8a34-2a2ae2dbcce4,Google Analytics,Analytics,_ga,,ID used to identify users,2 years,Google,…,0
    expect(pinnedCookieDatabase().classify('_ga')).toMatchObject({
      id: '256c18e8-d881-11e9-8a34-2a2ae2dbcce4',
      platform: 'Google Analytics',
      category: 'analytics',
      controller: 'Google',
      retention: '2 years',
      wildcard: false,
    });
    expect(pinnedCookieDatabase().classify('_gid')).toMatchObject({
      platform: 'Google Analytics',
      category: 'analytics',
      retention: '24 hours',
    });
    expect(pinnedCookieDatabase().classify('_fbp')).toMatchObject({ category: 'marketing' });
  });

  it('matches a wildcard entry by prefix, the longest first; an unknown name is undefined', () => {
    // d7496a0e-7f4b-4e20-b288-9d5e4852fa79,Google Analytics,Analytics,_ga_,,"ID used to identify users",2 years,Google,…,1
    expect(pinnedCookieDatabase().classify('_ga_ABC123XYZ')).toMatchObject({
      id: 'd7496a0e-7f4b-4e20-b288-9d5e4852fa79',
      name: '_ga_',
      wildcard: true,
    });
    const db = readCookieDatabase(
      `${header}\n` +
        'a,P,Analytics,_x,,d,1 day,C,,1\n' +
        'b,Q,Marketing,_x_ads,,d,1 day,C,,1\n' +
        'c,R,Security,_x_ads_exact,,d,1 day,C,,0\n',
    );
    expect(db.classify('_x_ads_1')?.id).toBe('b');
    expect(db.classify('_x_1')?.id).toBe('a');
    expect(db.classify('_x_ads_exact')).toMatchObject({ id: 'c', category: 'necessary' });
    expect(db.classify('session')).toBeUndefined();
  });

  it('refuses a file of another form, or an unknown category, naming what is wrong', () => {
    expect(() => readCookieDatabase('name,category\n_ga,Analytics\n')).toThrow(
      /not an Open Cookie Database file/,
    );
    expect(() => readCookieDatabase(`${header}\na,P,Tracking,_x,,d,1 day,C,,0\n`)).toThrow(
      'line 2: unknown category "Tracking"',
    );
  });
});
