import { Type } from 'typebox';
import { standardCategories } from '../../cookies/index.js';
import { uuidPattern } from '../../platform/ids.js';
import { commentMaxLength } from '../../templates/index.js';
import type { FormOptions } from '../web/forms.js';

/** A system: its name, and its origins one per line (the service checks each). */
export const SystemForm = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  origins: Type.String({ minLength: 1, maxLength: 20 * 2100 }),
});

export const systemFormOptions: FormOptions<typeof SystemForm> = {
  messages: {
    name: 'A name of 1 to 200 characters.',
    origins: 'One origin a line, such as https://www.bank.example, 1 to 20 of them.',
  },
  trim: ['name', 'origins'],
};

const day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });

/** A new configuration: its system, name, effective date and standard categories. */
export const NewConfigurationForm = Type.Object({
  system: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  effective_date: day,
  categories: Type.Array(Type.Union(standardCategories.map((key) => Type.Literal(key)))),
});

export const newConfigurationFormOptions: FormOptions<typeof NewConfigurationForm> = {
  messages: {
    system: 'Choose a system of the list.',
    name: 'A name of 1 to 200 characters.',
    effective_date: 'A day, such as 2026-07-01.',
    categories: 'Tick the standard categories the banner asks about.',
  },
  trim: ['system', 'name', 'effective_date'],
};

/** A step of review: its comment, and on approval whether to publish at once. */
export const StepForm = Type.Object({
  comment: Type.String({ maxLength: commentMaxLength }),
  publish_now: Type.String(),
});

export const stepFormOptions: FormOptions<typeof StepForm> = {
  messages: { comment: `At most ${commentMaxLength.toLocaleString('en')} characters.` },
  trim: ['comment'],
};

/** A locale to add to a draft. */
export const LocaleForm = Type.Object({ locale: Type.String({ minLength: 1, maxLength: 35 }) });

export const localeFormOptions: FormOptions<typeof LocaleForm> = {
  messages: { locale: 'A BCP 47 language tag, such as th or en-GB.' },
  trim: ['locale'],
};

/** What a visitor id looks like, said beside one that is not. */
export const invalidVisitorId =
  'A visitor id is the UUID the banner keeps, such as 9b1e7c1a-8f0e-4a51-9a8c-0f4f7b2f6b11.';

const dayOrNothing = Type.String({ pattern: '^(\\d{4}-\\d{2}-\\d{2})?$' });
const uuidOrNothing = Type.String({ pattern: `^(?:${uuidPattern.slice(1, -1)})?$` });

/** The cookie decisions' filters (a query string), each empty for "any". */
export const CookieDecisionFilterForm = Type.Object({
  system: Type.String({ maxLength: 64 }),
  configuration: Type.String({ maxLength: 64 }),
  category: Type.String({ maxLength: 64 }),
  granted: Type.Union([Type.Literal(''), Type.Literal('granted'), Type.Literal('denied')]),
  method: Type.Union([
    Type.Literal(''),
    Type.Literal('accept-all'),
    Type.Literal('reject-all'),
    Type.Literal('custom'),
    Type.Literal('gpc'),
  ]),
  from: dayOrNothing,
  to: dayOrNothing,
  visitor: uuidOrNothing,
  decision: uuidOrNothing,
});

export const cookieDecisionFilterOptions: FormOptions<typeof CookieDecisionFilterForm> = {
  messages: {
    granted: 'granted or denied, or nothing.',
    method: 'accept-all, reject-all, custom or gpc, or nothing.',
    from: 'A day of the calendar, or nothing.',
    to: 'A day of the calendar, or nothing.',
    visitor: `${invalidVisitorId} Or nothing.`,
    decision:
      'A decision id is the UUID its choice was answered with, such as 019ac7d2-5a1e-7c3b-9d4f-0a1b2c3d4e5f. Or nothing.',
  },
  trim: ['system', 'configuration', 'category', 'from', 'to', 'visitor', 'decision'],
};

/** A website visitor, by the id their browser kept: erasing them asks for it first. */
export const VisitorForm = Type.Object({ visitor: Type.String({ pattern: uuidPattern }) });

export const visitorFormOptions: FormOptions<typeof VisitorForm> = {
  messages: { visitor: invalidVisitorId },
  trim: ['visitor'],
};

/** "Scan now": how many pages, 1 to 100. */
export const ScanForm = Type.Object({
  pages: Type.Integer({ minimum: 1, maximum: 100 }),
});

export const scanFormOptions: FormOptions<typeof ScanForm> = {
  messages: { pages: 'A whole number of pages from 1 to 100.' },
  trim: ['pages'],
};

/** A system's scan schedule: off (empty), or every so many days. */
/** A tenant's classification of a cookie or host (docs/cookie-scans.md, "The tenant's overrides"). */
export const OverrideForm = Type.Object({
  kind: Type.Union([Type.Literal('cookie'), Type.Literal('host')]),
  pattern: Type.String({ minLength: 1, maxLength: 253 }),
  category: Type.String({ minLength: 1, maxLength: 40 }),
  provider: Type.String({ maxLength: 100 }),
  purpose: Type.String({ maxLength: 500 }),
  retention: Type.String({ maxLength: 100 }),
});

export const overrideFormOptions: FormOptions<typeof OverrideForm> = {
  messages: {
    kind: 'A cookie or a host.',
    pattern: 'A cookie’s name (a prefix ends in *) or a host name.',
    category: 'necessary, a standard category or one of your own keys.',
    provider: 'At most 100 characters.',
    purpose: 'At most 500 characters.',
    retention: 'At most 100 characters.',
  },
  trim: ['pattern', 'category', 'provider', 'purpose', 'retention'],
};

export const RemoveOverrideForm = Type.Object({
  kind: Type.Union([Type.Literal('cookie'), Type.Literal('host')]),
  pattern: Type.String({ minLength: 1, maxLength: 253 }),
});

export const ScheduleForm = Type.Object({
  every_days: Type.Union([Type.Literal(''), Type.String({ pattern: '^(1|7|14|30|90)$' })]),
  schedule_pages: Type.Integer({ minimum: 1, maximum: 100 }),
});

export const scheduleFormOptions: FormOptions<typeof ScheduleForm> = {
  messages: {
    every_days: 'Off, or one of the periods listed.',
    schedule_pages: 'A whole number of pages from 1 to 100.',
  },
  trim: ['schedule_pages'],
};
