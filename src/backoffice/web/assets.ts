import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

const require = createRequire(import.meta.url);
const picoFile = require.resolve('@picocss/pico/css/pico.min.css');
const htmxFile = require.resolve('htmx.org/dist/htmx.min.js');
/** The browser's half of WebAuthn, as its package builds it for a page (global `SimpleWebAuthnBrowser`). */
const webauthnDir = join(
  dirname(dirname(require.resolve('@simplewebauthn/browser'))),
  'dist',
  'bundle',
);

/**
 * The back-office's own script: what htmx does not do. Every page works without it but for
 * passkeys, which need it; it adds the copy buttons and the passkey forms (both shown once the
 * script runs). A passkey form (`data-passkey`) asks its `data-options` URL for the ceremony's
 * options, lets the browser make or use a passkey, and sends the browser's answer in its
 * `credential` field.
 */
const appJs = `'use strict';
const webauthn = window.SimpleWebAuthnBrowser;
for (const form of document.querySelectorAll('form[data-passkey]')) {
  if (!webauthn || !webauthn.browserSupportsWebAuthn()) continue;
  form.hidden = false;
  const said = form.querySelector('[data-passkey-error]');
  form.addEventListener('submit', async (event) => {
    const credential = form.elements.namedItem('credential');
    if (credential.value) return;
    event.preventDefault();
    said.textContent = '';
    try {
      const asked = await fetch(form.dataset.options, {
        method: 'POST',
        headers: { 'csrf-token': form.elements.namedItem('_csrf').value },
        credentials: 'same-origin',
      });
      if (!asked.ok) throw new Error('The server did not start the passkey (' + asked.status + '). Reload the page and try again.');
      const optionsJSON = await asked.json();
      const answer = form.dataset.passkey === 'register'
        ? await webauthn.startRegistration({ optionsJSON })
        : await webauthn.startAuthentication({ optionsJSON });
      credential.value = JSON.stringify(answer);
      form.submit();
    } catch (error) {
      said.textContent = error && error.name === 'NotAllowedError'
        ? 'No passkey was used: the request was cancelled or timed out.'
        : String(error && error.message ? error.message : error);
    }
  });
}
for (const button of document.querySelectorAll('button[data-copy]')) {
  const source = document.getElementById(button.dataset.copy);
  if (!source) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    const text = source.textContent.trim();
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // No clipboard API (a page over plain http away from localhost): select the text instead.
      getSelection().selectAllChildren(source);
      button.textContent = 'Selected: press Ctrl+C';
      return;
    }
    button.textContent = 'Copied';
    setTimeout(() => { button.textContent = 'Copy'; }, 3000);
  });
}
`;

