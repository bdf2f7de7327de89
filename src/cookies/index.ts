/** The public surface of `src/cookies/`: what other folders may import (its README says what the folder is for). */

export {
  type AnalyticsRow,
  type AnalyticsTotal,
  analyticsPeriod,
  type ChoiceAnalytics,
  choiceAnalytics,
  maxAnalyticsDays,
} from './analytics.js';
export type {
  BannerConfig,
  ChoiceAnswer,
  ChoiceBody,
  ChoiceMethod,
} from './banner-config.js';
export { standardCategories } from './banner-config.js';
export {
  type CookieConfiguration,
  changeConfiguration,
  configurationSteps,
  createConfiguration,
  type Editor,
  getConfiguration,
  listConfigurations,
  publishConfiguration,
  publishLatestOutsideReview,
  type ReviewMove,
  reviewConfiguration,
  unpublishConfiguration,
} from './configurations.js';
export {
  bannerConfig,
  type ConfigurationContent,
  categoryKeyPattern,
  checkContent,
  contentSha256,
  fingerprintOf,
} from './content.js';
export { newCategory, withLocale, withoutLocale } from './content-edits.js';
export {
  browseCookieDecisions,
  type CookieDecisionFilter,
  type CookieDecisionListItem,
  cookieDecisionsPerPage,
  exportCookieDecisions,
} from './decision-filters.js';
export { type CookieDecisionView, cookieDecisions } from './decisions.js';
export { defaultContent } from './defaults.js';
export { approveConfiguration, copyConfiguration, deleteConfiguration } from './drafts.js';
export { CookieReceipt, cookieChoices, cookieReceipt } from './kind.js';
export { type LoggedCookieDecision, leafOfCookieDecision } from './leaf.js';
export { previewScript } from './preview.js';
export {
  countRefusedOrigins,
  listRefusedOrigins,
  type RefusedOrigin,
  type RefusedOrigins,
  refusedOriginsKept,
} from './refused-origins.js';
export { configurationFourEyes } from './review-bar.js';
export { type ChoiceRates, cookieChoiceRates } from './stats.js';
export {
  type CookieSystem,
  changeSystem,
  createSystem,
  getSystem,
  listSystems,
  scriptTag,
  systemById,
} from './systems.js';
export type {
  ConfigurationStatus,
  CookieConfigurationRow,
  CookieDecisionRow,
  CookieSystemRow,
} from './table.js';
export { type Rate, type VariantRates, variantRates } from './variant-rates.js';
export { countVisitorChoices, eraseCookieVisitor } from './visitor.js';
export { configurationsWaitingFor, type WaitingConfiguration } from './waiting.js';
export type {
  CookieChoiceJob,
  CookieChoiceOutcome,
  CookieChoiceWriter,
} from './writes.js';
