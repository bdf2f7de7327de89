/**
 * Other folders' tables this folder's queries read (joined where one statement answers better
 * than a call to their service); `npm run lint` checks that no query reaches another
 * (scripts/table-owners.mjs).
 */
export type Reads =
  | 'channel_changes'
  | 'decisions'
  | 'partner_block_changes'
  | 'subjects'
  | 'template_versions';
