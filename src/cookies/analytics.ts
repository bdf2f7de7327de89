/**
 * Consent analytics of a system (docs/cookies.md, "Consent analytics"): from its stored choices,
 * day by day in the tenant's time zone, how many visitors chose, how, and the share that granted
 * each category, by region and A/B variant.
 */
import { addDays, daysBetween, isCalendarDay, startOfDayIn } from '../platform/calendar.js';
import type { Executor } from '../platform/db.js';
import { AppError, type ErrorDetail } from '../platform/errors.js';
import { type ChoiceMethod, standardCategories } from './banner-config.js';
import type { ConfigurationContent } from './content.js';
import { listConfigurationRows } from './repository.js';
import { countChoicesPerDay } from './stats-repository.js';
import { getSystem } from './systems.js';
import { type Rate, wilson } from './variant-rates.js';

/** The longest period one look covers: a quarter. */
export const maxAnalyticsDays = 92;

/** Choices of one day, region and variant: how many, how, and each category granted of those offered it. */
export interface AnalyticsRow {
  day: string;
  /** `TH`, `US-CA`; empty when unknown. */
  region: string;
  /** The A/B variant; empty for a configuration without variants. */
  variant: string;
  choices: number;
  methods: Record<ChoiceMethod, number>;
  /** By category: the choices that had it, and those that granted it. */
  categories: Record<string, { offered: number; granted: number }>;
}

/** A total of rows: its choices, and each category's opt-in rate with its 95% interval. */
export interface AnalyticsTotal {
  key: string;
  choices: number;
  methods: Record<ChoiceMethod, number>;
  rates: Record<string, Rate | null>;
}

export interface ChoiceAnalytics {
  system: { scope: string; name: string };
  from: string;
  to: string;
  zone: string;
  /** The refusable categories seen, standard ones first. */
  categories: string[];
  /** By day, region and variant, in that order. */
  rows: AnalyticsRow[];
  /** Every day of the period, with none missing. */
  byDay: AnalyticsTotal[];
  byRegion: AnalyticsTotal[];
  byVariant: AnalyticsTotal[];
}

const noMethods = (): Record<ChoiceMethod, number> => ({
  'accept-all': 0,
  'reject-all': 0,
  custom: 0,
  gpc: 0,
});

/**
 * The period asked for, checked: two calendar days, `from` not after `to`, at most
 * `maxAnalyticsDays` days. `400 1001` naming the field otherwise.
 */
export function analyticsPeriod(from: string, to: string): { from: string; to: string } {
  const details: ErrorDetail[] = [];
  if (!isCalendarDay(from))
    details.push({ field: 'from', issue: 'must be a day, such as 2026-11-01' });
  if (!isCalendarDay(to)) details.push({ field: 'to', issue: 'must be a day, such as 2026-11-30' });
  if (details.length === 0) {
    const span = daysBetween(from, to) + 1;
    if (span < 1) details.push({ field: 'to', issue: 'must not come before from' });
    else if (span > maxAnalyticsDays) {
      details.push({ field: 'to', issue: `must be at most ${maxAnalyticsDays} days after from` });
    }
  }
  if (details.length > 0) throw new AppError('invalidRequest', { details });
  return { from, to };
}

/**
 * A system's choices from day `from` to day `to` (both included) in `zone`, from the store:
 * `404 1004` for a scope that is not the tenant's.
 */
export async function choiceAnalytics(
  db: Executor,
  tenantId: string,
  scope: string,
  period: { from: string; to: string; zone: string },
): Promise<ChoiceAnalytics> {
  const { from, to, zone } = period;
  analyticsPeriod(from, to);
  const system = await getSystem(db, tenantId, scope);
  const dayList = Array.from({ length: daysBetween(from, to) + 1 }, (_, i) => addDays(from, i));
  const days = dayList.map((day) => ({ day, start: startOfDayIn(day, zone) }));
  const counted = await countChoicesPerDay(
    db,
    tenantId,
    system.id,
    days,
    startOfDayIn(to, zone, 1),
  );
  const rows = new Map<string, AnalyticsRow>();
  const seen = new Set<string>();
  for (const row of counted) {
    const key = `${row.day}\u0000${row.region ?? ''}\u0000${row.variant ?? ''}`;
    let into = rows.get(key);
    if (!into) {
      into = {
        day: row.day,
        region: row.region ?? '',
        variant: row.variant ?? '',
        choices: 0,
        methods: noMethods(),
        categories: {},
      };
      rows.set(key, into);
    }
    const count = Number(row.count);
    into.choices += count;
    into.methods[row.method] += count;
    for (const [category, granted] of Object.entries(
      JSON.parse(row.categories) as Record<string, boolean>,
    )) {
      if (category === 'necessary') continue;
      seen.add(category);
      const tally = into.categories[category] ?? { offered: 0, granted: 0 };
      into.categories[category] = tally;
      tally.offered += count;
      if (granted) tally.granted += count;
    }
  }
  const rank = (key: string) => {
    const at = standardCategories.indexOf(key as (typeof standardCategories)[number]);
    return at >= 0 ? at : standardCategories.length;
  };
  const categories = [...seen].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const sorted = [...rows.values()].sort(
    (a, b) =>
      a.day.localeCompare(b.day) ||
      a.region.localeCompare(b.region) ||
      a.variant.localeCompare(b.variant),
  );
  // A category a visitor cannot refuse (required in a configuration of the system) is always
  // granted: its rate tells nothing, and it is left out.
  const required = new Set(
    (await listConfigurationRows(db, tenantId, system.id)).flatMap((row) =>
      (JSON.parse(row.content) as ConfigurationContent).categories
        .filter((c) => c.required)
        .map((c) => c.key),
    ),
  );
  const refusable = categories.filter((category) => !required.has(category));
  const totals = (keys: string[], keyOf: (row: AnalyticsRow) => string) =>
    keys.map((key) =>
      total(
        key,
        sorted.filter((row) => keyOf(row) === key),
        refusable,
      ),
    );
  const distinct = (keyOf: (row: AnalyticsRow) => string) => [...new Set(sorted.map(keyOf))].sort();
  return {
    system: { scope: system.scope, name: system.name },
    from,
    to,
    zone,
    categories: refusable,
    rows: sorted,
    byDay: totals(dayList, (row) => row.day),
    byRegion: totals(
      distinct((row) => row.region),
      (row) => row.region,
    ),
    byVariant: totals(
      distinct((row) => row.variant),
      (row) => row.variant,
    ),
  };
}

function total(key: string, rows: AnalyticsRow[], categories: string[]): AnalyticsTotal {
  const methods = noMethods();
  let choices = 0;
  for (const row of rows) {
    choices += row.choices;
    for (const method of Object.keys(methods) as ChoiceMethod[]) {
      methods[method] += row.methods[method];
    }
  }
  const rates: Record<string, Rate | null> = {};
  for (const category of categories) {
    let offered = 0;
    let granted = 0;
    for (const row of rows) {
      offered += row.categories[category]?.offered ?? 0;
      granted += row.categories[category]?.granted ?? 0;
    }
    rates[category] = wilson(granted, offered);
  }
  return { key, choices, methods, rates };
}
