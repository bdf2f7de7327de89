import type { DeliveryView, EndpointView } from '../../webhooks/index.js';
import { badge, time } from '../web/format.js';
import { csrfField, type FieldErrors, formErrors, input } from '../web/forms.js';
import { type Html, html, segment } from '../web/html.js';
import { basePath } from '../web/layout.js';

const statusBadge = (e: EndpointView) =>
  e.status === 'enabled' ? badge('active', 'enabled') : badge('revoked', 'disabled');

/** The notice a disabled endpoint shows: why, and since when. */
function disabledNotice(e: EndpointView, zone: string): Html {
  return html`<p role="alert" class="notice-disabled"><strong>${e.url} is disabled</strong> since ${time(e.disabled_at, zone)}. ${e.disabled_reason ?? ''} Events wait; enable it again to send them, in order, from where it stopped.</p>`;
}

export function endpointList(o: {
  endpoints: EndpointView[];
  mayEdit: boolean;
  csrfToken: string;
  input: Record<string, string>;
  events: readonly string[];
  /** Every event type an endpoint may take. */
  eventTypes: readonly string[];
  errors: string[];
  fieldErrors: FieldErrors;
  zone: string;
}): Html {
  const disabled = o.endpoints.filter((e) => e.status === 'disabled');
  return html`<hgroup><h1>Webhooks</h1><p>Administration</p></hgroup>
<p>Endpoints receive the events they subscribe to as signed HTTP <code>POST</code>s (Standard Webhooks), in order, at least once.</p>
${disabled.map((e) => disabledNotice(e, o.zone))}
${
  o.endpoints.length === 0
    ? html`<p>No endpoint yet.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Endpoints"><table>
<thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Description</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead>
<tbody>
${o.endpoints.map(
  (e) => html`<tr>
<td class="wrap"><a href="${basePath}/webhooks/${segment(e.id)}">${e.url}</a></td>
<td>${e.events.join(', ')}</td>
<td class="wrap">${e.description}</td>
<td>${statusBadge(e)}${e.failures > 0 && e.status === 'enabled' ? html` failing since ${time(e.failing_since, o.zone)}` : ''}</td>
<td>${time(e.created_at, o.zone)}</td>
</tr>`,
)}
</tbody></table></div>`
}
${o.mayEdit ? newEndpointForm(o) : ''}`;
}

function newEndpointForm(o: {
  csrfToken: string;
  input: Record<string, string>;
  events: readonly string[];
  eventTypes: readonly string[];
  errors: string[];
  fieldErrors: FieldErrors;
}): Html {
  return html`<h2>Add an endpoint</h2>
${formErrors(o.errors)}
<form method="post" action="${basePath}/webhooks" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'url', label: 'URL', type: 'url', value: o.input.url ?? '', required: true, maxlength: 2048, hint: 'https:// only; private and internal addresses are refused.', error: o.fieldErrors.url })}
<fieldset${o.fieldErrors.events ? html` aria-invalid="true" aria-describedby="events-error"` : ''}>
<legend>Events</legend>
${o.eventTypes.map(
  (type) =>
    html`<label for="event-${type}"><input type="checkbox" id="event-${type}" name="events" value="${type}"${o.events.includes(type) ? html` checked` : ''}> <code>${type}</code></label>`,
)}
${o.fieldErrors.events ? html`<small id="events-error" class="error">${o.fieldErrors.events}</small>` : ''}
</fieldset>
${input({ name: 'description', label: 'Description (optional)', value: o.input.description ?? '', maxlength: 200, error: o.fieldErrors.description })}
<button type="submit">Add endpoint</button>
</form>`;
}

export function createdEndpoint(e: EndpointView, secret: string): Html {
  return html`<h1>Endpoint added</h1>
<p><strong>Copy the signing secret now: it is shown only this once.</strong> The receiver verifies every message with it.</p>
<p><label for="new-secret">Signing secret for ${e.url}</label></p>
<output id="new-secret" class="key-once">${secret}</output>
<p><button type="button" data-copy="new-secret" hidden>Copy</button></p>
<p><a href="${basePath}/webhooks/${segment(e.id)}">Go to the endpoint</a></p>`;
}

