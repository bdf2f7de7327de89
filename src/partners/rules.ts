import type { ErrorDetail } from '../platform/errors.js';

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
/** Two-letter codes ICU names that are no country: groupings, and "unknown". */
const notCountries = new Set(['EU', 'EZ', 'UN', 'QO', 'ZZ']);

/** The country as stored (upper case), or the issue with it: ISO 3166-1 alpha-2, a known one. */
export function checkCountry(input: string): { value: string } | ErrorDetail {
  const code = input.toUpperCase();
  let name: string | undefined;
  try {
    name = regionNames.of(code);
  } catch {
    name = undefined;
  }
  // ICU answers an unassigned code with the code itself.
  if (!name || name === code || notCountries.has(code)) {
    return { field: 'country', issue: 'must be an ISO 3166-1 alpha-2 country code' };
  }
  return { value: code };
}

/** The policy link as stored, or the issue with it: an absolute https URL. */
export function checkPolicyUrl(input: string): { value: string } | ErrorDetail {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { field: 'policy_url', issue: 'must be an https URL' };
  }
  if (url.protocol !== 'https:' || url.hostname === '') {
    return { field: 'policy_url', issue: 'must be an https URL' };
  }
  return { value: input };
}
