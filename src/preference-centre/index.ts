/** The public surface of `src/preference-centre/`: what other folders may import (its README says what the folder is for). */
export {
  type ChangeResult,
  type CustomerRequest,
  decideOnPage,
  type PreferenceWriters,
  setChannelOnPage,
  setPartnerOnPage,
} from './actions.js';
export {
  askSignInCode,
  type CodeAttempt,
  type CodeRefusal,
  type CodeRequest,
  codeMinutes,
  customerAddress,
  emailSignInKey,
  purgeOldCodes,
  useSignInCode,
} from './codes.js';
export { preferenceCodes } from './kind.js';
export {
  type LinkCaller,
  mintPreferenceLink,
  type Opener,
  openPreferenceLink,
  pagePath,
  purgeExpiredLinkUses,
} from './links.js';
export {
  type ChannelOverview,
  type CookieChoiceOverview,
  type CustomerOverview,
  customerOverview,
  type RecordLine,
  type ShownVersion,
  type TemplateOverview,
  templateOverviews,
} from './overview.js';
export { type PageLocale, PreferenceCentreInput, pageLocales } from './schemas.js';
export {
  defaultSettings,
  getPreferenceCentre,
  isAllowedUrl,
  type PreferenceCentreSettings,
  savePreferenceCentre,
  setAllowedOrigins,
} from './settings.js';
export {
  anonymousFormToken,
  formToken,
  isAnonymousFormToken,
  isFormToken,
  type LinkRefusal,
  openSession,
  type PreferenceSecrets,
  preferenceSecrets,
  type SessionClaims,
  sealSession,
} from './tokens.js';
