import type { ChoiceMethod, ChoiceRates } from '../../cookies/index.js';
import { count } from '../web/format.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';
import { methodWords } from './models.js';
import { systemPath } from './paths.js';

const methods: readonly ChoiceMethod[] = ['accept-all', 'reject-all', 'custom', 'gpc'];

/** A share as the table shows it: `42%`, whole percents; a dash when there was no choice. */
function share(n: number, total: number): string {
  return total === 0 ? '—' : `${Math.round((100 * n) / total)}%`;
}

/**
 * The dashboard's cookie section: per system, how many choices its visitors made over the
 * period, and the share of each way of making one, as a table (numbers and shares both said in
 * text, so nothing rests on colour or a chart).
 */
export function cookieRatesSection(rates: readonly ChoiceRates[], days: number): Html {
  return html`<section aria-labelledby="cookie-rates">
<h2 id="cookie-rates">Cookie choices, last ${days} days</h2>
<div class="table-scroll" tabindex="0" role="region" aria-label="Cookie choices per system"><table>
<thead><tr><th scope="col">System</th><th scope="col">Choices</th>${methods.map((m) => html`<th scope="col">${methodWords[m]}</th>`)}</tr></thead>
<tbody>
${rates.map(
  (r) => html`<tr>
<th scope="row"><a href="${basePath}${systemPath(r.scope)}">${r.name}</a></th>
<td>${count(r.total, 'choice', 'choices')}</td>
${methods.map((m) => html`<td>${share(r.byMethod[m], r.total)} <small>(${r.byMethod[m].toLocaleString('en')})</small></td>`)}
</tr>`,
)}
</tbody></table></div>
</section>`;
}
