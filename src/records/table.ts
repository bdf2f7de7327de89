/**
 * Other folders' tables this folder's queries read (joined where one statement answers better
 * than a call to their service); `npm run lint` checks that no query reaches another
 * (scripts/table-owners.mjs).
 */
export type Reads =
  | 'api_keys'
  | 'customer_template_states'
  | 'customer_version_states'
  | 'decisions'
  | 'subjects'
  | 'template_versions'
  | 'templates'
  | 'tlog_entries';
