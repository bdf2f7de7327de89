import { Type } from 'typebox';
import type { FormOptions } from '../web/forms.js';

/**
 * The tenant's settings: a time zone of the list (checked by the route, which names the list),
 * and checkboxes, on when they send `true`.
 */
export const SettingsForm = Type.Object({
  time_zone: Type.String(),
  two_factor_required: Type.String(),
  four_eyes: Type.String(),
  distinct_approver: Type.String(),
  // Left out (a form from before the setting existed): unchanged.
  cookie_address: Type.Union([
    Type.Literal(''),
    Type.Literal('full'),
    Type.Literal('truncated'),
    Type.Literal('hashed'),
  ]),
});

export const settingsFormOptions: FormOptions<typeof SettingsForm> = {
  messages: { cookie_address: 'Choose full, truncated or keyed hash.' },
};