/** The back-office's own styles, on top of Pico's. No inline styles anywhere (the CSP says so). */
const appCss = `
:root { --bo-given: #1a7f37; --bo-reject: #c2410c; --bo-withdraw: #6d28d9; }
.skip-link { position: absolute; left: -10000px; top: 0; }
.skip-link:focus { left: 1rem; top: 1rem; z-index: 10; padding: .5rem 1rem;
  background: var(--pico-background-color); }
:where(a, button, input, select, textarea, summary, [tabindex]):focus-visible {
  outline: 3px solid var(--pico-primary); outline-offset: 2px; }
main:focus { outline: none; }
header nav, header nav ul { flex-wrap: wrap; }
header nav ul.links { row-gap: 0; }
/* The menus in the header read as links, like the rest of the navigation. */
header nav details.dropdown > summary:not([role]) { border-color: transparent;
  background-color: transparent; box-shadow: none; color: var(--pico-primary); }
header nav details.dropdown > summary:not([role]):focus-visible { outline: 3px solid var(--pico-primary);
  outline-offset: 2px; }
header nav details.dropdown > summary[aria-current] { color: var(--pico-primary-hover);
  text-decoration: underline; }
.brand { font-weight: 700; text-decoration: none; }
.who { display: inline-block; margin-left: .5rem; padding: 0 .5rem; font-size: .8em;
  border: 1px solid var(--pico-muted-border-color); border-radius: var(--pico-border-radius);
  color: var(--pico-muted-color); }
.signed-in-as { display: block; padding: .4rem var(--pico-form-element-spacing-horizontal);
  color: var(--pico-muted-color); font-size: .875em; }
form.sign-out { margin: 0; }
form.sign-out button { width: 100%; margin: 0; }
.notice { padding: .75rem 1rem; border-left: .3rem solid var(--pico-ins-color);
  background: var(--pico-card-background-color); }
.form-errors { padding: .75rem 1rem; margin-bottom: var(--pico-spacing);
  border-left: .3rem solid var(--pico-del-color); background: var(--pico-card-background-color); }
.form-errors ul { margin-bottom: 0; }
.field-error { color: var(--pico-del-color); }
/* A table wider than the screen scrolls in its own box, and shows it: a shadow at each edge with
   more beyond it (covered, as the box scrolls to that end, by the page's own background), and, on
   a phone, a line saying so. The cells are see-through for the shadows to show. */
.table-scroll { overflow-x: auto; position: relative;
  background:
    linear-gradient(to right, var(--pico-background-color) 30%, transparent) left center / 3rem 100% no-repeat local,
    linear-gradient(to left, var(--pico-background-color) 30%, transparent) right center / 3rem 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, rgba(0, 0, 0, .3), transparent) left center / 1rem 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, rgba(0, 0, 0, .3), transparent) right center / 1rem 100% no-repeat scroll,
    var(--pico-background-color); }
.table-scroll :is(td, th) { background-color: transparent; }
.table-scroll table { min-width: 40rem; }
/* Long values (user agents, details) may break anywhere; names and codes only when they must. */
td.wrap, td.wrap .mono { overflow-wrap: anywhere; }
td.wrap { min-width: 12rem; }
.nowrap { white-space: nowrap; }
.mono { font-family: var(--pico-font-family-monospace); font-size: .875em; overflow-wrap: break-word; }
.badge { display: inline-block; padding: 0 .5rem; border-radius: 1rem; font-size: .8em;
  border: 1px solid currentColor; white-space: nowrap; }
.badge.draft, .badge.archived { color: var(--pico-muted-color); }
.badge.published, .badge.given, .badge.active { color: var(--bo-given); }
.badge.reject, .badge.revoked, .badge.disabled { color: var(--bo-reject); }
.badge.withdraw, .badge.pending, .badge.scheduled { color: var(--bo-withdraw); }
.locale-tabs ul, .section-tabs ul { flex-wrap: wrap; }
:is(.locale-tabs, .section-tabs) a[aria-current="page"] { font-weight: 700; text-decoration: underline; text-underline-offset: .3em; }
.key-once { display: block; margin-bottom: var(--pico-spacing); font-family: var(--pico-font-family-monospace); overflow-wrap: anywhere;
  padding: 1rem; border: 2px dashed var(--pico-primary); user-select: all; }
.diff { white-space: pre-wrap; padding: 1rem; border: 1px solid var(--pico-muted-border-color);
  border-radius: var(--pico-border-radius); margin-bottom: var(--pico-spacing); }
.diff ins { color: var(--bo-given); text-decoration: underline 2px; background: none; }
.diff del { color: var(--bo-reject); text-decoration: line-through 2px; background: none; }
.badge.invited, .badge.in_review, .badge.reviewed, .badge.no-role { color: var(--bo-withdraw); }
.badge.rejected { color: var(--bo-reject); }
/* A choice's description beside its box: Pico's rule for a field's hint (input + small) would
   pull it up over the box, where it takes the clicks. */
label > input[type=checkbox] + small { display: inline; width: auto; margin: 0; }
/* The dashboard's standing: four short numbers, whose caption wraps instead of widening them. */
table.standing { width: 100%; }
table.standing caption { white-space: normal; text-align: left; caption-side: top; }
table.standing :is(td, th) { padding: .25rem .4rem; font-size: .875em; }
.timeline { padding-left: 1.25rem; }
.timeline li { margin-bottom: .5rem; }
.timeline li > span { color: var(--pico-muted-color); font-size: .875em; }
.timeline blockquote { margin: .25rem 0 0; padding: .25rem .75rem; white-space: pre-wrap; }
.timeline .sent_back strong, .timeline .rejected strong { color: var(--bo-reject); }
.timeline .approved strong, .timeline .published strong { color: var(--bo-given); }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; }
.actions form { margin: 0; }
.actions > * { margin-bottom: 0; }
.chart { margin-bottom: 0; }
/* The bars stretch to the width, never in height (200px, as src/backoffice/dashboard/chart.ts
   draws them); the labels beside and below them are not scaled, so they keep one size. */
.chart-area { display: grid; grid-template-columns: 2.75rem minmax(0, 1fr); padding-right: 1rem; }
.chart-area svg { display: block; width: 100%; }
.chart-y, .chart-plot { grid-row: 1; height: 200px; }
.chart-y { grid-column: 1; }
.chart-plot { grid-column: 2; }
.chart-x { grid-row: 2; grid-column: 2; height: 1.5rem; }
/* The labels at the ends reach past their box, into the margins around the plot. */
.chart-area :is(.chart-x, .chart-y) { overflow: visible; }
.chart .bar-given { fill: var(--bo-given); }
.chart .bar-reject { fill: var(--bo-reject); }
.chart .bar-withdraw { fill: var(--bo-withdraw); }
.chart .axis { stroke: var(--pico-muted-border-color); vector-effect: non-scaling-stroke; }
.chart text { fill: var(--pico-muted-color); font-size: 13px; }
.details-list { margin: 0; padding: 0; list-style: none; }
.details-list li { list-style: none; margin: 0; }
.legend { display: flex; flex-wrap: wrap; gap: 1rem; padding: 0; list-style: none; }
.legend li { list-style: none; }
.swatch { display: inline-block; width: .9em; height: .9em; margin-right: .3em;
  vertical-align: -.1em; border-radius: 2px; }
.swatch.given { background: var(--bo-given); }
.swatch.reject { background: var(--bo-reject); }
.swatch.withdraw { background: var(--bo-withdraw); }
/* The draft's content beside its preview; one above the other on narrow screens. */
.editor { display: grid; grid-template-columns: 1fr 1fr; gap: var(--pico-grid-column-gap); }
.editor textarea { min-height: 20rem; }
.editor .content-preview { max-height: 24rem; min-height: 6rem; }
h2.label { font-size: 1rem; font-weight: normal; margin-bottom: calc(var(--pico-spacing) * .375); }
.content-preview { padding: 1rem; border: 1px solid var(--pico-muted-border-color);
  border-radius: var(--pico-border-radius); max-height: 30rem; overflow: auto; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.pager { display: flex; justify-content: space-between; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip-path: inset(50%); white-space: nowrap; }
.muted { color: var(--pico-muted-color); }
/* The notice after a form takes the focus: it shows where the reading starts, quietly. */
.notice:focus { outline: 2px solid var(--pico-ins-color); outline-offset: 2px; }
/* The authenticator's QR code: big enough to scan from a screen, not the page's whole width. */
.qr-code { max-width: 16rem; }
.qr-code svg { display: block; width: 100%; height: auto; }
/* A banner's previews: frames of a phone's and a desktop's width side by side, at their own
   size, scrolling in their own box where the screen is narrower. */
.banner-previews { display: flex; gap: 1rem; align-items: flex-start; overflow-x: auto;
  padding-bottom: .5rem; margin-bottom: var(--pico-spacing); }
.banner-previews figure { flex: none; margin: 0; }
/* Its border outside its width: the frame's page is exactly the width it is previewed at. */
.banner-previews iframe { display: block; box-sizing: content-box; background: #fff;
  border: 1px solid var(--pico-muted-border-color); }
.banner-previews figcaption { font-size: .875em; color: var(--pico-muted-color); }
@media (max-width: 576px) {
  header nav { --pico-nav-element-spacing-vertical: .4rem; --pico-nav-element-spacing-horizontal: .5rem; }
  header nav details.dropdown summary { --pico-form-element-spacing-vertical: .4rem;
    --pico-form-element-spacing-horizontal: .6rem; }
  dl.facts { grid-template-columns: 1fr; }
  .editor { grid-template-columns: 1fr; }
  dl.facts dd { margin-bottom: .5rem; }
  /* Every such table is wider than a phone (40rem): say that it scrolls. */
  .table-scroll::before { content: "Scroll sideways for more columns →"; display: block;
    position: sticky; left: 0; padding: .25rem 0; font-size: .8em; color: var(--pico-muted-color); }
}
`;

