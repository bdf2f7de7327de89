import { type Html, html, trusted } from '../platform/html.js';
import type {
  CookieChoiceOverview,
  CustomerOverview,
  PageLocale,
  PreferenceCentreSettings,
  RecordLine,
  TemplateOverview,
} from '../preference-centre/index.js';
import type { RequestKind, RequestView } from '../requests/index.js';
import { type Words, words } from './words.js';

/** What every page of a tenant's preference centre shows around its content. */
export interface PageFrame {
  locale: PageLocale;
  /** The tenant's name as the page shows it (its alias when it set none). */
  name: string;
  settings: PreferenceCentreSettings;
  /** The tenant's time zone, for every date shown. */
  zone: string;
}

const defaultAccent = '#0b5cad';
const defaultHeader = '#1f2937';

const styles = (accent: string, header: string) => `
:root{--accent:${accent};--header:${header};color-scheme:light}
*{box-sizing:border-box}
body{margin:0;font:1rem/1.55 system-ui,-apple-system,"Segoe UI","Noto Sans Thai","Noto Sans",sans-serif;color:#1a1a1a;background:#f6f7f9}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,summary:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:1}
header.brand{background:var(--header);color:#fff;padding:.75rem 1rem;display:flex;align-items:center;gap:.75rem}
header.brand img{max-height:2.5rem;max-width:10rem}
header.brand p{margin:0;font-weight:600;font-size:1.1rem}
main{max-width:48rem;margin:0 auto;padding:1rem}
h1{font-size:1.6rem;margin:.5rem 0}
h2{font-size:1.3rem;margin:2rem 0 .5rem}
h3{font-size:1.1rem;margin:0 0 .25rem}
article,.panel{background:#fff;border:1px solid #d0d5dd;border-radius:.5rem;padding:1rem;margin:.75rem 0}
.state{margin:.25rem 0}
.note{color:#475467}
details{margin:.5rem 0}
summary{cursor:pointer;color:var(--accent);text-decoration:underline}
.content{border-left:3px solid #d0d5dd;padding-left:.75rem;margin-top:.5rem;overflow-wrap:anywhere}
.content h1{font-size:1.2rem}.content h2{font-size:1.1rem}
button,.button{font:inherit;display:inline-block;min-height:2.75rem;padding:.5rem 1rem;border-radius:.375rem;border:2px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer;text-decoration:none}
button.secondary,.button.secondary{background:#fff;color:var(--accent)}
form.inline{display:inline}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:.75rem;align-items:center}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.5rem .25rem;border-bottom:1px solid #e4e7ec;vertical-align:middle}
.scroll{overflow-x:auto}
.mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem;overflow-wrap:anywhere}
.notice{background:#ecfdf3;border:1px solid #067647;color:#054f31;padding:.75rem 1rem;border-radius:.375rem}
.notice.warn{background:#fffaeb;border-color:#b54708;color:#7a2e0e}
.tag{display:inline-block;padding:0 .5rem;border-radius:1rem;background:#eef2f6;color:#1a1a1a;font-size:.9rem}
.tag.off{background:#fef3f2;color:#912018}
ul.partners{list-style:none;padding:0;margin:0}
ul.partners li{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.5rem;padding:.5rem 0;border-top:1px solid #e4e7ec}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input[type=email],input[type=text]{font:inherit;width:100%;max-width:24rem;min-height:2.75rem;padding:.5rem;border:1px solid #667085;border-radius:.375rem}
select,textarea{font:inherit;display:block;box-sizing:border-box;width:100%;max-width:32rem;min-height:2.75rem;padding:.5rem;border:1px solid #667085;border-radius:.375rem;margin-bottom:1rem}
input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.field-error{display:block;color:#b42318;margin:.25rem 0}
footer{max-width:48rem;margin:0 auto;padding:1rem 1rem 2rem;display:flex;flex-wrap:wrap;gap:1rem;align-items:center}
`;

/** A whole page: the tenant's band at the top, the content in `main`, the way back below. */
export function page(frame: PageFrame, title: string, body: Html, footer: Html = html``): string {
  const { settings, name } = frame;
  const w = words[frame.locale];
  const css = styles(
    settings.accentColour ?? defaultAccent,
    settings.headerColour ?? defaultHeader,
  );
  return `<!doctype html>${html`<html lang="${frame.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} – ${name}</title>
<style>${trusted(css)}</style>
</head>
<body>
<a class="skip" href="#main">${w.skip}</a>
<header class="brand">${settings.logoUrl ? html`<img src="${settings.logoUrl}" alt="">` : ''}<p>${name}</p></header>
<main id="main" tabindex="-1">
${body}
</main>
<footer>${footer}</footer>
</body>
</html>`}`;
}

