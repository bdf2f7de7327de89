import { count, time } from '../web/format.js';
import { csrfField, formErrors, input } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';

/** Where the erasure pages lead back to: the decisions, for a reader who may see them. */
function crumbs(mayView: boolean, here: string): Html {
  return mayView
    ? html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/cookies/decisions">Cookie decisions</a></li><li>${here}</li></ul></nav>`
    : html``;
}

/** What erasing a visitor does, said before it is done. */
const consequences = html`<p>Their key is destroyed: the visitor id, the address and the user agent kept with each of their cookie choices can never be read again, by anyone, also in webhook events not yet sent.</p>
<p>Their choices stay, as the proof that they were made: each keeps its leaf in the decision log, and its receipt still verifies, without whose it was. If the same browser chooses again, a new record starts. This cannot be undone.</p>`;

/** The first step: the visitor id, typed or pasted; or why that id cannot be erased. */
export function visitorErasureStart(o: {
  csrfToken: string;
  visitor: string;
  error: string | undefined;
  /** Set when the id is a visitor's whom the tenant keeps no choice of. */
  nothingKept: boolean;
  mayView: boolean;
}): Html {
  return html`${crumbs(o.mayView, 'Erase a visitor')}
<hgroup><h1>Erase a visitor</h1><p>On a visitor's request, their personal data in their cookie choices is erased for good.</p></hgroup>
${
  o.nothingKept
    ? html`<p role="status">No cookie choice of visitor <span class="mono">${o.visitor}</span> is kept: there is nothing to erase. A visitor already erased looks the same as one never seen, since an erasure keeps no link to the id.</p>`
    : ''
}
<form method="post" action="${basePath}/cookies/visitors/erase/confirmation" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'visitor', label: 'Visitor id', value: o.visitor, required: true, maxlength: 36, autocomplete: 'off', hint: "The UUID the banner keeps in the visitor's browser: the website can show it to them from Consentrix.consent().visitor_id.", error: o.error })}
<button type="submit">Continue</button>
</form>`;
}

/** The second step: what will happen, and a box to tick before it does. */
export function visitorErasureConfirmation(o: {
  csrfToken: string;
  visitor: string;
  choices: number;
  errors: string[];
  mayView: boolean;
}): Html {
  return html`${crumbs(o.mayView, 'Erase a visitor')}
<article>
<h1>Erase visitor <span class="mono">${o.visitor}</span>?</h1>
<p>The tenant keeps ${count(o.choices, 'cookie choice', 'cookie choices')} of this visitor.</p>
${consequences}
${formErrors(o.errors)}
<form method="post" action="${basePath}/cookies/visitors/erase">
${csrfField(o.csrfToken)}
<input type="hidden" name="visitor" value="${o.visitor}">
<label><input type="checkbox" name="confirm" value="true" required> Yes, erase visitor <span class="mono">${o.visitor}</span> for good</label>
<div class="actions">
<button type="submit" class="contrast">Erase for good</button>
<a href="${basePath}/cookies/visitors/erase" class="secondary">Cancel</a>
</div>
</form>
</article>`;
}

/** What the erasure did, and what to keep with the visitor's request. */
export function visitorErasureDone(o: {
  visitor: string;
  choices: number;
  subjectId: string;
  erasedAt: string;
  zone: string;
  mayView: boolean;
  /** Whether the reader may open the audit log (its link shows only then). */
  mayAudit: boolean;
}): Html {
  const kept =
    o.choices === 1
      ? 'keeps its leaf in the decision log and its receipt'
      : 'keep their leaves in the decision log and their receipts';
  return html`${crumbs(o.mayView, 'Visitor erased')}
<h1>Visitor erased</h1>
<p role="status">Visitor <span class="mono">${o.visitor}</span> was erased: ${count(o.choices, 'cookie choice', 'cookie choices')} ${kept}, without the visitor id, address or user agent.</p>
<p>To answer the visitor later, keep with their request the random id their choices keep, <span class="mono">${o.subjectId}</span>, and the time of the erasure, ${time(o.erasedAt, o.zone)}: the service keeps no link from the visitor id to their choices any more.${o.mayAudit ? html` The <a href="${basePath}/audit">audit log</a> records the erasure under that random id.` : ''}</p>
<p><a href="${basePath}/cookies/visitors/erase">Erase another visitor</a></p>`;
}
