import { Type } from 'typebox';
import type { FormOptions } from '../web/forms.js';

const dayOrNothing = Type.String({ pattern: '^(\\d{4}-\\d{2}-\\d{2})?$' });

/** The decisions export's filters (a query string): a template code and a range of days in the tenant's time zone. */
export const ExportFilterForm = Type.Object({
  template: Type.String(),
  product: Type.Optional(Type.String()),
  from: dayOrNothing,
  to: dayOrNothing,
});
export const exportFilterFormOptions: FormOptions<typeof ExportFilterForm> = {
  messages: { from: 'A date, or nothing.', to: 'A date, or nothing.' },
  trim: ['template', 'product', 'from', 'to'],
};

/** The controls export's filter: a range of days in the tenant's time zone. */
export const ControlExportForm = Type.Object({ from: dayOrNothing, to: dayOrNothing });
export const controlExportFormOptions: FormOptions<typeof ControlExportForm> = {
  messages: { from: 'A date, or nothing.', to: 'A date, or nothing.' },
  trim: ['from', 'to'],
};