/**
 * A page that says one thing and shows nothing of any customer: a refusal or an end; with the
 * way to sign in by e-mail when the tenant offers it.
 */
export function messagePage(frame: PageFrame, title: string, text: string, signInAt?: string) {
  const signIn = signInAt
    ? html`<p><a class="button" href="${signInAt}">${words[frame.locale].signInTitle}</a></p>`
    : '';
  return page(frame, title, html`<h1>${title}</h1><p>${text}</p>${signIn}`);
}

function formatDate(frame: PageFrame, iso: string): string {
  return new Intl.DateTimeFormat(frame.locale, {
    dateStyle: 'long',
    timeStyle: 'short',
    timeZone: frame.zone,
  }).format(new Date(iso));
}

/** The hidden fields every form of the page sends: the session's form token. */
function token(formToken: string): Html {
  return html`<input type="hidden" name="_csrf" value="${formToken}">`;
}

export interface OverviewPage {
  frame: PageFrame;
  overview: CustomerOverview;
  formToken: string;
  /** A fresh id per page shown: a decision form's idempotency key. */
  formId: string;
  notice: { text: string; warn: boolean } | undefined;
  returnUrl: string | undefined;
  /** The page's own path (`/preferences/{alias}`), which every form posts under. */
  base: string;
  /** The customer's data-subject requests, newest first. */
  requests: readonly RequestView[];
}

/** The customer's page: consents, contact channels, records, requests. */
export function overviewPage(view: OverviewPage): string {
  const { frame, overview } = view;
  const w = words[frame.locale];
  const body = html`<h1>${w.title}</h1>
<p>${w.intro}</p>
${view.notice ? html`<p class="notice${view.notice.warn ? ' warn' : ''}" role="status" id="notice" tabindex="-1" autofocus>${view.notice.text}</p>` : ''}
<section aria-labelledby="consents-title">
<h2 id="consents-title">${w.consents}</h2>
${overview.templates.length === 0 ? html`<p class="note">${w.noConsents}</p>` : overview.templates.map((t) => templateCard(view, w, t))}
</section>
${channelSection(view, w)}
${cookieSection(view, w)}
${recordSection(view, w)}
${requestSection(view, w)}`;
  return page(frame, w.title, body, footerOf(view, w));
}

function footerOf(
  view: Pick<OverviewPage, 'frame' | 'returnUrl' | 'formToken' | 'base'>,
  w: Words,
): Html {
  return html`${view.returnUrl ? html`<a href="${view.returnUrl}">${w.back} ${view.frame.name}</a>` : ''}
<form method="post" action="${view.base}/sign-out" class="inline">${token(view.formToken)}<button type="submit" class="secondary">${w.signOut}</button></form>`;
}

function templateCard(view: OverviewPage, w: Words, t: TemplateOverview): Html {
  const { frame } = view;
  const id = `t-${t.code}`;
  const decided = t.onLatest ?? t.last;
  const verb = { given: w.agreed, reject: w.rejected, withdraw: w.withdrew }[decided.decision];
  const newer = t.onLatest === null;
  const expiry = t.lapse
    ? html`<p class="state">${t.lapse.expired ? w.expired : w.expires} ${formatDate(frame, t.lapse.expires_at)}</p>`
    : '';
  const action = t.consented
    ? html`<a class="button secondary" href="${view.base}/withdraw?template=${encodeURIComponent(t.code)}">${w.withdraw}<span class="sr-only">: ${t.name}</span></a>`
    : html`<form method="post" action="${view.base}/decisions" class="inline">${token(view.formToken)}
<input type="hidden" name="version_id" value="${t.latest.id}">
<input type="hidden" name="decision" value="given">
<input type="hidden" name="form_id" value="${view.formId}-${t.code}">
${t.dataCategories.length > 0 ? html`<label class="explicit"><input type="checkbox" name="explicit" value="true" required> ${w.explicitConfirm}</label>` : ''}
<button type="submit">${w.agree}<span class="sr-only">: ${t.name}</span></button></form>`;
  return html`<article id="${id}" aria-labelledby="${id}-title">
<h3 id="${id}-title">${t.name}</h3>
<p class="state">${verb} ${formatDate(frame, decided.decidedAt)} (${w.version} ${newer ? t.last.version.tag : t.latest.tag})</p>
${newer ? html`<p class="state"><strong>${w.newVersion}</strong></p>` : ''}
${expiry}
<details${newer ? ' open' : ''}><summary>${w.readText} (${w.version} ${t.latest.tag})</summary><div class="content" lang="${t.latest.locale || frame.locale}">${trusted(t.latest.contentHtml)}</div></details>
${newer ? html`<details><summary>${w.readEarlier} (${w.version} ${t.last.version.tag})</summary><div class="content" lang="${t.last.version.locale || frame.locale}">${trusted(t.last.version.contentHtml)}</div></details>` : ''}
<div class="actions">${action}</div>
${t.partners.length > 0 ? partnerList(view, w, t) : ''}
</article>`;
}

