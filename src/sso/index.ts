/** The public surface of `src/sso/`: what other folders may import (its README says what the folder is for). */
export {
  type Client,
  finishSso,
  providerSignOutUrl,
  type SsoContext,
  type SsoFailure,
  type SsoSignedIn,
  startSso,
} from './flow.js';
export { pendingKey, pendingSeconds } from './pending.js';
export {
  admitPasswordSignIn,
  checkIssuer,
  type GroupRole,
  getSsoSettings,
  removeSsoSettings,
  type SecretBox,
  type SsoSettings,
  type SsoSettingsInput,
  saveSsoSettings,
} from './settings.js';
