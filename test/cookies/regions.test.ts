/**
 * A configuration's rules by region (docs/cookies.md, "Rules by region"): which codes a rule may
 * name, and which rule a visitor's region gets, most specific first.
 */
import { describe, expect, it } from 'vitest';
import {
  type ConfigurationContent,
  checkContent,
  defaultContent,
} from '../../src/cookies/index.js';
import { modeFor, type RegionRule } from '../../src/cookies/regions.js';
import { AppError } from '../../src/platform/errors.js';

const base = defaultContent(['analytics', 'marketing']);

function refusal(content: unknown) {
  try {
    checkContent(content);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).details;
  }
  throw new Error('the content was accepted');
}

describe('rules by region', () => {
  it('takes countries, subdivisions, EU and EEA, in any case, and keeps them upper-case', () => {
    const checked = checkContent({
      ...base,
      mode: 'opt-in',
      regions: [
        { codes: ['th', 'EEA', 'GB'], mode: 'opt-in' },
        { codes: ['us-ca', 'US-CO'], mode: 'opt-out' },
      ],
    });
    expect(checked.mode).toBe('opt-in');
    expect(checked.regions).toEqual([
      { codes: ['TH', 'EEA', 'GB'], mode: 'opt-in' },
      { codes: ['US-CA', 'US-CO'], mode: 'opt-out' },
    ]);
    // A content without rules stays as it was: nothing added.
    expect(checkContent(base)).not.toHaveProperty('regions');
    expect(checkContent(base)).not.toHaveProperty('mode');
  });

  it('refuses a code that is no country, a code in two rules, and a mode it does not know', () => {
    expect(
      refusal({
        ...base,
        regions: [
          { codes: ['TH', 'XX', 'UK'], mode: 'opt-in' },
          { codes: ['ZZ-CA', 'th'], mode: 'opt-out' },
        ],
      }),
    ).toEqual([
      {
        field: 'regions.0.codes.1',
        issue: 'must be a country (TH), a subdivision of one (US-CA), EU or EEA',
      },
      {
        field: 'regions.0.codes.2',
        issue: 'must be a country (TH), a subdivision of one (US-CA), EU or EEA',
      },
      {
        field: 'regions.1.codes.0',
        issue: 'must be a country (TH), a subdivision of one (US-CA), EU or EEA',
      },
      { field: 'regions.1.codes.1', issue: 'is in rule 0 already' },
    ]);
    expect(refusal({ ...base, mode: 'notice' })).toEqual([
      { field: 'mode', issue: expect.stringContaining('allowed values') },
    ]);
    expect(refusal({ ...base, regions: [{ codes: [], mode: 'opt-in' }] })).toEqual([
      expect.objectContaining({ field: 'regions.0.codes' }),
    ]);
  });

  it('gives a region its own rule, else its country’s, else its group’s (the EU before the EEA), else the default', () => {
    const rules: RegionRule[] = [
      { codes: ['US-CA'], mode: 'opt-out' },
      { codes: ['US'], mode: 'opt-in' },
      { codes: ['EU'], mode: 'opt-in' },
      { codes: ['EEA', 'DE'], mode: 'opt-out' },
    ];
    const cases: Array<[string | null, string]> = [
      ['US-CA', 'opt-out'],
      ['US-WA', 'opt-in'],
      ['US', 'opt-in'],
      ['DE', 'opt-out'],
      ['DE-BY', 'opt-out'],
      ['FR', 'opt-in'],
      ['NO', 'opt-out'],
      ['TH', 'opt-in'],
      [null, 'opt-in'],
    ];
    for (const [region, mode] of cases)
      expect(modeFor(rules, 'opt-in', region), `${region}`).toBe(mode);
    expect(modeFor(rules, 'opt-out', 'TH')).toBe('opt-out');
    expect(modeFor(undefined, 'opt-out', 'US-CA')).toBe('opt-out');
  });

  it('writes opt-out into the banner’s configuration only for a visitor whose rule it is', async () => {
    const { bannerConfig } = await import('../../src/cookies/content.js');
    const content: ConfigurationContent = checkContent({
      ...base,
      regions: [{ codes: ['US-CA'], mode: 'opt-out' }],
    });
    const details = {
      scope: 'cs_00000000000000000001',
      decisions_url: 'https://consent.example/cookies/v1/cs_00000000000000000001/decisions',
      configuration: { id: '0190e8a0-0000-7000-8000-0000000000dd', version: 1, fingerprint: 'f' },
      gpc: false,
    };
    expect(bannerConfig(content, { ...details, mode: 'opt-out' }).mode).toBe('opt-out');
    expect(bannerConfig(content, { ...details, mode: 'opt-in' })).not.toHaveProperty('mode');
  });
});