function partnerList(view: OverviewPage, w: Words, t: TemplateOverview): Html {
  const decisionId = t.onLatest?.id ?? '';
  return html`<h4>${w.partners}</h4><p class="note">${w.partnersIntro}</p>
<ul class="partners">${t.partners.map(
    (
      p,
    ) => html`<li><span>${p.name} <span class="tag${p.blocked ? ' off' : ''}">${p.blocked ? w.blockedPartner : w.shared}</span></span>
<form method="post" action="${view.base}/partners" class="inline">${token(view.formToken)}
<input type="hidden" name="decision_id" value="${decisionId}">
<input type="hidden" name="partner_code" value="${p.partner_code}">
<input type="hidden" name="blocked" value="${p.blocked ? 'false' : 'true'}">
<button type="submit" class="secondary">${p.blocked ? w.allowPartner : w.blockPartner} ${p.name}</button></form></li>`,
  )}</ul>`;
}

function channelSection(view: OverviewPage, w: Words): Html {
  const products = view.overview.channels.filter((p) => p.channels.length > 0);
  if (products.length === 0) return html``;
  return html`<section aria-labelledby="channels-title">
<h2 id="channels-title">${w.channels}</h2>
<p class="note">${w.channelsIntro}</p>
${products.map(
  (product) => html`<div class="panel"><h3 id="p-${product.productCode}">${product.productName}</h3>
<div class="scroll" role="region" aria-labelledby="p-${product.productCode}" tabindex="0"><table>
<thead><tr><th scope="col">${w.channel}</th><th scope="col">${w.state}</th><td></td></tr></thead>
<tbody>${product.channels.map(
    (
      c,
    ) => html`<tr><th scope="row">${c.name}</th><td><span class="tag${c.blocked ? ' off' : ''}">${c.blocked ? w.blocked : w.allowed}</span></td>
<td><form method="post" action="${view.base}/channels" class="inline">${token(view.formToken)}
<input type="hidden" name="product_code" value="${product.productCode}">
<input type="hidden" name="channel" value="${c.code}">
<input type="hidden" name="blocked" value="${c.blocked ? 'false' : 'true'}">
<button type="submit" class="secondary">${c.blocked ? w.allow : w.block} ${c.name}<span class="sr-only"> – ${product.productName}</span></button></form></td></tr>`,
  )}</tbody></table></div></div>`,
)}
</section>`;
}

/**
 * Read-only: a cookie choice is changed in the banner of its website, which records it. Absent
 * for a customer no site signed in to its banner.
 */
function cookieSection(view: OverviewPage, w: Words): Html {
  const { cookies } = view.overview;
  if (cookies.length === 0) return html``;
  return html`<section aria-labelledby="cookies-title">
<h2 id="cookies-title">${w.cookies}</h2>
<p class="note">${w.cookiesIntro}</p>
${cookies.map((c) => cookiePanel(view.frame, w, c))}
</section>`;
}

function cookiePanel(frame: PageFrame, w: Words, c: CookieChoiceOverview): Html {
  return html`<div class="panel"><h3>${c.systemName}</h3>
<p class="state">${w.cookiesChosen} <time datetime="${c.decidedAt}">${formatDate(frame, c.decidedAt)}</time></p>
<table><thead><tr><th scope="col">${w.cookieCategory}</th><th scope="col">${w.state}</th></tr></thead>
<tbody>${c.categories.map(
    (k) =>
      html`<tr><th scope="row">${k.name}</th><td><span class="tag${k.allowed ? '' : ' off'}">${k.allowed ? w.cookieAllowed : w.cookieRefused}</span></td></tr>`,
  )}</tbody></table></div>`;
}

