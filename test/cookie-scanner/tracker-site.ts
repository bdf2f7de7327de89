/**
 * A marketing site with the trackers real sites carry, for the cookie scanner's tests, all on
 * loopback: one server answers both the site (`http://127.0.0.1:PORT`) and the trackers' hosts
 * (`www.googletagmanager.com`, `www.google-analytics.com`, `connect.facebook.net`,
 * `www.facebook.com`, `static.hotjar.com`, `www.youtube.com`), told apart by `Host`. The scan's
 * Chromium reaches those names through `hostRules` (its `--host-resolver-rules`, the service's
 * `COOKIE_SCAN_HOST_RULES`), which sends every other name nowhere: nothing leaves the machine.
 *
 * The tags have the shapes sites paste: gtag.js (sets `_ga`, `_ga_<id>` and sends a hit), Google
 * Tag Manager's container snippet, Meta Pixel's snippet (loads fbevents.js, which sets `_fbp` and
 * sends `/tr`), Hotjar's snippet (sets `_hjSessionUser_<id>` and a local storage key), a YouTube
 * embed, and an inline script that sets a cookie of the site's own. Each is held for its category
 * with the banner's `type="text/plain"`, unless the page's `leak` names it: then it runs at once,
 * as a tag someone forgot to mark does.
 *
 * Pages: `/` (links to the others), `/about`, `/video`; and the misbehaving ones a crawl must
 * survive, linked from the pages only while `misbehave` is on: `/away` (redirects to another
 * origin), `/loop` (redirects to itself), `/file` (a download), `/huge` (a page that never ends
 * loading); and `/hang`, never linked (a scan is sent to it), which never answers.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { scriptTag } from '../../src/cookies/systems.js';

export const trackerHosts = [
  'www.googletagmanager.com',
  'www.google-analytics.com',
  'connect.facebook.net',
  'www.facebook.com',
  'static.hotjar.com',
  'www.youtube.com',
] as const;

/** The tags a page may leak (run before consent): gtag.js, or Meta Pixel. */
export type Leak = 'gtag' | 'pixel';

export interface TrackerSite {
  origin: string;
  /** Chromium's host rules that send the trackers' names here, and every other name nowhere. */
  hostRules: string;
  /** The system whose banner the pages embed, from now on. */
  embed(scope: string): void;
  /** Sets which tags the pages run before consent from now on (none: every tag held). */
  leak(tags: Leak[]): void;
  /** Answers the `/hang` requests held so far, and every later one at once. */
  release(): void;
  /** Adds the misbehaving pages' links to the home page from now on. */
  misbehave(on: boolean): void;
  close(): Promise<void>;
}

const gtagJs = `(function () {
  var id = 'G-FIXTURE1';
  var year = 2 * 365 * 24 * 3600;
  document.cookie = '_ga=GA1.1.1234567890.1700000000; path=/; max-age=' + year;
  document.cookie = '_ga_FIXTURE1=GS1.1.1700000000.1.0.1700000000.0.0.0; path=/; max-age=' + year;
  new Image().src = 'http://www.google-analytics.com/g/collect?v=2&tid=' + id + '&en=page_view';
})();`;

const fbeventsJs = `(function () {
  document.cookie = '_fbp=fb.1.1700000000000.1234567890; path=/; max-age=7776000';
  new Image().src = 'http://www.facebook.com/tr?id=1234567890&ev=PageView&noscript=1';
})();`;

const hotjarJs = `(function () {
  document.cookie = '_hjSessionUser_3412345=eyJpZCI6IjEifQ; path=/; max-age=31536000';
  try { localStorage.setItem('_hjSessionStorageTest', '1'); } catch (e) {}
})();`;

/** The tags as sites paste them, each with its `<script>` attributes (`''` runs it at once). */
function tags(held: (tag: Leak | 'hotjar' | 'gtm') => string): string {
  return `
<!-- Google Tag Manager -->
<script>(function(w,d,s,l,i){w[l]=w[l]||[];w[l].push({'gtm.start':
new Date().getTime(),event:'gtm.js'});var f=d.getElementsByTagName(s)[0],
j=d.createElement(s),dl=l!='dataLayer'?'&l='+l:'';j.async=true;j.src=
'http://www.googletagmanager.com/gtm.js?id='+i+dl;f.parentNode.insertBefore(j,f);
})(window,document,'script','dataLayer','GTM-FIXTURE');</script>
<!-- Google tag (gtag.js) -->
<script async${held('gtag')} src="http://www.googletagmanager.com/gtag/js?id=G-FIXTURE1"></script>
<script>window.dataLayer = window.dataLayer || []; function gtag(){dataLayer.push(arguments);}
gtag('js', new Date()); gtag('config', 'G-FIXTURE1');</script>
<!-- Meta Pixel Code -->
<script${held('pixel')}>!function(f,b,e,v,n,t,s){if(f.fbq)return;n=f.fbq=function(){n.callMethod?
n.callMethod.apply(n,arguments):n.queue.push(arguments)};if(!f._fbq)f._fbq=n;n.push=n;n.loaded=!0;
n.version='2.0';n.queue=[];t=b.createElement(e);t.async=!0;t.src=v;s=b.getElementsByTagName(e)[0];
s.parentNode.insertBefore(t,s)}(window,document,'script','http://connect.facebook.net/en_US/fbevents.js');
fbq('init', '1234567890'); fbq('track', 'PageView');</script>
<!-- Hotjar Tracking Code -->
<script${held('hotjar')}>(function(h,o,t,j,a,r){h.hj=h.hj||function(){(h.hj.q=h.hj.q||[]).push(arguments)};
h._hjSettings={hjid:3412345,hjsv:6};a=o.getElementsByTagName('head')[0];r=o.createElement('script');
r.async=1;r.src=t+h._hjSettings.hjid+j+h._hjSettings.hjsv;a.appendChild(r);
})(window,document,'http://static.hotjar.com/c/hotjar-','.js?sv=');</script>
<script>document.cookie = 'site_lang=en; path=/; max-age=31536000';</script>`;
}

