/**
 * The crawl itself, in a real Chromium (playwright-core): the same pages in three phases, each in
 * a fresh browser context (no cookies, no storage): before any choice, after *Accept all* and
 * after *Reject all* (the banner's own buttons, clicked as a visitor would, on the first page).
 * Each page records the cookies in the jar, the storage keys of its origin, and the hosts it sent
 * requests to, with what caused each: the script whose `document.cookie` write set a cookie, the
 * response whose `Set-Cookie` did, the script or document that sent a request.
 *
 * Everything is bounded: a page by `pageTimeoutMs` (loading, settling and every look at it), the
 * whole crawl by `deadline`. A page that hangs, leaves the origin, downloads a file, is no HTML or
 * fails is reported with what happened, never thrown.
 */
import type { Browser, BrowserContext, CDPSession, Page, Request, Response } from 'playwright-core';

export type Phase = 'before-choice' | 'accept-all' | 'reject-all';
export const phases: readonly Phase[] = ['before-choice', 'accept-all', 'reject-all'];

/** How a page went in one phase. */
export type PageOutcome =
  | 'scanned'
  | 'timeout'
  | 'left-origin'
  | 'download'
  | 'not-html'
  | 'failed'
  | 'not-reached';

export interface PageReport {
  url: string;
  phase: Phase;
  outcome: PageOutcome;
  /** What went wrong, in words; absent when scanned. */
  detail?: string;
}

export interface SeenCookie {
  name: string;
  domain: string;
  path: string;
  /** Seconds since the epoch; -1 for a session cookie. */
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: string;
  page: string;
  phase: Phase;
  /** The script or response that set it, when it could be told. */
  cause: string | null;
}

export interface SeenRequest {
  host: string;
  /** The first URL of that host seen in the phase. */
  url: string;
  page: string;
  phase: Phase;
  cause: string | null;
}

export interface SeenStorage {
  area: 'local' | 'session';
  key: string;
  page: string;
  phase: Phase;
}

export interface Crawl {
  /** The pages scanned, in the order found. */
  pages: string[];
  reports: PageReport[];
  cookies: SeenCookie[];
  requests: SeenRequest[];
  storage: SeenStorage[];
  /** The phases in which the banner's button was found and clicked. */
  choices: { 'accept-all': boolean; 'reject-all': boolean };
  /** The time limit ended the crawl before every page was scanned in every phase. */
  truncated: boolean;
}

export interface CrawlOptions {
  /** Where to start; links are followed on these URLs' origins only. */
  urls: string[];
  /** The most pages scanned (in each phase). */
  pages: number;
  pageTimeoutMs: number;
  /** The crawl stops when the clock passes this (epoch ms). */
  deadline: number;
}

const binding = '__consentScannerCookie';

/** Where the banner records a choice (docs/cookies.md, "The public endpoints"). */
const choicePath = /^\/cookies\/v1\/[^/]+\/decisions$/;

/**
 * Runs in every frame before its scripts: reports each `document.cookie` write, and each address
 * a script asks for in the ways trackers send hits (an image's `src`, `sendBeacon`, `fetch`,
 * `XMLHttpRequest`), with the first script URL on its stack (an inline script's is its
 * document's). DevTools names the script that adds a `<script>`, but ties an image or a beacon
 * to the document alone. Then it does what was asked, unchanged.
 */
const hooks = `(() => {
  const report = (kind, key) => {
    try {
      const found = /(https?:\\/\\/[^\\s)]+?)(?::\\d+){1,2}\\)?$/m.exec(
        String(new Error().stack).split('\\n').slice(3).join('\\n'));
      const send = window['${binding}'];
      if (typeof send === 'function') send(kind, String(key), found ? found[1] : document.URL);
    } catch (e) {}
  };
  const absolute = (url) => { try { return new URL(String(url), document.baseURI).href; } catch (e) { return ''; } };
  const cookie = Object.getOwnPropertyDescriptor(Document.prototype, 'cookie');
  if (cookie && cookie.set && cookie.get) {
    Object.defineProperty(Document.prototype, 'cookie', {
      configurable: true,
      enumerable: cookie.enumerable,
      get() { return cookie.get.call(this); },
      set(value) {
        report('cookie', String(value).split(';')[0].split('=')[0].trim());
        cookie.set.call(this, value);
      },
    });
  }
  const src = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, 'src');
  if (src && src.set) {
    Object.defineProperty(HTMLImageElement.prototype, 'src', {
      configurable: true,
      enumerable: src.enumerable,
      get() { return src.get.call(this); },
      set(value) { report('request', absolute(value)); src.set.call(this, value); },
    });
  }
  if (navigator.sendBeacon) {
    const beacon = navigator.sendBeacon;
    navigator.sendBeacon = function (url, data) { report('request', absolute(url)); return beacon.call(this, url, data); };
  }
  if (window.fetch) {
    const fetch = window.fetch;
    window.fetch = function (input, init) {
      report('request', absolute(input && input.url ? input.url : input));
      return fetch.call(this, input, init);
    };
  }
  const open = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method, url) {
    report('request', absolute(url));
    return open.apply(this, arguments);
  };
})();`;

