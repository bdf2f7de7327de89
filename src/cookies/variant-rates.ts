/**
 * An A/B test's results (docs/cookies.md, "A/B tests"): per variant of a configuration, how many
 * visitors chose, and per category the share that granted it, with its 95% confidence interval.
 */
import type { Executor } from '../platform/db.js';
import type { ConfigurationContent } from './content.js';
import { countChoicesPerVariant } from './stats-repository.js';
import { baseVariant } from './variants.js';

/** A share and its 95% confidence interval, each from 0 to 1. */
export interface Rate {
  granted: number;
  rate: number;
  low: number;
  high: number;
}

export interface VariantRates {
  variant: string;
  /** Per cent of visitors the configuration sends to it. */
  weight: number;
  choices: number;
  /** By category a visitor can refuse, in the configuration's order. */
  categories: Record<string, Rate | null>;
}

/** The normal quantile of 97.5%: a two-sided 95% interval. */
const z = 1.959963984540054;

/**
 * The Wilson score interval of `granted` out of `n` (Wilson 1927): unlike the normal
 * approximation it stays within 0 and 1 and holds for the small counts a new test starts with.
 * Null for no choice.
 */
export function wilson(granted: number, n: number): Rate | null {
  if (n === 0) return null;
  const p = granted / n;
  const d = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / d;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return {
    granted,
    rate: p,
    low: Math.max(0, centre - half),
    high: Math.min(1, centre + half),
  };
}

/**
 * The opt-in rates of a configuration's variants, from its stored choices: the base first, then
 * each variant in the configuration's order, every one listed even with no choice yet.
 */
export async function variantRates(
  db: Executor,
  tenantId: string,
  configuration: { id: string; content: ConfigurationContent },
): Promise<VariantRates[]> {
  const { content } = configuration;
  const variants = content.variants ?? [];
  const refusable = content.categories.filter((c) => !c.required).map((c) => c.key);
  const arms = [
    { key: baseVariant, weight: 100 - variants.reduce((sum, v) => sum + v.weight, 0) },
    ...variants.map((v) => ({ key: v.key, weight: v.weight })),
  ];
  const tallies = new Map(
    arms.map((arm) => [arm.key, { n: 0, granted: new Map(refusable.map((k) => [k, 0])) }]),
  );
  for (const row of await countChoicesPerVariant(db, tenantId, configuration.id)) {
    const tally = tallies.get(row.variant ?? baseVariant);
    if (!tally) continue;
    const count = Number(row.count);
    tally.n += count;
    const chosen = JSON.parse(row.categories) as Record<string, boolean>;
    for (const key of refusable) {
      if (chosen[key]) tally.granted.set(key, (tally.granted.get(key) ?? 0) + count);
    }
  }
  return arms.map((arm) => {
    const tally = tallies.get(arm.key) ?? { n: 0, granted: new Map<string, number>() };
    return {
      variant: arm.key,
      weight: arm.weight,
      choices: tally.n,
      categories: Object.fromEntries(
        refusable.map((key) => [key, wilson(tally.granted.get(key) ?? 0, tally.n)]),
      ),
    };
  });
}
