/** The public surface of `src/accounts/`: what other folders may import (its README says what the folder is for). */
export {
  changePassword,
  disableTenant,
  enableTenant,
  failSecondFactor,
  recordFailedPasskeySignIn,
  recordFailedSignIn,
  refuseOperatorEmail,
  registerTenant,
  signIn,
  signOut,
} from './actions.js';
export { closeChallenge, findChallenge, openChallenge } from './challenges.js';
export { keepFlash, takeFlash } from './flashes.js';
export { passwordLinkUrl } from './links.js';
export {
  inviteOperator,
  listOperators,
  type OperatorMember,
  setOperatorDisabled,
} from './operator-team.js';
export { ensureOperator } from './operators.js';
export {
  addPasskey,
  checkPasskeySignIn,
  hasPasskey,
  listPasskeys,
  type Passkey,
  type PasskeyHolder,
  passkeyNameLength,
  type RelyingParty,
  registrationOptions,
  relyingPartyOf,
  removePasskey,
  renamePasskey,
  signInOptions,
} from './passkeys.js';
export { passwordWeakness } from './password-strength.js';
export {
  actions,
  allPermissions,
  areas,
  isPermission,
  type Permission,
  permissionCatalogue,
} from './permissions.js';
export { changeUserEmail, emailInUse, provisionUser } from './provisioning.js';
export {
  addTenantWithAdmin,
  createTenantWithAdmin,
  prepareTenantRegistration,
  TenantInvitation,
} from './registration.js';
export { getRole, listRoles, type Role } from './roles.js';
export {
  endOwnSession,
  endSessionsOfUser,
  type OpenSession,
  openSessions,
  sessionMethod,
} from './session-list.js';
export {
  type Account,
  accountOfSession,
  type BackofficeUser,
  findSession,
  purgeEndedSessions,
  type SessionSettings,
} from './sessions.js';
export { checkSignIn, decoyHash, passwordHashOf } from './sign-in.js';
export {
  changeSignInRules,
  missingFactor,
  passwordMeets,
  passwordSignInAdmitted,
  signInRequirementOf,
  signInRules,
} from './sign-in-rules.js';
export {
  provisionSsoUser,
  type SsoRefusal,
  SsoRefused,
  type VouchedPerson,
} from './single-sign-on.js';
export type { SignInRequirement } from './table.js';
export {
  changeRoleAs,
  changeSettings,
  changeUser,
  createRoleAs,
  deleteRoleAs,
  describeLink,
  disableUser,
  enableUser,
  inviteUser,
  issuePasswordLink,
  removeUserAs,
  requestPasswordReset,
  resetUserSecondFactor,
  setPasswordFromLink,
} from './team.js';
export { recordFailure, secondsUntilAllowed, throttleKeys } from './throttle.js';
export {
  checkSecondFactor,
  codeAlreadyUsed,
  confirmEnrolment,
  enrolment,
  type FactorOwner,
  renewRecoveryCodes,
  type SecretBox,
  type TwoFactorState,
  turnOffSecondFactor,
  twoFactorState,
} from './two-factor.js';
export {
  activeUsersWith,
  getTeamMember,
  holdersOfRoles,
  listTeam,
  type RoleHolder,
  type TeamMember,
} from './users.js';
