/** The public surface of `src/cookie-database/`: what other folders may import (its README says what the folder is for). */
export {
  type CookieCategory,
  type CookieDatabase,
  type KnownCookie,
  readCookieDatabase,
} from './database.js';
export {
  type CookieDatabaseCopy,
  currentCookieDatabase,
  pinnedCookieDatabase,
  refreshCookieDatabase,
} from './store.js';