const etagOf = (text: string) =>
  `"${createHash('sha256').update(text).digest('hex').slice(0, 16)}"`;

/** Text assets made here, each with its ETag. */
const ownAssets = new Map([
  ['app.css', { type: 'text/css; charset=utf-8', body: appCss, etag: etagOf(appCss) }],
  ['app.js', { type: 'text/javascript; charset=utf-8', body: appJs, etag: etagOf(appJs) }],
]);

/**
 * Pico CSS, htmx and SimpleWebAuthn's browser bundle from their npm packages, and the back-office's own styles and script: no
 * CDN, nothing fetched at runtime.
 */
export async function assetRoutes(app: FastifyInstance): Promise<void> {
  await app.register(fastifyStatic, { root: dirname(picoFile), serve: false });
  app.get('/assets/pico.min.css', { config: { permission: 'public' } }, (_request, reply) =>
    reply.header('cache-control', 'public, max-age=86400').sendFile('pico.min.css'),
  );
  app.get('/assets/htmx.min.js', { config: { permission: 'public' } }, (_request, reply) =>
    reply
      .header('cache-control', 'public, max-age=86400')
      .sendFile('htmx.min.js', dirname(htmxFile)),
  );
  app.get('/assets/webauthn.min.js', { config: { permission: 'public' } }, (_request, reply) =>
    reply
      .header('cache-control', 'public, max-age=86400')
      .sendFile('index.umd.min.js', webauthnDir),
  );
  app.get<{ Params: { name: string } }>(
    '/assets/:name',
    { config: { permission: 'public' } },
    (request, reply) => {
      const asset = ownAssets.get(request.params.name);
      if (!asset) return reply.callNotFound();
      reply.header('cache-control', 'public, max-age=3600').header('etag', asset.etag);
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
      return reply.type(asset.type).send(asset.body);
    },
  );
}
