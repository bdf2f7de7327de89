import { localeName } from '../templates/review-views.js';
import { type Html, html, trusted } from '../web/html.js';
import { basePath } from '../web/layout.js';
import { configurationPath } from './paths.js';

/** The two layers a preview shows: the first, and the preferences panel open over it. */
export const previewLayers = ['first', 'preferences'] as const;
export type PreviewLayer = (typeof previewLayers)[number];

const layerWords: Record<PreviewLayer, string> = {
  first: 'First layer',
  preferences: 'Preferences',
};

/** A phone's width and a desktop's, as the back-office's own pages are checked at. */
const widths = [
  { name: 'phone', width: 390, height: 720 },
  { name: 'desktop', width: 1280, height: 720 },
] as const;

/** Where one preview document is: a configuration's, in a locale, at a layer. */
export const previewPath = (id: string, locale: string, layer: PreviewLayer) =>
  `${basePath}${configurationPath(id)}/preview?locale=${encodeURIComponent(locale)}&layer=${layer}`;

/**
 * A configuration's preview section: per locale and layer, the banner in a frame of each width.
 * The frames need no script on this page; each is sandboxed with scripts only, so its document
 * has an origin of its own (no cookie of this site, no request as this site's user).
 */
export function bannerPreviews(o: { id: string; locales: readonly string[] }): Html {
  return html`<section aria-labelledby="preview">
<h2 id="preview">Preview</h2>
<p>The banner as a visitor sees it: the real script with this configuration's texts, layout and colours, on an empty page, at a phone's width (390 px) and a desktop's (1280 px). Its buttons work, but nothing chosen here is recorded or kept; reload this page to see it again.</p>
${o.locales.map(
  (locale) => html`<h3>${localeName(locale)} <span class="mono">${locale}</span></h3>
${previewLayers.map((layer) => {
  const name = `${layerWords[layer]}, ${localeName(locale)} (${locale})`;
  return html`<div class="banner-previews" tabindex="0" role="region" aria-label="Preview: ${name}">
${widths.map(
  (w) => html`<figure>
<iframe src="${previewPath(o.id, locale, layer)}" sandbox="allow-scripts" width="${w.width}" height="${w.height}" title="Banner preview: ${name}, ${w.name} width (${w.width} px)"></iframe>
<figcaption>${layerWords[layer]}, ${w.name} (${w.width} px)</figcaption>
</figure>`,
)}
</div>`;
})}`,
)}
</section>`;
}

/**
 * The document a preview frame shows: an empty page (no landmark: the page around the frame has
 * its own `main`, and one per frame would make many) with the banner's script inline (the
 * script carries its configuration, as the site's does), its locale pinned as a site pins it
 * (`data-locale`), and for the preferences the page opening them as a site's "Cookie settings"
 * link does. `nonce` is the one the document's policy allows its scripts by.
 */
export function previewDocument(o: {
  locale: string;
  layer: PreviewLayer;
  script: string;
  nonce: string;
}): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Banner preview</title>
<script nonce="${o.nonce}" data-locale="${o.locale}">${trusted(o.script)}</script>
</head>
<body>
<h1>A page of your website</h1>
<p>The banner shows over this page as it does over the site's. Nothing chosen in it is recorded or kept.</p>
${o.layer === 'preferences' ? html`<script nonce="${o.nonce}">window.Consentrix.open();</script>` : ''}
</body>
</html>
`.text;
}