export function endpointDetails(o: {
  endpoint: EndpointView;
  deliveries: DeliveryView[];
  next: string | null;
  mayEdit: boolean;
  csrfToken: string;
  replayFrom: string;
  replayError: string | undefined;
  zone: string;
}): Html {
  const e = o.endpoint;
  const at = `${basePath}/webhooks/${segment(e.id)}`;
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/webhooks">Webhooks</a></li><li>${e.url}</li></ul></nav>
<h1>Endpoint ${e.url}</h1>
${e.status === 'disabled' ? disabledNotice(e, o.zone) : ''}
<dl class="facts">
<dt>Status</dt><dd>${statusBadge(e)}</dd>
<dt>Events</dt><dd>${e.events.join(', ')}</dd>
<dt>Description</dt><dd>${e.description || '—'}</dd>
<dt>Delivered up to position</dt><dd>${e.cursor}</dd>
<dt>Failing</dt><dd>${e.failures > 0 ? html`${e.failures} attempts since ${time(e.failing_since, o.zone)}; next ${time(e.next_attempt_at, o.zone)}` : 'no'}</dd>
<dt>Created</dt><dd>${time(e.created_at, o.zone)}</dd>
</dl>
${
  o.mayEdit
    ? html`<form method="post" action="${at}/${e.status === 'enabled' ? 'disable' : 'enable'}" class="actions">
${csrfField(o.csrfToken)}
<button type="submit"${e.status === 'enabled' ? html` class="secondary"` : ''}>${e.status === 'enabled' ? 'Disable' : 'Enable again'}</button>
</form>
<h2>Replay</h2>
<form method="post" action="${at}/replay" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'from', label: 'From position', value: o.replayFrom, required: true, maxlength: 18, hint: 'Every later event this endpoint subscribes to is sent again, in order.', error: o.replayError })}
<button type="submit">Replay</button>
</form>`
    : ''
}
<h2>Deliveries</h2>
${
  o.deliveries.length === 0
    ? html`<p>No delivery yet.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Deliveries"><table>
<thead><tr><th scope="col">Time</th><th scope="col">Position</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Response</th><th scope="col">Duration</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${o.deliveries.map(
  (d) => html`<tr>
<td>${time(d.attempted_at, o.zone)}</td>
<td>${d.position}</td>
<td><code>${d.event_type}</code> <span class="mono">${d.event_id}</span></td>
<td>${d.status === 'delivered' ? badge('active', 'delivered') : badge('revoked', 'failed')}${d.trigger === 'resend' ? ' (sent again)' : ''}</td>
<td class="wrap">${d.response_code ?? ''}${d.error ? html` ${d.error}` : ''}</td>
<td>${d.duration_ms} ms</td>
<td>${
    o.mayEdit
      ? html`<form method="post" action="${at}/deliveries/${segment(d.id)}/resend">${csrfField(o.csrfToken)}<button type="submit" class="secondary">Send again<span class="visually-hidden"> position ${d.position}</span></button></form>`
      : ''
  }</td>
</tr>`,
)}
</tbody></table></div>
${o.next ? html`<p><a href="${at}?before=${encodeURIComponent(o.next)}">Older deliveries</a></p>` : ''}`
}
${e.failures > 0 && e.status === 'enabled' ? html`<p>Pending: the event after position ${e.cursor}, next tried ${time(e.next_attempt_at, o.zone)}.</p>` : ''}
${o.mayEdit ? html`<p><a href="${at}/delete">Delete this endpoint…</a></p>` : ''}
<p><a href="${basePath}/webhooks">Back to Webhooks</a></p>`;
}

export function deleteConfirmation(e: EndpointView, csrfToken: string): Html {
  return html`<article>
<h1>Delete the endpoint ${e.url}?</h1>
<p>No more events are sent to it, and its deliveries are forgotten. This cannot be undone.</p>
<form method="post" action="${basePath}/webhooks/${segment(e.id)}/delete" class="actions">
${csrfField(csrfToken)}
<button type="submit">Delete the endpoint</button>
<a href="${basePath}/webhooks/${segment(e.id)}" class="secondary">Cancel</a>
</form>
</article>`;
}