/** A promise given up on after `ms`: the answer, or `undefined` when it took longer. */
async function within<T>(ms: number, work: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/** A page's address as the crawl keeps it: no fragment. */
export function pageAddress(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  return parsed.href;
}

/** What sent a request, from Chromium's own account of it (DevTools' `initiator`). */
function causeOf(initiator: {
  type: string;
  url?: string;
  stack?: { callFrames: { url: string }[]; parent?: unknown };
}): string | null {
  const frame = initiator.stack?.callFrames.find((f) => /^https?:/.test(f.url));
  return frame?.url ?? initiator.url ?? null;
}

/** One phase: a fresh context over the pages, the choice made on the first when asked for. */
class PhaseRun {
  readonly cookies = new Map<string, SeenCookie>();
  readonly requests = new Map<string, SeenRequest>();
  readonly storage = new Map<string, SeenStorage>();
  readonly reports: PageReport[] = [];
  /** Who set each cookie name, first seen first. */
  private readonly setters = new Map<string, string>();
  /** The script that asked for each URL, as the page's hooks told it. */
  private readonly senders = new Map<string, string>();
  /** What sent each URL, from DevTools. */
  private readonly initiators = new Map<string, string | null>();
  /** Requests count only once the phase has begun (after the click, in a choice's phase). */
  private recording: boolean;
  private current = '';

  constructor(
    private readonly context: BrowserContext,
    readonly phase: Phase,
    private readonly origins: Set<string>,
  ) {
    this.recording = phase === 'before-choice';
    context.on('request', (request) => this.onRequest(request));
    context.on('response', (response) => void this.onResponse(response));
  }

  async prepare(): Promise<void> {
    await this.context.exposeBinding(
      binding,
      (_source, kind: unknown, key: unknown, script: unknown) => {
        if (typeof key !== 'string' || key === '' || typeof script !== 'string') return;
        const told = kind === 'cookie' ? this.setters : this.senders;
        if (!told.has(key)) told.set(key, script);
      },
    );
    await this.context.addInitScript({ content: hooks });
    // Navigations of a page's own frame stay on the scanned origins: another is refused. And the
    // banner's choices are answered here: a scan's clicks are no visitor's, and record nothing.
    await this.context.route('**/*', async (route) => {
      const request = route.request();
      if (request.method() === 'POST' && choicePath.test(new URL(request.url()).pathname)) {
        await route.fulfill({
          status: 403,
          contentType: 'application/json',
          body: '{"code":"1003","message":"A scan records no choice."}',
        });
        return;
      }
      const leaving =
        request.isNavigationRequest() &&
        request.frame().parentFrame() === null &&
        !this.origins.has(originOf(request.url()));
      if (leaving) {
        this.leftFor = request.url();
        await route.abort('blockedbyclient');
      } else await route.continue();
    });
  }

  /** The URL a page of this phase tried to leave the origin for, if any. */
  leftFor: string | undefined;

  private onRequest(request: Request): void {
    // A redirect off the origins is no request of the site's (a route never sees a redirect's
    // hop), and nothing the page it leads to does is recorded either.
    const main = request.frame().parentFrame() === null;
    if (main && request.isNavigationRequest() && !this.origins.has(originOf(request.url()))) {
      this.leftFor = request.url();
      return;
    }
    if (main && this.leftFor !== undefined) return;
    if (!this.recording) return;
    let url: URL;
    try {
      url = new URL(request.url());
    } catch {
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
    if (this.requests.has(url.host)) return;
    this.requests.set(url.host, {
      host: url.host,
      url: url.href,
      page: this.current,
      phase: this.phase,
      // Told once the phase ends (`causes`): DevTools may report it after Playwright does.
      cause: request.frame().url() || null,
    });
  }

  /**
   * Each request's cause: the script the page's hooks saw ask for it, else the one DevTools
   * names (a script that added a `<script>`, or the document of a tag), else its frame's page.
   */
  causes(): void {
    for (const request of this.requests.values()) {
      const cause = this.senders.get(request.url) ?? this.initiators.get(request.url);
      if (cause) request.cause = cause;
    }
  }

  private async onResponse(response: Response): Promise<void> {
    try {
      const values = await response.headerValues('set-cookie');
      for (const line of values.flatMap((v) => v.split('\n'))) {
        const name = line.split(';')[0]?.split('=')[0]?.trim();
        if (name && !this.setters.has(name)) this.setters.set(name, response.url());
      }
    } catch {
      // The page or context closed while the headers were read: nothing more to learn.
    }
  }

  async watch(page: Page): Promise<CDPSession | undefined> {
    try {
      const cdp = await this.context.newCDPSession(page);
      cdp.on('Network.requestWillBeSent', (event) => {
        if (!this.initiators.has(event.request.url)) {
          this.initiators.set(event.request.url, causeOf(event.initiator));
        }
      });
      await cdp.send('Network.enable');
      return cdp;
    } catch {
      return undefined;
    }
  }

  begin(): void {
    this.recording = true;
  }

  at(page: string): void {
    this.current = page;
  }

  /** What the jar and the page's storage hold now. */
  async look(page: Page, ms: number): Promise<void> {
    const jar = (await within(ms, this.context.cookies())) ?? [];
    for (const c of jar) {
      const key = `${c.name}\n${c.domain}\n${c.path}`;
      if (this.cookies.has(key)) continue;
      this.cookies.set(key, {
        name: c.name,
        domain: c.domain,
        path: c.path,
        expires: c.expires,
        httpOnly: c.httpOnly,
        secure: c.secure,
        sameSite: c.sameSite,
        page: this.current,
        phase: this.phase,
        cause: this.setters.get(c.name) ?? null,
      });
    }
    const keys = await within(
      ms,
      page
        .evaluate<{ local: string[]; session: string[] }>(
          '({ local: Object.keys(localStorage), session: Object.keys(sessionStorage) })',
        )
        .catch(() => undefined),
    );
    for (const area of ['local', 'session'] as const) {
      for (const key of keys?.[area] ?? []) {
        const id = `${area}\n${key}`;
        if (!this.storage.has(id)) {
          this.storage.set(id, { area, key, page: this.current, phase: this.phase });
        }
      }
    }
  }
}

/** The same-origin links of a page, as the crawl keeps addresses. */
async function linksOf(page: Page, origins: Set<string>, ms: number): Promise<string[]> {
  const hrefs =
    (await within(
      ms,
      page
        .evaluate<string[]>(
          "Array.from(document.querySelectorAll('a[href]'), (a) => String(a.href))",
        )
        .catch(() => [] as string[]),
    )) ?? [];
  return hrefs.filter((href) => origins.has(originOf(href))).map(pageAddress);
}

/** How a failed navigation is reported. */
function outcomeOf(error: unknown, run: PhaseRun): { outcome: PageOutcome; detail: string } {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  if (run.leftFor !== undefined) {
    return { outcome: 'left-origin', detail: `it went to ${run.leftFor}, off the scanned origins` };
  }
  if (/Download is starting/i.test(message)) {
    return { outcome: 'download', detail: 'the address answers a file to download' };
  }
  if (/Timeout/i.test(message)) return { outcome: 'timeout', detail: 'it did not load in time' };
  return { outcome: 'failed', detail: message || 'it did not load' };
}

/**
 * Visits one page in a phase: loads it, lets it settle, makes the phase's choice when asked to,
 * and looks at what it left. Answers the page's outcome; never throws.
 */
async function visit(
  run: PhaseRun,
  context: BrowserContext,
  url: string,
  budget: number,
  choose: 'accept-all' | 'reject-all' | undefined,
): Promise<{ report: PageReport; page: Page | undefined; chosen: boolean }> {
  const end = Date.now() + budget;
  const left = () => Math.max(0, end - Date.now());
  run.at(url);
  run.leftFor = undefined;
  const page = await within(left(), context.newPage());
  if (!page) return { report: { url, phase: run.phase, outcome: 'timeout' }, page, chosen: false };
  const cdp = await run.watch(page);
  let chosen = false;
  try {
    const response = await page.goto(url, { waitUntil: 'load', timeout: Math.max(1, left()) });
    if (run.leftFor !== undefined) {
      return { report: { url, phase: run.phase, ...outcomeOf(undefined, run) }, page, chosen };
    }
    const type =
      (response ? await within(left(), response.headerValue('content-type')) : null) ?? '';
    if (type && !/html/i.test(type)) {
      return {
        report: { url, phase: run.phase, outcome: 'not-html', detail: `it is ${type}` },
        page,
        chosen,
      };
    }
    // Trackers fire on load and shortly after: wait for the network to rest, within the budget.
    await page
      .waitForLoadState('networkidle', { timeout: Math.min(3_000, left()) })
      .catch(() => {});
    if (choose) {
      const button = page.locator(`[data-consentrix-action="${choose}"]`).first();
      const shown = await button
        .waitFor({ state: 'visible', timeout: Math.min(5_000, left()) })
        .then(() => true)
        .catch(() => false);
      if (shown) {
        run.begin();
        chosen = await button
          .click({ timeout: Math.max(1, left()) })
          .then(() => true)
          .catch(() => false);
        await page
          .waitForLoadState('networkidle', { timeout: Math.min(3_000, left()) })
          .catch(() => {});
      }
    }
    await run.look(page, left());
    return { report: { url, phase: run.phase, outcome: 'scanned' }, page, chosen };
  } catch (error) {
    // What a page that failed did is still looked at (a timed-out page may have set cookies),
    // unless it was another site's.
    if (run.leftFor === undefined) await run.look(page, Math.min(2_000, left()));
    return { report: { url, phase: run.phase, ...outcomeOf(error, run) }, page, chosen };
  } finally {
    await within(1_000, cdp?.detach().catch(() => {}) ?? Promise.resolve());
  }
}

/** Closes a page, however stuck it is (a page busy in a loop may never answer a plain close). */
async function drop(page: Page | undefined): Promise<void> {
  if (page)
    await within(
      2_000,
      page.close({ runBeforeUnload: false }).catch(() => {}),
    );
}

/**
 * Crawls the pages in the three phases in `browser`. The first phase finds the pages (following
 * same-origin links, breadth first, up to `pages`); the two others visit those it scanned.
 */
export async function crawl(browser: Browser, options: CrawlOptions): Promise<Crawl> {
  const origins = new Set(options.urls.map(originOf));
  const result: Crawl = {
    pages: [],
    reports: [],
    cookies: [],
    requests: [],
    storage: [],
    choices: { 'accept-all': false, 'reject-all': false },
    truncated: false,
  };
  const budget = () => Math.min(options.pageTimeoutMs, options.deadline - Date.now());
  for (const phase of phases) {
    const queue = phase === 'before-choice' ? options.urls.map(pageAddress) : [...result.pages];
    const seen = new Set(queue);
    const context = await browser.newContext({ acceptDownloads: false, serviceWorkers: 'block' });
    const run = new PhaseRun(context, phase, origins);
    try {
      await run.prepare();
      let first = true;
      let visited = 0;
      while (queue.length > 0) {
        const url = queue.shift() as string;
        // The page limit counts every page tried, so a site of broken links ends too.
        if (phase === 'before-choice' && visited >= options.pages) break;
        visited += 1;
        if (budget() <= 0) {
          result.truncated = true;
          result.reports.push({
            url,
            phase,
            outcome: 'not-reached',
            detail: 'the scan reached its time limit',
          });
          continue;
        }
        const choose = phase === 'before-choice' || !first ? undefined : phase;
        const { report, page, chosen } = await visit(run, context, url, budget(), choose);
        if (choose) {
          result.choices[choose] = chosen;
          // Without the banner there is no choice to make: the phase has nothing to say.
          if (!chosen) {
            await drop(page);
            result.reports.push({
              ...report,
              detail: 'the banner was not found on the page, so no choice was made',
            });
            break;
          }
        }
        first = false;
        result.reports.push(report);
        if (phase === 'before-choice' && report.outcome === 'scanned') {
          result.pages.push(url);
          if (page) {
            for (const link of await linksOf(page, origins, budget())) {
              if (!seen.has(link)) {
                seen.add(link);
                queue.push(link);
              }
            }
          }
        }
        await drop(page);
      }
    } finally {
      await within(
        5_000,
        context.close().catch(() => {}),
      );
    }
    run.causes();
    result.cookies.push(...run.cookies.values());
    result.requests.push(...run.requests.values());
    result.storage.push(...run.storage.values());
  }
  return result;
}
