/** The public surface of `src/cookie-database/`: what other folders may import (its README says what the folder is for). */
export {
  type CookieCategory,
  type CookieDatabase,
  type KnownCookie,
  pinnedCookieDatabase,
  readCookieDatabase,
} from './database.js';
