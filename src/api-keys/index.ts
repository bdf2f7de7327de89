/** The public surface of `src/api-keys/`: what other folders may import (its README says what the folder is for). */
export { apiKeyActor, createApiKeyAs, renameApiKeyAs, revokeApiKeyAs } from './actions.js';
export { type AfterKeyCheck, callerOf, createApiKeyGate, refuseUnroutable } from './auth.js';
export { type AuthThrottle, createAuthThrottle } from './auth-throttle.js';
export { createKeyCheck, type KeyCheck } from './key-check.js';
export { type ApiKeyView, type CreatedApiKey, NewApiKey } from './schemas.js';
export { createApiKey, getApiKey, listApiKeys, revokeApiKey } from './service.js';
