import type { ProcessingRecord } from '../../processing-record/index.js';
import { time } from '../web/format.js';
import { csrfField, type FieldErrors, formErrors, input, textarea } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';
import { type RecordWords, recordWords } from './words.js';

/** The record's body, as the page and the printable document show it, in one language. */
export function recordBody(r: ProcessingRecord, w: RecordWords, zone: string): Html {
  const f = r.fields;
  const value = (v: string) => (v === '' ? html`<em>${w.notFilled}</em>` : v);
  return html`<section aria-labelledby="controller"><h2 id="controller">${w.controller}</h2>
<dl>
<dt>${w.name}</dt><dd>${value(f.controller_name)}</dd>
<dt>${w.address}</dt><dd class="wrap">${value(f.controller_address)}</dd>
<dt>${w.contact}</dt><dd class="wrap">${value(f.controller_contact)}</dd>
</dl>
<h3>${w.dpo}</h3>
<dl><dt>${w.name}</dt><dd>${value(f.dpo_name)}</dd><dt>${w.contact}</dt><dd class="wrap">${value(f.dpo_contact)}</dd></dl>
<h3>${w.security}</h3>
<p class="wrap">${value(f.security_measures)}</p>
</section>
<section aria-labelledby="purposes"><h2 id="purposes">${w.purposes}</h2>
${r.activities.map(
  (
    a,
  ) => html`<article aria-labelledby="p-${a.template_code}"><h3 id="p-${a.template_code}">${a.name} <small>(${a.template_code}, ${w.version} ${a.version}, ${w.liveSince} ${time(a.live_since, zone)})</small></h3>
<dl>
<dt>${w.purpose}</dt><dd class="wrap">${a.purpose || html`<em>${w.notFilled}</em>`}</dd>
<dt>${w.basis}</dt><dd>${w.bases[a.legal_basis]}</dd>
<dt>${w.data}</dt><dd>${a.data_categories.length > 0 ? a.data_categories.join(', ') : w.noSensitive}</dd>
<dt>${w.retention}</dt><dd>${a.retention_months === null ? w.untilWithdrawn : w.months(a.retention_months)}</dd>
<dt>${w.recipients}</dt><dd>${
    a.recipients.length === 0
      ? w.none
      : html`<ul>${a.recipients.map((p) => html`<li>${p.name}${p.country ? ` (${p.country}${p.abroad ? `, ${w.abroad}` : ''})` : ''}${p.purpose ? html`: <span class="wrap">${p.purpose}</span>` : ''}</li>`)}</ul>`
  }</dd>
</dl></article>`,
)}
</section>
<section aria-labelledby="channels"><h2 id="channels">${w.channels}</h2>
<p>${r.channels.map((c) => c.name).join(', ')}</p></section>
<section aria-labelledby="refusals"><h2 id="refusals">${w.refusals}</h2>
${
  r.refusals.length === 0
    ? html`<p>${w.noRefusals}</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="${w.refusals}"><table>
<thead><tr><th scope="col">${w.kind}</th><th scope="col">${w.refusedOn}</th><th scope="col">${w.ground}</th><th scope="col">${w.reason}</th></tr></thead>
<tbody>${r.refusals.map((x) => html`<tr><td>${x.kind}</td><td>${time(x.refused_at, zone)}</td><td>${x.ground}</td><td class="wrap">${x.reason}</td></tr>`)}</tbody></table></div>`
}</section>`;
}

interface PageModel {
  record: ProcessingRecord;
  zone: string;
  mayExport: boolean;
  mayEdit: boolean;
  csrfToken: string;
  errors: readonly string[];
  fieldErrors: FieldErrors;
}

/** The back-office's page of the record: as of a day, its exports, and the tenant's fields. */
export function recordPage(o: PageModel): Html {
  const r = o.record;
  const f = r.fields;
  const q = (lang: string) => `?at=${r.as_of}&lang=${lang}`;
  return html`<hgroup><h1>Record of processing</h1><p>The record PDPA section 39 asks a controller to keep, generated from the templates live at the end of the day (by their logged publications), the partners their releases list, the contact channels and the requests refused, with what you fill in below.</p></hgroup>
<form method="get" action="${basePath}/processing-record" class="inline">
${input({ name: 'at', label: 'As of the end of', type: 'date', value: r.as_of })}
<button type="submit" class="secondary">Show</button>
</form>
${o.mayExport ? html`<p>Export: <a href="${basePath}/processing-record.csv${q('en')}" download>CSV</a> · <a href="${basePath}/processing-record/print${q('en')}">Printable, English</a> · <a href="${basePath}/processing-record/print${q('th')}" lang="th">ฉบับพิมพ์ ภาษาไทย</a></p>` : ''}
${recordBody(r, recordWords.en, o.zone)}
${
  o.mayEdit
    ? html`<section aria-labelledby="fill"><h2 id="fill">What you fill in</h2>
${f.updated_at ? html`<p>Last changed ${time(f.updated_at, o.zone)}.</p>` : ''}
${formErrors(o.errors)}
<form method="post" action="${basePath}/processing-record" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'controller_name', label: 'Controller: name', value: f.controller_name, maxlength: 200, error: o.fieldErrors.controller_name })}
${textarea({ name: 'controller_address', label: 'Controller: address', value: f.controller_address, rows: 3, maxlength: 1000, error: o.fieldErrors.controller_address })}
${textarea({ name: 'controller_contact', label: 'Controller: contact', value: f.controller_contact, rows: 2, maxlength: 500, error: o.fieldErrors.controller_contact })}
${input({ name: 'dpo_name', label: 'Data protection officer: name', value: f.dpo_name, maxlength: 200, error: o.fieldErrors.dpo_name })}
${textarea({ name: 'dpo_contact', label: 'Data protection officer: contact', value: f.dpo_contact, rows: 2, maxlength: 500, error: o.fieldErrors.dpo_contact })}
${textarea({ name: 'security_measures', label: 'Security measures', value: f.security_measures, rows: 6, maxlength: 8000, error: o.fieldErrors.security_measures })}
<button type="submit">Save</button>
</form></section>`
    : ''
}`;
}

/** The printable document: the record alone, in one language, for the PDPC or an auditor. */
export function printableRecord(r: ProcessingRecord, lang: 'en' | 'th', zone: string): string {
  const w = recordWords[lang];
  return `<!doctype html>
${html`<html lang="${lang}"><head><meta charset="utf-8"><title>${w.title}</title>
<style>body{font:14px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#111}h1{font-size:1.5rem}h2{font-size:1.2rem;border-bottom:1px solid #999;margin-top:2rem}h3{font-size:1rem}dt{font-weight:600}dd{margin:0 0 .5rem}table{border-collapse:collapse;width:100%}th,td{border:1px solid #999;padding:.25rem .5rem;text-align:left;vertical-align:top}.wrap{white-space:pre-wrap}@media print{body{margin:0}}</style></head>
<body><main><h1>${w.title}</h1>
<p>${r.tenant_alias}. ${w.asOf} ${r.as_of} (${r.time_zone}). ${w.generated} ${time(r.generated_at, zone)}.</p>
${recordBody(r, w, zone)}</main></body></html>`}`;
}
