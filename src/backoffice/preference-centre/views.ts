import { csrfField, formErrors, input, type Refusal, textarea } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';

/** The form's fields as shown: what is stored, or what was sent when it was refused. */
export interface PreferenceCentreValues {
  displayName: string;
  logoUrl: string;
  /** The colour the picker shows; ignored while `…Default` is ticked. */
  accentColour: string;
  accentColourDefault: boolean;
  headerColour: string;
  headerColourDefault: boolean;
  /** One origin a line. */
  allowedOrigins: string;
  /** The API key e-mail sign-ins act under; empty: off. */
  emailKeyId: string;
}

export interface PreferenceCentrePageModel {
  csrfToken: string;
  /** The tenant's alias: the page's address and the name shown when none is set. */
  alias: string;
  /** The page's address in full, `{public base URL}/preferences/{alias}`. */
  address: string;
  values: PreferenceCentreValues;
  refusal: Refusal;
  mayEdit: boolean;
  /** The tenant's live API keys, to choose the one e-mail sign-ins act under. */
  keys: ReadonlyArray<{ id: string; name: string }>;
  /** Whether the service can send e-mail (`SMTP_URL`): e-mail sign-in needs it. */
  canMail: boolean;
}

/**
 * A colour picker and its "use the default" box: a colour input always sends a colour, so the
 * box is what keeps the page's own colour without any script.
 */
function colourField(o: {
  name: 'accent_colour' | 'header_colour';
  label: string;
  value: string;
  useDefault: boolean;
  hint: string;
  error: string | undefined;
}): Html {
  const described = o.error ? `${o.name}-error` : `${o.name}-hint`;
  return html`<label for="${o.name}">${o.label}</label>
<input type="color" id="${o.name}" name="${o.name}" value="${o.value}"${o.error ? html` aria-invalid="true"` : ''} aria-describedby="${described}">
<label for="${o.name}_default"><input type="checkbox" id="${o.name}_default" name="${o.name}_default" value="true"${o.useDefault ? html` checked` : ''}> Use the default colour (untick it to use the one chosen above)</label>
${o.error ? html`<small id="${o.name}-error" class="field-error">${o.error}</small>` : html`<small id="${o.name}-hint">${o.hint}</small>`}`;
}

/**
 * E-mail sign-in: off, or the key ("system") it acts under. A stored key that is no longer live
 * stays listed so the page shows what is set, and saving it again is refused by its field.
 */
function emailKeyField(o: PreferenceCentrePageModel): Html {
  const chosen = o.values.emailKeyId;
  const options: Array<readonly [string, string]> = [
    ['', 'Off'],
    ...o.keys.map((k) => [k.id, k.name] as const),
  ];
  if (chosen !== '' && !o.keys.some((k) => k.id === chosen)) {
    options.push([chosen, 'A key that is revoked or not yours']);
  }
  const error = o.refusal.fields.email_key_id;
  const hint = `Customers whose id with you is their e-mail address may sign in at ${o.address}/sign-in with a code e-mailed to them. Their records carry the key chosen here: through it you vouch that the address is your customer's id.${o.canMail ? '' : ' This service has no SMTP_URL, so the page stays off until it has one.'}`;
  return html`<label for="email_key_id">E-mail sign-in</label>
<select id="email_key_id" name="email_key_id" aria-describedby="${error ? 'email_key_id-error' : 'email_key_id-hint'}"${error ? html` aria-invalid="true"` : ''}>
${options.map(([value, label]) => html`<option value="${value}"${value === chosen ? html` selected` : ''}>${label}</option>`)}
</select>
${error ? html`<small id="email_key_id-error" class="field-error">${error}</small>` : html`<small id="email_key_id-hint">${hint}</small>`}`;
}

export function preferenceCentrePage(o: PreferenceCentrePageModel): Html {
  const { values, refusal } = o;
  const fields = html`<fieldset${o.mayEdit ? '' : html` disabled`}>
${input({ name: 'display_name', label: 'Name shown to customers', value: values.displayName, maxlength: 100, hint: `Empty: your alias, ${o.alias}.`, error: refusal.fields.display_name })}
${input({ name: 'logo_url', label: 'Logo URL', type: 'url', value: values.logoUrl, maxlength: 2000, hint: 'An https address of the image shown at the top of the page (http only on localhost). Empty: no logo.', error: refusal.fields.logo_url })}
${colourField({ name: 'accent_colour', label: 'Accent colour', value: values.accentColour, useDefault: values.accentColourDefault, hint: "The page's buttons and links. White text goes on it: it must be dark enough for a contrast of 4.5:1 (WCAG AA).", error: refusal.fields.accent_colour })}
${colourField({ name: 'header_colour', label: 'Header colour', value: values.headerColour, useDefault: values.headerColourDefault, hint: "The page's header. White text goes on it: it must be dark enough for a contrast of 4.5:1 (WCAG AA).", error: refusal.fields.header_colour })}
${emailKeyField(o)}
${textarea({ name: 'allowed_origins', label: 'Allowed origins, one a line', value: values.allowedOrigins, rows: 4, hint: 'Scheme, host and port only, no path, such as https://shop.example; http:// only on localhost. At most 20.', error: refusal.fields.allowed_origins })}
</fieldset>`;
  // Who may only read the settings sees them as the form's disabled fields, in no form.
  return html`<hgroup><h1>Preference centre</h1><p>Administration</p></hgroup>
<p>Your customers see and change their consents on a page of their own, at <span class="mono">${o.address}</span> (<code>/preferences/{alias}</code>). Your backend asks the API for a link to it for one customer (<code>POST /api/v1/customers/{customer_id}/preference-links</code>); the link opens once.</p>
<p>The allowed origins are the sites the page works with: the page's "Back" link (the link's <code>return_url</code>) must be on one of them, and only pages of these origins may show it in a frame.</p>
${formErrors(refusal.form)}
${
  o.mayEdit
    ? html`<form method="post" action="${basePath}/preference-centre">
${csrfField(o.csrfToken)}
${fields}
<button type="submit">Save</button>
</form>`
    : fields
}`;
}
