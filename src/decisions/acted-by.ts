import { AppError, type ErrorDetail } from '../platform/errors.js';
import type { ActedBy } from './schemas.js';

/**
 * What the schema cannot say of who acted (docs/pdpa.md): a representative names their own
 * reference; a basis is stated (an age band or a court order); a co-consent pairs the subject
 * with a representative. `400 1001` naming the field otherwise.
 */
export function checkActedBy(acted: ActedBy | undefined): void {
  if (acted === undefined) return;
  const details: ErrorDetail[] = [];
  if (acted.role !== 'subject' && acted.reference === undefined) {
    details.push({ field: 'acted_by.reference', issue: 'required for a representative' });
  }
  if (acted.age_band === undefined && acted.court_order === undefined) {
    details.push({ field: 'acted_by', issue: 'state the basis: age_band or court_order' });
  }
  const co = acted.co_consent;
  if (co !== undefined) {
    if ((acted.role === 'subject') === (co.role === 'subject')) {
      details.push({
        field: 'acted_by.co_consent',
        issue: 'a co-consent pairs the subject with a representative',
      });
    } else if (co.role !== 'subject' && co.reference === undefined) {
      details.push({
        field: 'acted_by.co_consent.reference',
        issue: 'required for a representative',
      });
    }
  }
  if (details.length > 0) throw new AppError('invalidRequest', { details });
}
