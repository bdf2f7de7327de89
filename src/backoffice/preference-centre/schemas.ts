import { type Static, Type } from 'typebox';
import type {
  PreferenceCentreInput,
  PreferenceCentreSettings,
} from '../../preference-centre/index.js';
import { type FormInput, type FormOptions, linesOf } from '../web/forms.js';
import type { PreferenceCentreValues } from './views.js';

/** `#rrggbb` as a colour input sends it; a script's other value is refused here, by its field. */
const colour = Type.Union([Type.Literal(''), Type.String({ pattern: '^#[0-9a-fA-F]{6}$' })]);

/**
 * The preference centre's settings as the page sends them. Empty text is "not set"; a colour
 * input always sends a colour, so its "use the default" box says when none is wanted; the
 * origins come one a line. The service checks the origins, the logo's address and the contrast.
 */
export const PreferenceCentreForm = Type.Object({
  display_name: Type.String({ maxLength: 100 }),
  logo_url: Type.String({ maxLength: 2000 }),
  accent_colour: colour,
  accent_colour_default: Type.String(),
  header_colour: colour,
  header_colour_default: Type.String(),
  allowed_origins: Type.String({ maxLength: 20 * 302 }),
  /** The key e-mail sign-ins act under; empty (or absent, from an older page): off. */
  email_key_id: Type.Optional(Type.String({ maxLength: 100 })),
});

export const preferenceCentreFormOptions: FormOptions<typeof PreferenceCentreForm> = {
  messages: {
    display_name: 'At most 100 characters.',
    logo_url: 'At most 2,000 characters.',
    accent_colour: 'A colour as #rrggbb, such as #1f4e79.',
    header_colour: 'A colour as #rrggbb, such as #1f4e79.',
    allowed_origins: 'At most 20 origins, one a line.',
  },
  trim: ['display_name', 'logo_url', 'accent_colour', 'header_colour', 'allowed_origins'],
};

/** The service's input from the checked form: empty text and a ticked "default" are null. */
export function preferenceCentreInput(
  values: Static<typeof PreferenceCentreForm>,
): PreferenceCentreInput {
  const chosen = (value: string, useDefault: string) =>
    useDefault === 'true' || value === '' ? null : value;
  return {
    display_name: values.display_name || null,
    logo_url: values.logo_url || null,
    accent_colour: chosen(values.accent_colour, values.accent_colour_default),
    header_colour: chosen(values.header_colour, values.header_colour_default),
    allowed_origins: linesOf(values.allowed_origins),
    email_key_id: values.email_key_id || null,
  };
}

/** The colour a picker starts from when none is set (a colour input cannot be empty). */
const unsetColour = '#000000';

/** The form's fields from the stored settings. */
export function storedValues(settings: PreferenceCentreSettings): PreferenceCentreValues {
  return {
    displayName: settings.displayName ?? '',
    logoUrl: settings.logoUrl ?? '',
    accentColour: settings.accentColour ?? unsetColour,
    accentColourDefault: settings.accentColour === null,
    headerColour: settings.headerColour ?? unsetColour,
    headerColourDefault: settings.headerColour === null,
    allowedOrigins: settings.allowedOrigins.join('\n'),
    emailKeyId: settings.emailKeyId ?? '',
  };
}

/** The form's fields as they were sent, to show a refused form again. */
export function sentValues(input: FormInput<typeof PreferenceCentreForm>): PreferenceCentreValues {
  return {
    displayName: input.display_name ?? '',
    logoUrl: input.logo_url ?? '',
    accentColour: input.accent_colour || unsetColour,
    accentColourDefault: input.accent_colour_default === 'true',
    headerColour: input.header_colour || unsetColour,
    headerColourDefault: input.header_colour_default === 'true',
    allowedOrigins: input.allowed_origins ?? '',
    emailKeyId: input.email_key_id ?? '',
  };
}
