/**
 * A website that embeds the cookie banner, as a tenant's site does, on an origin of its own
 * (127.0.0.1, a port of its own): the banner's tag first in <head>, then a `gtag` stub, tags
 * held back for consent (external ones on three "tag hosts" of other origins, and inline ones),
 * and one the page adds after it has loaded. The banner's script comes from the service origin
 * it is given: a test's stand-in, or the real service.
 *
 * A tag host counts the requests it gets and answers JS that sets `window.__ran_<name> = true`,
 * so a test sees both whether a tag was fetched and whether it ran, and in which order
 * (`window.__order`).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { scriptTag } from '../../src/cookies/systems.js';

/** The external tags, by the category that holds them back. */
export const tagNames = ['analytics', 'marketing', 'functional'] as const;
export type TagName = (typeof tagNames)[number];

/**
 * The inline tags, by category, each setting `window.__ran_inline_<category>`: `personalization`
 * with `data-consentrix-type="text/javascript"`, and `social`, a category no configuration has.
 */
export const inlineTags = ['analytics', 'personalization', 'loyalty', 'social'] as const;

export interface PageOptions {
  /** The system's scope: the banner's URL and its `data-scope`. */
  scope: string;
  /** `<html lang>`; `en` when not given. */
  lang?: string;
  /** The banner tag's `data-locale`, the language the site pins it to; none when empty. */
  locale?: string;
  /**
   * Send a strict Content-Security-Policy with a fresh nonce: scripts only with the nonce or
   * from the service, requests only to the service, and styles only with the nonce (`true`) or
   * only from the page's and the service's origins, with no nonce and nothing inline
   * (`'styles-by-origin'`).
   */
  csp?: boolean | 'styles-by-origin';
  /**
   * The banner's tag: `sync`, one synchronous script (the default); `published`, the tag the
   * service publishes (`scriptTag`: the denied defaults inline, then the banner `async`);
   * `async`, the banner's script alone made `async`, as a site that adds it to an old tag does.
   */
  tag?: 'sync' | 'published' | 'async';
  /**
   * After the banner, Google Tag Manager's shape of tag: an `async` script from a tag host, not
   * held back, that keeps the consent commands it found in the `dataLayer` when it ran
   * (`window.__gtm_saw`).
   */
  gtm?: boolean;
  /**
   * A video embed held for marketing (`<iframe data-consentrix-category data-src>`, 560 × 315,
   * from the marketing tag host's `/embed.html`), as a site embeds YouTube.
   */
  embed?: boolean;
  /** A plain 560 px wide embed, not held: a page wider than a phone's screen. */
  wide?: boolean;
  /**
   * The banner tag's `data-customer-token`, as a site writes it for a visitor it signed in (the
   * test's stand-in for the site's backend passes the token it minted).
   */
  customerToken?: string;
}

export interface FixtureSite {
  origin: string;
  /** The URL of a page of the site. */
  page(options: PageOptions): string;
  /** The tag hosts' origins, by tag. */
  tagOrigins: Record<TagName, string>;
  /** How many requests each tag host has had. */
  tagRequests(): Record<TagName, number>;
  /** How many times the held embed was loaded. */
  embedRequests(): number;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Google Tag Manager's stand-in: what Consent Mode said when it ran, as gtm.js would read it. */
const gtmTag = `window.__gtm_saw = (window.dataLayer || []).filter(function (entry) {
  return entry && entry[0] === 'consent';
}).map(function (entry) { return Array.prototype.slice.call(entry); });
`;

/**
 * The JS a tag host answers, never cached, so each page view that runs the tag asks again. It
 * also appends its name to `window.__order`; the first tag's host answers 100 ms late, so a
 * later tag fetched at once would run first unless the banner keeps their order.
 */
async function startTagHost(name: TagName) {
  let requests = 0;
  let embeds = 0;
  const server = createServer((req, res) => {
    if (req.url === '/embed.html') {
      embeds += 1;
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
        .end('<!doctype html><title>Video</title><p>A video about tea.</p>');
      return;
    }
    if (req.url === '/gtm.js') {
      res
        .writeHead(200, {
          'content-type': 'text/javascript; charset=utf-8',
          'cache-control': 'no-store',
        })
        .end(gtmTag);
      return;
    }
    requests += 1;
    const answer = () =>
      res
        .writeHead(200, {
          'content-type': 'text/javascript; charset=utf-8',
          'cache-control': 'no-store',
        })
        .end(
          `window.__ran_${name} = true;\n(window.__order = window.__order || []).push('${name}');\n`,
        );
    if (name === tagNames[0]) setTimeout(answer, 100);
    else answer();
  });
  const origin = await listen(server);
  return { origin, requests: () => requests, embeds: () => embeds, close: () => close(server) };
}

/** Escapes a value for an HTML attribute or text. */
function html(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? '',
  );
}

/** A page taller than any screen: where the banner ends up, and a scroll to it, show. */
const catalogue = Array.from(
  { length: 40 },
  (_, at) => `<p>Item ${at + 1}: a cup, a pot or a kettle, in stock and sent the same day.</p>`,
).join('\n');

/** The banner's tag, of the kind the options ask for; `n` is the nonce attribute or nothing. */
function bannerTag(options: Required<PageOptions>, serviceOrigin: string, n: string): string {
  const locale = `${options.locale ? ` data-locale="${html(options.locale)}"` : ''}${
    options.customerToken ? ` data-customer-token="${html(options.customerToken)}"` : ''
  }`;
  if (options.tag === 'published') {
    return scriptTag(serviceOrigin, options.scope)
      .replaceAll('<script', `<script${n}`)
      .replace(' data-scope=', `${locale} data-scope=`);
  }
  const banner = `${serviceOrigin}/cookies/v1/${encodeURIComponent(options.scope)}/banner.js`;
  const async = options.tag === 'async' ? ' async' : '';
  return `<script${async} src="${html(banner)}" data-scope="${html(options.scope)}"${locale}${n}></script>`;
}