function recordSection(view: OverviewPage, w: Words): Html {
  const { records } = view.overview;
  return html`<section aria-labelledby="records-title">
<h2 id="records-title">${w.records}</h2>
<p class="note">${w.recordsIntro}</p>
<form method="post" action="${view.base}/evidence">${token(view.formToken)}<button type="submit" class="secondary">${w.downloadPack}</button></form>
${
  records.length === 0
    ? html`<p class="note">${w.noRecords}</p>`
    : html`<div class="scroll" role="region" aria-label="${w.records}: ${w.receipt}" tabindex="0"><table>
<thead><tr><th scope="col">${w.when}</th><th scope="col">${w.record}</th><th scope="col">${w.receipt}</th></tr></thead>
<tbody>${records.map((r) => recordRow(view.frame, w, r))}</tbody></table></div>`
}
</section>`;
}

/** Their requests (PDPA sections 30-36), each with when it is due, and a form for a new one. */
function requestSection(view: OverviewPage, w: Words): Html {
  const { frame } = view;
  const day = (d: string) =>
    new Intl.DateTimeFormat(frame.locale, { dateStyle: 'long', timeZone: 'UTC' }).format(
      new Date(`${d}T00:00:00Z`),
    );
  return html`<section aria-labelledby="requests-title">
<h2 id="requests-title">${w.requests}</h2>
<p class="note">${w.requestsIntro}</p>
${
  view.requests.length === 0
    ? html`<p class="note">${w.noRequests}</p>`
    : html`<div class="scroll" role="region" aria-label="${w.requests}" tabindex="0"><table>
<thead><tr><th scope="col">${w.requestKind}</th><th scope="col">${w.receivedOn}</th><th scope="col">${w.state}</th><th scope="col">${w.dueOn}</th></tr></thead>
<tbody>${view.requests.map(
        (r) =>
          html`<tr><td>${w.requestKinds[r.kind as RequestKind] ?? r.kind}</td><td>${formatDate(frame, r.received_at)}</td><td>${w.requestStatus[r.status] ?? r.status}</td><td>${r.closed_at === null ? day(r.due_on) : ''}</td></tr>`,
      )}</tbody></table></div>`
}
<form method="post" action="${view.base}/requests">${token(view.formToken)}
<label for="request-kind">${w.requestKind}</label>
<select id="request-kind" name="kind">${Object.entries(w.requestKinds).map(([kind, label]) => html`<option value="${kind}">${label}</option>`)}</select>
<label for="request-details">${w.requestDetails}</label>
<textarea id="request-details" name="details" rows="3" maxlength="4000"></textarea>
<button type="submit">${w.sendRequest}</button>
</form>
</section>`;
}

function recordRow(frame: PageFrame, w: Words, r: RecordLine): Html {
  let what: string;
  if (r.kind === 'decision') {
    const [decision, template] = r.what.split(' ') as ['given' | 'reject' | 'withdraw', string];
    what = `${w.kindDecision[decision]} ${template}`;
  } else if (r.kind === 'channel_change') {
    what = `${w.kindChannel(r.blocked === true)} ${r.what}`;
  } else {
    what = `${w.kindPartner(r.blocked === true)} ${r.what}`;
  }
  return html`<tr><td>${formatDate(frame, r.at)}</td><td>${what}</td><td class="mono">${r.id}</td></tr>`;
}

/** The second step of a withdrawal: the one button that records it, and the way back. */
export function withdrawPage(view: {
  frame: PageFrame;
  template: TemplateOverview;
  formToken: string;
  formId: string;
  base: string;
}): string {
  const w = words[view.frame.locale];
  const t = view.template;
  const body = html`<h1>${w.withdrawTitle}</h1>
<p>${w.withdrawQuestion} <strong>${t.name}</strong>?</p>
<form method="post" action="${view.base}/decisions">${token(view.formToken)}
<input type="hidden" name="version_id" value="${t.onLatest?.versionId ?? t.latest.id}">
<input type="hidden" name="decision" value="withdraw">
<input type="hidden" name="form_id" value="${view.formId}">
<div class="actions"><button type="submit" autofocus>${w.withdrawConfirm}</button>
<a class="button secondary" href="${view.base}#t-${t.code}">${w.cancel}</a></div>
</form>`;
  return page(view.frame, w.withdrawTitle, body);
}
