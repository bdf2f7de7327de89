import type { TenantChannel } from '../../channels/index.js';
import { badge, time } from '../web/format.js';
import { csrfField, type FieldErrors, formErrors, input } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';

export interface ChannelsModel {
  channels: readonly TenantChannel[];
  zone: string;
  /** Whether the user may add a channel (the form shows only then). */
  mayAdd: boolean;
  csrfToken: string;
  values: { code: string; name: string };
  errors: string[];
  fieldErrors: FieldErrors;
}

export function channelsPage(o: ChannelsModel): Html {
  return html`<hgroup><h1>Channels</h1><p>The contact channels a customer may block per product, on the customer's page: the five every tenant has, and your own.</p></hgroup>
<div class="table-scroll" tabindex="0" role="region" aria-label="Channels"><table>
<thead><tr><th scope="col">Code</th><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Added</th></tr></thead>
<tbody>
${o.channels.map(
  (c) => html`<tr>
<td class="mono">${c.code}</td>
<td>${c.name}</td>
<td>${c.builtIn ? badge('active', 'built in') : badge('draft', 'own')}</td>
<td>${c.createdAt === null ? '—' : time(c.createdAt, o.zone)}</td>
</tr>`,
)}
</tbody></table></div>
${o.mayAdd ? addForm(o) : ''}`;
}

function addForm(o: ChannelsModel): Html {
  return html`<h2>Add a channel</h2>
${formErrors(o.errors)}
<form method="post" action="${basePath}/channels" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'code', label: 'Code', value: o.values.code, required: true, maxlength: 64, hint: 'A short, fixed lowercase name such as whatsapp: letters, digits and -. The API takes it in the channel path. It cannot be changed later.', error: o.fieldErrors.code })}
${input({ name: 'name', label: 'Name', value: o.values.name, required: true, maxlength: 200, error: o.fieldErrors.name })}
<button type="submit">Add channel</button>
</form>`;
}
