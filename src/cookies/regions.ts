/**
 * A configuration's rules by visitor region (docs/cookies.md, "Rules by region"): which codes a
 * rule may name, and which rule a visitor's region gets. A region is what
 * `src/platform/visitor-region.ts` finds: a country (`TH`) or a country's subdivision (`US-CA`).
 */
import type { ErrorDetail } from '../platform/errors.js';

/** How the banner treats a visitor before and when they choose (banner/main.ts). */
export type ConsentMode = 'opt-in' | 'opt-out';

/** A rule: the codes it covers, and its mode. */
export interface RegionRule {
  codes: string[];
  mode: ConsentMode;
}

/** The European Union's 27 member states (2026). */
const eu = [
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
];

/** Names a rule may use for several countries: the EU, and the EEA (the EU, Iceland, Liechtenstein, Norway). */
export const regionGroups: Readonly<Record<string, readonly string[]>> = {
  EU: eu,
  EEA: [...eu, 'IS', 'LI', 'NO'],
};

const regionNames = new Intl.DisplayNames('en', { type: 'region', fallback: 'none' });
/**
 * Codes ICU names that are no country: exceptionally reserved (`EU`, `EZ`, `UN`, `UK`) or
 * user-assigned (`Q*`, `X*`, `ZZ`, `AA`).
 */
const notCountry = /^(?:EU|EZ|UN|UK|AA|ZZ|Q[M-Z]|X[A-Z])$/;

/** Whether `code` is an ISO 3166-1 alpha-2 country (ICU's list of region names). */
export function isCountry(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && !notCountry.test(code) && regionNames.of(code) !== undefined;
}

/**
 * Checks a configuration's rules (`regions`): each code a country (`TH`), a country's
 * subdivision (`US-CA`) or a group (`EU`, `EEA`), upper-cased, and in one rule only. Problems go
 * to `details`, naming the field; answers the rules with their codes in one form.
 */
export function checkRegionRules(rules: RegionRule[], details: ErrorDetail[]): RegionRule[] {
  const seen = new Map<string, number>();
  return rules.map((rule, i) => ({
    ...rule,
    codes: rule.codes.map((given, at) => {
      const code = given.toUpperCase();
      const field = `regions.${i}.codes.${at}`;
      const [country, part] = code.split('-') as [string, string | undefined];
      const known =
        code in regionGroups ||
        (isCountry(country) && (part === undefined || /^[A-Z0-9]{1,3}$/.test(part)));
      if (!known) {
        details.push({
          field,
          issue: 'must be a country (TH), a subdivision of one (US-CA), EU or EEA',
        });
      } else if (seen.has(code)) {
        details.push({ field, issue: `is in rule ${seen.get(code)} already` });
      }
      seen.set(code, i);
      return code;
    }),
  }));
}

/**
 * The mode for a visitor's region: the rule naming the region itself (`US-CA`), else its country
 * (`US`), else a group holding the country (the EU before the EEA), else `fallback`, the
 * configuration's own `mode`. An unknown region (null) gets `fallback`.
 */
export function modeFor(
  rules: readonly RegionRule[] | undefined,
  fallback: ConsentMode,
  region: string | null,
): ConsentMode {
  if (!rules || rules.length === 0 || region === null) return fallback;
  const country = region.split('-')[0] as string;
  const candidates = [
    region,
    country,
    ...Object.entries(regionGroups)
      .filter(([, members]) => members.includes(country))
      .map(([group]) => group),
  ];
  for (const code of candidates) {
    const rule = rules.find((r) => r.codes.includes(code));
    if (rule) return rule.mode;
  }
  return fallback;
}
