/**
 * The Open Cookie Database (vendor/open-cookie-database, Apache-2.0): which platform sets a
 * cookie of a given name, for what, for how long, and so which banner category it belongs to.
 * Parsed once with `csv-parse`; a name is matched exactly, else by the longest prefix among the
 * entries marked a wildcard match (`_ga_` for `_ga_ABC123`).
 */
import { parse } from 'csv-parse/sync';

/** The banner categories a database entry falls in (src/cookies' `necessary` and standard four). */
export type CookieCategory =
  | 'necessary'
  | 'functional'
  | 'analytics'
  | 'marketing'
  | 'personalization';

/** One entry of the database, as a classification states it. */
export interface KnownCookie {
  /** The database's own id of the entry. */
  id: string;
  /** The platform that sets it (`Google Analytics`). */
  platform: string;
  category: CookieCategory;
  /** The name as the database has it (a prefix, for a wildcard entry). */
  name: string;
  /** The domain it names, when it names one. */
  domain: string;
  description: string;
  retention: string;
  /** Who controls the data (`Google`). */
  controller: string;
  privacyUrl: string;
  wildcard: boolean;
}

/** The database's categories, as the banner's. Security and Necessary are both necessary. */
const categories: Readonly<Record<string, CookieCategory>> = {
  Necessary: 'necessary',
  Security: 'necessary',
  Functional: 'functional',
  Analytics: 'analytics',
  Marketing: 'marketing',
  Personalization: 'personalization',
};

const columns = [
  'ID',
  'Platform',
  'Category',
  'Cookie / Data Key name',
  'Domain',
  'Description',
  'Retention period',
  'Data Controller',
  'User Privacy & GDPR Rights Portals',
  'Wildcard match',
] as const;

/** A database, read: its entries and a classifier over them. */
export interface CookieDatabase {
  size: number;
  /** The entry that names a cookie of this name; undefined for one it does not know. */
  classify(name: string): KnownCookie | undefined;
}

/**
 * Reads a database file in the project's CSV form (its header exactly). Throws, naming the line,
 * for a file of another form or an entry of an unknown category.
 */
export function readCookieDatabase(text: string): CookieDatabase {
  const rows = parse(text, { bom: true, relax_column_count: false }) as string[][];
  const [header, ...entries] = rows;
  if (!header || header.join(',') !== columns.join(',')) {
    throw new Error(`not an Open Cookie Database file: its header is not ${columns.join(',')}`);
  }
  const exact = new Map<string, KnownCookie>();
  const prefixes: KnownCookie[] = [];
  entries.forEach((row, i) => {
    const [id, platform, category, name, domain, description, retention, controller, url, wild] =
      row as [string, string, string, string, string, string, string, string, string, string];
    const mapped = categories[category];
    if (!mapped) throw new Error(`line ${i + 2}: unknown category ${JSON.stringify(category)}`);
    const entry: KnownCookie = {
      id,
      platform,
      category: mapped,
      name,
      domain,
      description,
      retention,
      controller,
      privacyUrl: url,
      wildcard: wild === '1',
    };
    if (entry.wildcard) prefixes.push(entry);
    // The first entry of a name stands: the database lists a name once but for variants.
    else if (!exact.has(name)) exact.set(name, entry);
  });
  // The longest prefix first, so `_gat_` wins over `_ga` where both would match.
  prefixes.sort((a, b) => b.name.length - a.name.length);
  return {
    size: entries.length,
    classify(name) {
      return exact.get(name) ?? prefixes.find((p) => p.name !== '' && name.startsWith(p.name));
    },
  };
}
