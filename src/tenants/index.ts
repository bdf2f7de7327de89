/** The public surface of `src/tenants/`: what other folders may import (its README says what the folder is for). */
export { hashPassword, verifyPassword } from './passwords.js';
export { NewTenant, Password, type TenantSummary, type TenantView } from './schemas.js';
export {
  type CookieAddress,
  cookieAddressModes,
  countTenants,
  getTenantByAlias,
  getTenantById,
  getTenantSettings,
  insertNewTenant,
  listTenants,
  setTenantDisabled,
  setTenantSettings,
  type TenantSettings,
} from './service.js';
