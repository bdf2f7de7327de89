/** The public surface of `src/subjects/`: what other folders may import (its README says what the folder is for). */
export {
  openPersonal,
  openText,
  type PersonalFields,
  sealPersonal,
  sealText,
} from './personal.js';
export {
  erasedEvidence,
  findLiveSubjectRow,
  findSubjectId,
  findSubjectRow,
  keepErasedEvidence,
  newSubject,
  type OpenedRecord,
  type OpenSubject,
  openStoredSubject,
  openSubject,
  personalOpener,
  personalReader,
  type SealedRecord,
  type StoredSubjectKey,
  shredSubject,
  storeNewSubjects,
} from './service.js';
export type { SubjectsTable } from './table.js';
export { createVault, type SubjectVault } from './vault.js';
