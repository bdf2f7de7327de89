/** The public surface of `src/processing-record/`: what other folders may import (its README says what the folder is for). */
export {
  type Activity,
  auditExport,
  type ControllerFields,
  type ProcessingRecord,
  processingRecord,
  type Recipient,
  saveControllerFields,
} from './service.js';
