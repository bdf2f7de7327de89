/** The public surface of `src/scim/`: what other folders may import (its README says what the folder is for). */
export { type CreatedScimToken, NewScimToken, type ScimTokenView } from './schemas.js';
export {
  createScimTokenAs,
  getScimToken,
  listScimTokens,
  revokeScimTokenAs,
} from './tokens.js';
