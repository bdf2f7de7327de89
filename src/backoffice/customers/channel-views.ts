import type { ChannelChangeEntry, ChannelState } from '../../channels/index.js';
import { badge, time } from '../web/format.js';
import { csrfField } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';

/** The customer's channels as their page shows them. */
export interface CustomerChannels {
  customerId: string;
  /** Every product of the tenant times every channel of the tenant. */
  states: readonly ChannelState[];
  /** The channels' names by code. */
  names: ReadonlyMap<string, string>;
  zone: string;
  /** Whether the user may block and allow (the buttons show only then). */
  mayEdit: boolean;
  csrfToken: string;
  /** The customer's changes, newest first. */
  changes: readonly ChannelChangeEntry[];
  changeLimit: number;
  /** Who made a change, by API key id and by user id. */
  keyNames: ReadonlyMap<string, string>;
  userNames: ReadonlyMap<string, string>;
}

/**
 * Every product times every channel, blocked or allowed and since when; with `block_channels:edit`
 * a button a row that blocks an allowed channel or allows a blocked one (a form: the customer id
 * travels in its body, never in a URL).
 */
export function customerChannels(o: CustomerChannels): Html {
  if (o.states.length === 0) {
    return html`<h2>Channels</h2>
<p>The tenant has no product yet: channels are blocked per product.</p>`;
  }
  return html`<h2>Channels</h2>
<div class="table-scroll" tabindex="0" role="region" aria-label="Channels"><table>
<caption class="visually-hidden">Contact channels of customer ${o.customerId}, by product</caption>
<thead><tr><th scope="col">Product</th><th scope="col">Channel</th><th scope="col">State</th><th scope="col">Since</th>${o.mayEdit ? html`<th scope="col"><span class="visually-hidden">Change</span></th>` : ''}</tr></thead>
<tbody>
${o.states.map(
  (s) => html`<tr>
<td class="mono">${s.product_code}</td>
<td>${o.names.get(s.channel) ?? s.channel} <small class="mono">${s.channel}</small></td>
<td>${s.blocked ? badge('reject', 'blocked') : badge('given', 'allowed')}</td>
<td>${s.since === null ? html`<span class="muted">never changed</span>` : time(s.since, o.zone)}</td>
${o.mayEdit ? html`<td>${changeForm(o, s)}</td>` : ''}
</tr>`,
)}
</tbody></table></div>
${changeHistory(o)}`;
}

/** The customer's channel changes, newest first, each with who made it and from where. */
function changeHistory(o: CustomerChannels): Html {
  if (o.changes.length === 0) return html``;
  return html`<h3>Channel changes</h3>
${o.changes.length === o.changeLimit ? html`<p>The ${o.changeLimit} most recent changes are shown.</p>` : ''}
<div class="table-scroll" tabindex="0" role="region" aria-label="Channel changes"><table class="channel-history">
<caption class="visually-hidden">Channel changes of customer ${o.customerId}, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Product</th><th scope="col">Channel</th><th scope="col">Change</th><th scope="col">Made by</th><th scope="col">IP address</th><th scope="col">User agent</th></tr></thead>
<tbody>
${o.changes.map(
  (c) => html`<tr>
<td>${time(c.changedAt, o.zone)}</td>
<td class="mono">${c.productCode}</td>
<td class="mono">${c.channel}</td>
<td>${c.blocked ? badge('reject', 'blocked') : badge('given', 'allowed')}</td>
<td>${madeBy(o, c)}</td>
<td class="mono">${c.ip ?? '—'}</td>
<td class="wrap"><small>${c.userAgent ?? '—'}</small></td>
</tr>`,
)}
</tbody></table></div>`;
}

function madeBy(o: CustomerChannels, c: ChannelChangeEntry): Html {
  if (c.userId !== null) {
    return html`${o.userNames.get(c.userId) ?? 'a removed user'} <small>(back-office)</small>`;
  }
  if (c.apiKeyId !== null) {
    return html`${o.keyNames.get(c.apiKeyId) ?? 'an API key'} <small>(API)</small>`;
  }
  return html`—`;
}

function changeForm(o: CustomerChannels, s: ChannelState): Html {
  const label = s.blocked ? 'Allow' : 'Block';
  return html`<form method="post" action="${basePath}/customers/channels">
${csrfField(o.csrfToken)}
<input type="hidden" name="customer_id" value="${o.customerId}">
<input type="hidden" name="product_code" value="${s.product_code}">
<input type="hidden" name="channel" value="${s.channel}">
<input type="hidden" name="blocked" value="${s.blocked ? 'false' : 'true'}">
<button type="submit" class="secondary outline">${label}<span class="visually-hidden"> ${s.channel} for ${s.product_code}</span></button>
</form>`;
}