const heldFor: Record<Leak | 'hotjar' | 'gtm', string> = {
  gtag: 'analytics',
  pixel: 'marketing',
  hotjar: 'analytics',
  gtm: '',
};

function page(
  title: string,
  body: string,
  serviceOrigin: string,
  scope: string,
  leaks: Set<Leak>,
): string {
  const held = (tag: Leak | 'hotjar' | 'gtm') =>
    leaks.has(tag as Leak) || heldFor[tag] === ''
      ? ''
      : ` type="text/plain" data-consentrix-category="${heldFor[tag]}"`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
${scriptTag(serviceOrigin, scope)}
${tags(held)}
</head>
<body>
<h1>${title}</h1>
${body}
</body>
</html>`;
}

export async function startTrackerSite(serviceOrigin: string): Promise<TrackerSite> {
  let scope = '';
  const held: (() => void)[] = [];
  let released = false;
  let leaks = new Set<Leak>();
  let misbehaving = false;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const path = (req.url ?? '/').split('?')[0];
    const send = (type: string, body: string, headers: Record<string, string> = {}) =>
      res
        .writeHead(200, { 'content-type': type, 'cache-control': 'no-store', ...headers })
        .end(body);
    const js = (body: string) => send('text/javascript; charset=utf-8', body);
    const pixel = () => send('image/gif', 'GIF89a');
    if (host === 'www.googletagmanager.com') {
      if (path === '/gtag/js') return js(gtagJs);
      return js("window.dataLayer = window.dataLayer || []; window.__gtm = 'GTM-FIXTURE';");
    }
    if (host === 'connect.facebook.net') return js(fbeventsJs);
    if (host === 'static.hotjar.com') return js(hotjarJs);
    if (host === 'www.google-analytics.com' || host === 'www.facebook.com') return pixel();
    if (host === 'www.youtube.com') {
      return send('text/html; charset=utf-8', '<!doctype html><title>Video</title><p>A video.</p>');
    }
    const html = (title: string, body: string) =>
      send('text/html; charset=utf-8', page(title, body, serviceOrigin, scope, leaks));
    const links = `<nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/video#top">Our video</a>${
      misbehaving
        ? ' <a href="/away">Partner</a> <a href="/loop">Loop</a> <a href="/file">Price list</a> <a href="/huge">Archive</a>'
        : ''
    } <a href="http://elsewhere.example/">Elsewhere</a> <a href="mailto:shop@example.com">Mail us</a></nav>`;
    switch (path) {
      case '/':
        return html('Fixture tea shop', `${links}<p>Tea, cups and kettles.</p>`);
      case '/about':
        return html('About the shop', `${links}<p>Since 1999.</p>`);
      case '/video':
        return html(
          'Our video',
          `${links}<iframe data-consentrix-category="marketing" data-src="http://www.youtube.com/embed/FIXTURE" width="560" height="315" title="Our tea video"></iframe>`,
        );
      case '/hang':
        // Held until the test lets it go (`release`), or the scan gives up on it.
        if (released) return send('text/html; charset=utf-8', '<!doctype html><title>Late</title>');
        held.push(() => send('text/html; charset=utf-8', '<!doctype html><title>Late</title>'));
        return;
      case '/away':
        return res.writeHead(302, { location: 'http://www.google-analytics.com/away' }).end();
      case '/loop':
        return res.writeHead(302, { location: '/loop' }).end();
      case '/file':
        return send('application/octet-stream', 'a,b\n1,2\n', {
          'content-disposition': 'attachment; filename="prices.csv"',
        });
      case '/huge': {
        // Sent slowly and without end: a page too big to load within a page's time.
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.write('<!doctype html><title>Archive</title>');
        const timer = setInterval(() => res.write(`<p>${'x'.repeat(64 * 1024)}</p>`), 50);
        res.on('close', () => clearInterval(timer));
        return;
      }
      default:
        return res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  const hostRules = [
    ...trackerHosts.map((host) => `MAP ${host} 127.0.0.1:${port}`),
    'MAP * ~NOTFOUND',
    'EXCLUDE 127.0.0.1',
  ].join(', ');
  return {
    origin,
    hostRules,
    release() {
      released = true;
      for (const answer of held.splice(0)) answer();
    },
    embed(value) {
      scope = value;
    },
    leak(tags) {
      leaks = new Set(tags);
    },
    misbehave(on) {
      misbehaving = on;
    },
    async close() {
      held.splice(0);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
