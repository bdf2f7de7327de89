import { config } from './config.js';

/**
 * The A/B variant a visitor sees (../variants.ts draws it the same way, and the service checks
 * a choice's variant against it): the first 8 hex digits of their id, modulo 100, against the
 * variants' shares in order; the rest see the configuration itself, `base`. Its texts and
 * layout are laid over the configuration's before anything is shown, so every page of the
 * visit shows the same.
 */
export function applyVariant(visitorId: string): string {
  const bucket = Number.parseInt(visitorId.slice(0, 8), 16) % 100;
  let upTo = 0;
  for (const variant of config.variants ?? []) {
    upTo += variant.weight;
    if (bucket >= upTo) continue;
    for (const [locale, texts] of Object.entries(variant.texts ?? {})) {
      Object.assign(config.texts[locale] ?? {}, texts);
    }
    const { colors, ...layout } = variant.layout ?? {};
    Object.assign(config.layout, layout);
    Object.assign(config.layout.colors, colors);
    return variant.key;
  }
  return 'base';
}
