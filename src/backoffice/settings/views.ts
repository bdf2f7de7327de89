import type { TenantSettings } from '../../tenants/index.js';
import { checkbox, csrfField, select } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';

/** The IANA zones the runtime knows, and UTC (which the list leaves out). */
const zoneList = ['UTC', ...Intl.supportedValuesOf('timeZone')];
export const timeZones: ReadonlySet<string> = new Set(zoneList);

export function settingsForm(o: {
  csrfToken: string;
  settings: TenantSettings;
  errors: Html;
  mayEdit: boolean;
}): Html {
  const fields = html`<fieldset${o.mayEdit ? '' : html` disabled`}>
${select({ name: 'time_zone', label: 'Time zone', value: o.settings.timeZone, options: zoneList.map((z) => [z, z] as const) })}
<small>The back-office shows dates and reads date filters in this zone. Records keep their times in UTC, and exports give UTC.</small>
${checkbox({ name: 'four_eyes', label: 'Four eyes on every version', checked: o.settings.fourEyes, hint: "Whoever wrote any of a version's text, and whoever submitted it, can neither pass its review nor approve it. Turn it off only for a one-person team: each change of it is in the audit log." })}
${checkbox({ name: 'distinct_approver', label: 'Another person approves than the one who reviewed', checked: o.settings.distinctApprover, hint: "Whoever passed a version's review cannot approve it too." })}
${checkbox({ name: 'two_factor_required', label: 'Require two-factor sign-in of every user', checked: o.settings.twoFactorRequired, hint: 'A user without it is asked to set it up at their next page, before anything else.' })}
</fieldset>`;
  // Who may only read the settings sees them as the form's disabled fields, in no form.
  return html`<hgroup><h1>Settings</h1><p>Administration</p></hgroup>
${o.errors}
${
  o.mayEdit
    ? html`<form method="post" action="${basePath}/settings">
${csrfField(o.csrfToken)}
${fields}
<button type="submit">Save</button>
</form>`
    : fields
}`;
}