function pageHtml(
  options: Required<PageOptions>,
  serviceOrigin: string,
  tagOrigins: Record<TagName, string>,
  nonce: string,
): string {
  const n = options.csp ? ` nonce="${nonce}"` : '';
  const held = (category: string, body: string, extra = '') =>
    `<script type="text/plain" data-consentrix-category="${category}"${extra}${n}>${body}</script>`;
  return `<!doctype html>
<html lang="${html(options.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Fixture shop</title>
${bannerTag(options, serviceOrigin, n)}
${options.gtm ? `<script async src="${tagOrigins.marketing}/gtm.js"${n}></script>` : ''}
<script${n}>window.dataLayer = window.dataLayer || []; function gtag(){dataLayer.push(arguments);}</script>
${held('analytics', '', ` src="${tagOrigins.analytics}/analytics.js"`)}
${held('marketing', '', ` src="${tagOrigins.marketing}/marketing.js"`)}
${held('analytics', 'window.__ran_inline_analytics = true;')}
${held('personalization', 'window.__ran_inline_personalization = true;', ' data-consentrix-type="text/javascript"')}
${held('loyalty', 'window.__ran_inline_loyalty = true;')}
${held('social', 'window.__ran_inline_social = true;')}
</head>
<body>
<main>
<h1>Fixture shop</h1>
<p>Tea, cups and kettles, delivered.</p>
<p><a href="/">Home</a></p>
<button type="button" id="settings">Cookie settings</button>
${options.wide ? '<iframe src="about:blank" width="560" height="315" title="A wide embed"></iframe>' : ''}
${options.embed ? `<iframe data-consentrix-category="marketing" data-src="${tagOrigins.marketing}/embed.html" width="560" height="315" title="Our tea video"></iframe>` : ''}
${catalogue}
</main>
<script${n}>
document.getElementById('settings').addEventListener('click', function () { window.Consentrix.open(); });
window.addEventListener('load', function () {
  setTimeout(function () {
    var tag = document.createElement('script');
    tag.type = 'text/plain';
    tag.setAttribute('data-consentrix-category', 'functional');
    tag.src = '${tagOrigins.functional}/functional.js';
    ${options.csp ? `tag.nonce = '${nonce}';` : ''}
    document.body.appendChild(tag);
  }, 50);
});
</script>
</body>
</html>
`;
}

function tagOf(value: string | null): Required<PageOptions>['tag'] {
  return value === 'published' || value === 'async' ? value : 'sync';
}

function cspOf(value: string | null): Required<PageOptions>['csp'] {
  return value === 'styles-by-origin' ? value : value === '1';
}

/**
 * Starts the site and its three tag hosts on loopback. `serviceOrigin` serves
 * `/cookies/v1/{scope}/banner.js` and takes the choices the banner POSTs.
 */
export async function startFixtureSite(serviceOrigin: string): Promise<FixtureSite> {
  const hosts = await Promise.all(tagNames.map(startTagHost));
  const tagOrigins = Object.fromEntries(
    tagNames.map((name, at) => [name, hosts[at]?.origin ?? '']),
  ) as Record<TagName, string>;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://site');
    if (url.pathname !== '/') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const options = {
      scope: url.searchParams.get('scope') ?? '',
      lang: url.searchParams.get('lang') ?? 'en',
      locale: url.searchParams.get('locale') ?? '',
      csp: cspOf(url.searchParams.get('csp')),
      tag: tagOf(url.searchParams.get('tag')),
      gtm: url.searchParams.get('gtm') === '1',
      embed: url.searchParams.get('embed') === '1',
      wide: url.searchParams.get('wide') === '1',
      customerToken: url.searchParams.get('customer_token') ?? '',
    };
    const nonce = randomBytes(16).toString('base64');
    const headers: Record<string, string> = {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
    };
    if (options.csp) {
      headers['content-security-policy'] = [
        "default-src 'none'",
        `script-src 'nonce-${nonce}' ${serviceOrigin}`,
        options.csp === 'styles-by-origin'
          ? `style-src 'self' ${serviceOrigin}`
          : `style-src 'nonce-${nonce}'`,
        `connect-src ${serviceOrigin}`,
        "img-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
      ].join('; ');
    }
    res.writeHead(200, headers).end(pageHtml(options, serviceOrigin, tagOrigins, nonce));
  });
  const origin = await listen(server);
  return {
    origin,
    page(options) {
      const query = new URLSearchParams({ scope: options.scope });
      if (options.lang !== undefined) query.set('lang', options.lang);
      if (options.locale) query.set('locale', options.locale);
      if (options.csp) query.set('csp', options.csp === true ? '1' : options.csp);
      if (options.tag) query.set('tag', options.tag);
      if (options.gtm) query.set('gtm', '1');
      if (options.embed) query.set('embed', '1');
      if (options.wide) query.set('wide', '1');
      if (options.customerToken) query.set('customer_token', options.customerToken);
      return `${origin}/?${query}`;
    },
    tagOrigins,
    embedRequests: () => hosts.reduce((sum, host) => sum + host.embeds(), 0),
    tagRequests: () =>
      Object.fromEntries(tagNames.map((name, at) => [name, hosts[at]?.requests() ?? 0])) as Record<
        TagName,
        number
      >,
    async close() {
      await Promise.all([close(server), ...hosts.map((host) => host.close())]);
    },
  };
}
