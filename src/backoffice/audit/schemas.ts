import { type Static, Type } from 'typebox';
import type { FormOptions } from '../web/forms.js';

const Day = Type.String({ pattern: '^(\\d{4}-\\d{2}-\\d{2})?$' });

/** The audit log's filters, read from the query string (every field may be empty). */
export const AuditFilterForm = Type.Object({
  from: Day,
  to: Day,
  actor: Type.String({ maxLength: 254 }),
  action: Type.String({ pattern: '^[a-z0-9_.]{0,64}$' }),
  target: Type.String({ maxLength: 200 }),
});
export type AuditFilterValues = Static<typeof AuditFilterForm>;

export const auditFilterOptions: FormOptions<typeof AuditFilterForm> = {
  messages: {
    from: 'A day, such as 2026-03-01.',
    to: 'A day, such as 2026-03-31.',
    actor: 'An e-mail of at most 254 characters.',
    action: 'One of the actions of the list.',
    target: 'At most 200 characters.',
  },
  trim: ['from', 'to', 'actor', 'action', 'target'],
};
