/** The public surface of `src/subjects/`: what other folders may import (its README says what the folder is for). */
export { type PersonalFields, sealPersonal } from './personal.js';
export {
  findLiveSubjectRow,
  findSubjectId,
  newSubject,
  type OpenedRecord,
  type OpenSubject,
  openStoredSubject,
  openSubject,
  personalReader,
  type SealedRecord,
  shredSubject,
  storeNewSubjects,
} from './service.js';
export type { SubjectsTable } from './table.js';
export { createVault, type SubjectVault } from './vault.js';
