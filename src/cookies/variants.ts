/**
 * A configuration's A/B variants (docs/cookies.md, "A/B tests"): other texts or layout shown to
 * a share of the visitors, each choice recording the variant its visitor saw, and the check that
 * keeps a test from finding its way to a dark pattern: in every variant, rejecting takes no more
 * clicks than accepting, and its control is of the same kind, size and contrast.
 */
import { AppError, type ErrorDetail } from '../platform/errors.js';
import type { ConfigurationContent } from './content.js';

/** What a visitor not drawn into a variant sees: the configuration itself. */
export const baseVariant = 'base';

type Layout = ConfigurationContent['layout'];

/** How a layout shows *Reject all* (absent: a filled button on the first layer, as *Accept all*). */
export interface RejectControl {
  reject_style?: 'filled' | 'outlined' | 'link';
  reject_layer?: 'first' | 'preferences';
}

/**
 * Checks the variants beside the rest of the content (`checkContent`): each key once and not
 * `base`, the shares at most 100 in all, and texts only in the configuration's locales.
 */
export function checkVariants(content: ConfigurationContent, details: ErrorDetail[]): void {
  const variants = content.variants ?? [];
  const keys = new Set<string>();
  let share = 0;
  variants.forEach((variant, i) => {
    if (variant.key === baseVariant || keys.has(variant.key)) {
      details.push({ field: `variants.${i}.key`, issue: `must be unique and not ${baseVariant}` });
    }
    keys.add(variant.key);
    share += variant.weight;
    for (const locale of Object.keys(variant.texts ?? {})) {
      if (!content.texts[locale]) {
        details.push({
          field: `variants.${i}.texts.${locale}`,
          issue: `has ${locale}, which texts has not`,
        });
      }
    }
  });
  if (share > 100) {
    details.push({ field: 'variants', issue: 'share more than 100% of the visitors' });
  }
}

/** The layout a variant shows: the configuration's, with the variant's changes. */
export function layoutOf(content: ConfigurationContent, key: string): Layout & RejectControl {
  const variant = content.variants?.find((v) => v.key === key);
  return {
    ...content.layout,
    ...variant?.layout,
    colors: { ...content.layout.colors, ...variant?.layout?.colors },
  };
}

/** Why a layout makes rejecting harder or less prominent than accepting; none when it does not. */
export function unfairReject(layout: RejectControl): string[] {
  const problems: string[] = [];
  if ((layout.reject_layer ?? 'first') !== 'first') {
    problems.push(
      'rejecting takes 2 clicks (Preferences, then Save) where accepting takes 1: Reject all must be on the first layer',
    );
  }
  const style = layout.reject_style ?? 'filled';
  if (style !== 'filled') {
    problems.push(
      `Reject all is ${style === 'link' ? 'a link' : 'an outlined button'} where Accept all is a filled button: it must be the same kind of control, of the same size and colours`,
    );
  }
  return problems;
}

/**
 * The check at review (docs/cookies.md, "A/B tests"): a configuration with variants may leave
 * draft, be passed, approved and published only when every variant, and the configuration
 * itself as the base one, shows *Reject all* as it shows *Accept all*. `400 1001` naming each
 * variant's problem otherwise.
 */
export function assertFairVariants(content: ConfigurationContent): void {
  const variants = content.variants ?? [];
  if (variants.length === 0) return;
  const details: ErrorDetail[] = [];
  for (const [field, key] of [
    ['layout', baseVariant] as const,
    ...variants.map((v, i) => [`variants.${i}.layout`, v.key] as const),
  ]) {
    for (const issue of unfairReject(layoutOf(content, key))) {
      details.push({ field, issue: `(variant ${key}) ${issue}` });
    }
  }
  if (details.length > 0) {
    throw new AppError('invalidRequest', {
      message: 'A variant makes rejecting harder or less prominent than accepting.',
      details,
    });
  }
}

/**
 * The variant a visitor sees, from their id: the first 8 hex digits, modulo 100, against the
 * shares in order (the rest: base). The banner draws it the same way (banner/variant.ts), so a
 * visitor keeps their variant on every page.
 */
export function variantOfVisitor(content: ConfigurationContent, visitorId: string): string {
  const bucket = Number.parseInt(visitorId.slice(0, 8), 16) % 100;
  let upTo = 0;
  for (const variant of content.variants ?? []) {
    upTo += variant.weight;
    if (bucket < upTo) return variant.key;
  }
  return baseVariant;
}
