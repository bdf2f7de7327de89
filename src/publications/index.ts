/** The public surface of `src/publications/`: what other folders may import (its README says what the folder is for). */
export { publications } from './kind.js';
export { logPublication, type Publication, publicationsOf, templatesLiveAt } from './service.js';
export type { PublicationRow } from './table.js';
