/** The public surface of `src/templates/`: what other folders may import (its README says what the folder is for). */
export {
  changeTemplateAs,
  changeValidityAs,
  createDraftAs,
  createTemplateAs,
  customersPerTemplate,
  publishEffect,
  publishOutsideReview,
  removeDraftVariantAs,
  restoreTemplate,
  retireTemplate,
  saveDraftVariantAs,
  templateOverview,
  updateDraftAs,
} from './actions.js';
export {
  answerForm,
  LocaleQuery,
  latestAnswer,
  localesOf,
} from './answer.js';
export { type Author, releaseEdits } from './authorship.js';
export { type Catalog, createCatalog, type LatestEntry, variantFor } from './catalog.js';
export { type ContentDiff, contentDiff } from './diff.js';
export {
  attachContentFile,
  contentFileOf,
  maxContentFileBytes,
  removeContentFile,
  type Upload,
} from './files.js';
export {
  type FourEyesBar,
  fourEyesBar,
  fourEyesMessage,
  type GuardedStep,
  mayPassOrApprove,
} from './four-eyes.js';
export { versionEvents } from './kind.js';
export { isLive, liveAt } from './live.js';
export { canonicalLocale, chooseLocale, localeRange, requestedLocales } from './locales.js';
export {
  type ListedPartner,
  partnerChanges,
  releasePartners,
  setDraftPartnersAs,
} from './partners.js';
export {
  changeRepresentationAs,
  formatRepresentation,
  parseRepresentation,
  type RepresentationBasis,
  type RepresentationRule,
  type RepresentationVerdict,
  representationBases,
  representationOf,
  representationVerdict,
  type Side,
  type WhoActs,
  whoActs,
} from './representation.js';
export {
  approveVersion,
  type ChangeSinceReview,
  changesSinceReview,
  commentMaxLength,
  compareWithLatest,
  type Reviewer,
  reviewHistory,
  reviewTimeline,
  takeReviewStep,
  type VersionHistory,
  versionsWaitingFor,
  type WaitingVersion,
} from './review.js';
export { sanitizeContent } from './sanitize.js';
export {
  cancelScheduledRelease,
  effectiveInstant,
  isScheduled,
  scheduledRelease,
  scheduledReleases,
} from './schedule.js';
export {
  NewTemplate,
  NewVersion,
  PublishedVersion,
  TemplateCodeParam,
  templateCodePattern,
} from './schemas.js';
export {
  changeDataCategoriesAs,
  type DataCategory,
  dataCategories,
  dataCategoriesOf,
} from './sensitivity.js';
export {
  contentFileUrl,
  createTemplate,
  findLatestVersion,
  getRelease,
  getTemplateByCode,
  getVersion,
  listTemplates,
  listVariants,
  listVersions,
  presentVersion,
  type TemplateSummaryRow,
  type VersionWithCode,
  validityAsOf,
} from './service.js';
export type {
  ContentFileRow,
  EditKind,
  ReviewStep,
  TemplateRow,
  TemplateVersionRow,
  VersionEditRow,
  VersionReviewRow,
  VersionStatus,
} from './table.js';
export { type ShownText, shownTexts } from './texts.js';
export { maxValidityMonths, validityMonthsOf } from './validity.js';
