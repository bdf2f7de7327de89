import type { BannerConfig } from '../banner-config.js';

/**
 * The service replaces this identifier, in the built bundle, with the JSON of the system's
 * configuration (`bannerScript` in `../banner-script.ts`): it must stay a bare global that the
 * bundler neither renames nor repeats, so it is named here and nowhere else.
 */
declare const __CONSENTRIX_CONFIG__: BannerConfig;

export const config: BannerConfig = __CONSENTRIX_CONFIG__;
