import { AppError } from '../platform/errors.js';

/** The longest validity period a template may set: ten years. */
export const maxValidityMonths = 120;

const wholeNumber = /^[0-9]{1,4}$/;

/**
 * A template's validity period as a person gave it, in whole calendar months: a number, or its
 * digits as a form or the command line sends them; empty or null for none (consent never lapses).
 * Anything else is `400 1001` with a message that says what is allowed.
 */
export function validityMonthsOf(value: unknown, field = 'validity_months'): number | null {
  if (value === null || (typeof value === 'string' && value.trim() === '')) return null;
  const months =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && wholeNumber.test(value.trim())
        ? Number(value.trim())
        : Number.NaN;
  if (Number.isInteger(months) && months >= 1 && months <= maxValidityMonths) return months;
  throw new AppError('invalidRequest', {
    message: `The validity period must be a whole number of months from 1 to ${maxValidityMonths}, or empty for none.`,
    details: [
      { field, issue: `must be a whole number of months from 1 to ${maxValidityMonths}, or empty` },
    ],
  });
}
