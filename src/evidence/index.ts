/** The public surface of `src/evidence/`: what other folders may import (its README says what the folder is for). */
export {
  downloadEvidencePack,
  type EvidencePack,
  evidencePack,
  type PackContext,
} from './service.js';
