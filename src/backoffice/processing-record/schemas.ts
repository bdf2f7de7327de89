import { Type } from 'typebox';
import type { ControllerFields } from '../../processing-record/index.js';

/** The tenant's fields of the section 39 record; the service checks their lengths. */
export const FieldsForm = Type.Object({
  controller_name: Type.String(),
  controller_address: Type.String(),
  controller_contact: Type.String(),
  dpo_name: Type.String(),
  dpo_contact: Type.String(),
  security_measures: Type.String(),
});
export const messages: Record<keyof ControllerFields, string> = {
  controller_name: 'At most 200 characters.',
  controller_address: 'At most 1,000 characters.',
  controller_contact: 'At most 500 characters.',
  dpo_name: 'At most 200 characters.',
  dpo_contact: 'At most 500 characters.',
  security_measures: 'At most 8,000 characters.',
};
