/**
 * Where a website visitor's request comes from, for cookie consent's rules by region
 * (docs/cookies.md, "Rules by region"): an ISO 3166-1 country (`TH`), or a country and its
 * ISO 3166-2 subdivision (`US-CA`) where the source gives one. The source is the operator's:
 * a header their trusted proxy sets (`VISITOR_COUNTRY_HEADER`, `VISITOR_SUBDIVISION_HEADER`),
 * else a MaxMind-format database file (`VISITOR_REGION_DATABASE`, read with `maxmind`) asked for
 * the request's address. Neither named: no region, and every visitor gets the default rule.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { type CityResponse, open } from 'maxmind';
import { ConfigError, type VisitorRegionSettings } from './config.js';

/** Two capital letters: what every proxy sends, `XX` and `T1` (Cloudflare's unknown and Tor) aside. */
const countryPattern = /^[A-Z]{2}$/;
/** The part of an ISO 3166-2 code after the country's: `CA` of `US-CA`, `10` of `TH-10`. */
const subdivisionPattern = /^[A-Z0-9]{1,3}$/;
/** What no proxy or database means as a country: unknown, Tor, anonymous proxies, satellite. */
const notCountries = new Set(['XX', 'ZZ', 'A1', 'A2', 'AP', 'EU', 'O1']);

export interface VisitorRegion {
  /** The region of a request: `TH`, `US-CA`; null when the source does not say or none is set. */
  of(headers: IncomingHttpHeaders, ip: string): string | null;
  /** The request headers its answer depends on, for a response's `Vary`. */
  readonly headers: readonly string[];
  /**
   * Its answer can depend on the address (a database is asked): a response that differs by it
   * must not be kept by a shared cache, which sees other visitors behind it.
   */
  readonly byAddress: boolean;
}

/** No source: no region for anybody. */
export const noVisitorRegion: VisitorRegion = { of: () => null, headers: [], byAddress: false };

/**
 * The source the settings name, with its database opened once (a file that is not one stops the
 * start, naming the setting).
 */
export async function openVisitorRegion(settings: VisitorRegionSettings): Promise<VisitorRegion> {
  const { countryHeader, subdivisionHeader } = settings;
  if (!countryHeader && !settings.database) return noVisitorRegion;
  let lookup: ((ip: string) => CityResponse | null) | undefined;
  if (settings.database) {
    try {
      const reader = await open<CityResponse>(settings.database);
      lookup = (ip) => {
        try {
          return reader.get(ip);
        } catch {
          // Not an address the database can look up (a Unix socket's peer, say): no region.
          return null;
        }
      };
    } catch (error) {
      throw new ConfigError(
        `Invalid configuration: VISITOR_REGION_DATABASE ${settings.database} is not a MaxMind database that can be read (${(error as Error).message})`,
      );
    }
  }
  const headers = [countryHeader, countryHeader ? subdivisionHeader : undefined].filter(
    (name): name is string => name !== undefined,
  );
  return {
    headers,
    byAddress: lookup !== undefined,
    of(requestHeaders, ip) {
      const country = countryHeader ? headerCountry(requestHeaders[countryHeader]) : null;
      if (country) {
        const part = subdivisionHeader ? one(requestHeaders[subdivisionHeader]) : undefined;
        return regionOf(country, part);
      }
      const found = lookup?.(ip);
      if (!found) return null;
      const code = found.country?.iso_code;
      if (!code || !countryPattern.test(code) || notCountries.has(code)) return null;
      return regionOf(code, found.subdivisions?.[0]?.iso_code);
    },
  };
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function headerCountry(value: string | string[] | undefined): string | null {
  const code = one(value)?.trim().toUpperCase();
  return code && countryPattern.test(code) && !notCountries.has(code) ? code : null;
}

/** `US` and `CA` as `US-CA`; a subdivision that is no code is left out. */
function regionOf(country: string, subdivision: string | undefined): string {
  const part = subdivision?.trim().toUpperCase();
  return part && subdivisionPattern.test(part) ? `${country}-${part}` : country;
}
