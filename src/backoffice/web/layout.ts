import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BackofficeUser } from '../../accounts/index.js';
import { allows, type RouteAccess } from './context.js';
import { queryOf } from './forms.js';
import { type Html, html } from './html.js';

export type Section =
  | 'dashboard'
  | 'templates'
  | 'products'
  | 'partners'
  | 'decisions'
  | 'cookies'
  | 'customers'
  | 'requests'
  | 'channels'
  | 'exports'
  | 'api-keys'
  | 'webhooks'
  | 'log'
  | 'audit'
  | 'users'
  | 'roles'
  | 'settings'
  | 'preference-centre'
  | 'processing-record'
  | 'tenants'
  | 'operators'
  | 'account';

export interface PageOptions {
  title: string;
  body: Html;
  /** The signed-in user, for the navigation; none on the sign-in page and for visitors. */
  user?: BackofficeUser | null;
  /** A token for the sign-out form (needed when `user` is given). */
  csrfToken?: string;
  section?: Section;
  /**
   * A short confirmation shown above the page ("Template created."), after the redirect of a
   * form: it takes the focus (`autofocus`, no script needed), so that a keyboard or screen
   * reader user starts from what just happened.
   */
  notice?: string | undefined;
}

export const basePath = '/backoffice';

/**
 * htmx within the Content-Security-Policy: no indicator `<style>` injected, no `eval`, no script
 * from a swapped fragment, and requests to this site only.
 */
const htmxConfig = JSON.stringify({
  includeIndicatorStyles: false,
  allowEval: false,
  allowScriptTags: false,
  selfRequestsOnly: true,
  historyCacheSize: 0,
  // htmx's own, but a 401 is swapped too: it says the session ended (its target keeps the rest).
  responseHandling: [
    { code: '204', swap: false },
    { code: '[23]..', swap: true },
    { code: '401', swap: true, error: false },
    { code: '[45]..', swap: false, error: true },
  ],
});

/** The whole HTML document around a page's body. */
export function layout(options: PageOptions): string {
  const { user } = options;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${options.title} · Consent back-office</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${basePath}/assets/pico.min.css">
<link rel="stylesheet" href="${basePath}/assets/app.css">
<meta name="htmx-config" content="${htmxConfig}">
<script src="${basePath}/assets/htmx.min.js" defer></script>
<script src="${basePath}/assets/webauthn.min.js" defer></script>
<script src="${basePath}/assets/app.js" defer></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="container">
${user ? navigation(user, options.section, options.csrfToken ?? '') : html`<nav aria-label="Site"><ul><li><strong>Consent back-office</strong></li></ul></nav>`}
</header>
<main class="container" id="main" tabindex="-1">
${options.notice ? html`<p class="notice" role="status" id="notice" tabindex="-1" autofocus>${options.notice}</p>` : ''}
${options.body}
</main>
</body>
</html>
`.text;
}

/** The sections of a tenant's navigation, each shown to those who may open it. */
const tenantSections: ReadonlyArray<[string, string, Section, RouteAccess]> = [
  ['/dashboard', 'Dashboard', 'dashboard', 'member'],
  ['/products', 'Products', 'products', 'templates:view'],
  ['/templates', 'Templates', 'templates', 'templates:view'],
  ['/partners', 'Partners', 'partners', 'partners:view'],
  ['/customers', 'Customers', 'customers', 'customers:view'],
  ['/requests', 'Requests', 'requests', 'requests:view'],
  ['/channels', 'Channels', 'channels', 'block_channels:view'],
  ['/decisions', 'Decisions', 'decisions', 'customers:view'],
  ['/cookies', 'Cookies', 'cookies', 'cookies:view'],
  ['/exports', 'Exports', 'exports', 'exports:export'],
];

const administration: ReadonlyArray<[string, string, Section, RouteAccess]> = [
  ['/users', 'Users', 'users', 'users:view'],
  ['/roles', 'Roles', 'roles', 'roles:view'],
  ['/settings', 'Settings', 'settings', 'settings:view'],
  ['/preference-centre', 'Preference centre', 'preference-centre', 'settings:view'],
  ['/processing-record', 'Record of processing', 'processing-record', 'settings:view'],
  ['/api-keys', 'API Key Management', 'api-keys', 'api_keys:view'],
  ['/webhooks', 'Webhooks', 'webhooks', 'webhooks:view'],
  ['/log', 'Decision log', 'log', 'decision_log:view'],
  ['/audit', 'Audit log', 'audit', 'audit_log:view'],
];

function navigation(user: BackofficeUser, section: Section | undefined, csrfToken: string): Html {
  const link = (href: string, label: string, name: Section) =>
    html`<li><a href="${basePath}${href}"${section === name ? html` aria-current="page"` : ''}>${label}</a></li>`;
  const mayOpen = ([, , , access]: readonly [string, string, Section, RouteAccess]) =>
    allows(user, access);
  const admin = administration.filter(mayOpen);
  const links =
    user.kind === 'tenant'
      ? html`${tenantSections.filter(mayOpen).map(([href, label, name]) => link(href, label, name))}
${
  admin.length === 0
    ? ''
    : html`<li><details class="dropdown">
<summary${admin.some(([, , name]) => name === section) ? html` aria-current="page"` : ''}>Administration</summary>
<ul dir="rtl">
${admin.map(([href, label]) => html`<li><a href="${basePath}${href}">${label}</a></li>`)}
</ul>
</details></li>`
}`
      : html`${link('/operator/tenants', 'Tenants', 'tenants')}
${link('/operator/operators', 'Operators', 'operators')}
${link('/operator/audit', 'Audit log', 'audit')}`;
  return html`<nav aria-label="Main">
<ul><li><a class="brand" href="${basePath}/">Consent back-office</a>${user.kind === 'tenant' ? html` <span class="who">${user.tenantAlias}</span>` : html` <span class="who">operator</span>`}</li></ul>
<ul class="links">
${links}
<li><details class="dropdown">
<summary>Account</summary>
<ul dir="rtl">
<li><span class="signed-in-as">${user.name ? html`${user.name}<br>` : ''}${user.email}</span></li>
<li><a href="${basePath}/account/password">Change password</a></li>
<li><a href="${basePath}/account/two-factor">Two-factor sign-in</a></li>
<li><a href="${basePath}/account/passkeys">Passkeys</a></li>
<li><a href="${basePath}/account/sessions">Sessions</a></li>
<li><form method="post" action="${basePath}/sign-out" class="sign-out"><input type="hidden" name="_csrf" value="${csrfToken}"><button type="submit" class="secondary">Sign out</button></form></li>
</ul>
</details></li>
</ul>
</nav>`;
}

/** Sends a whole page as `text/html`. */
export function sendPage(
  reply: FastifyReply,
  options: PageOptions & { status?: number },
): FastifyReply {
  return reply
    .code(options.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(layout(options));
}

/**
 * The page sender of one section: the signed-in user's navigation, the form token, and the
 * short confirmation given, or else the one `?notice=` names among the section's own.
 */
export function sectionPage(section: Section, notices: Record<string, string> = {}) {
  return (
    request: FastifyRequest,
    reply: FastifyReply,
    title: string,
    body: Html,
    status = 200,
    notice: string | undefined = undefined,
  ) =>
    sendPage(reply, {
      status,
      title,
      body,
      user: request.backofficeUser,
      csrfToken: csrfToken(reply),
      section,
      notice: notice ?? notices[queryOf(request.query, 'notice')],
    });
}

/** A 303 to a back-office path (after a form, the browser GETs the result). */
export function redirectTo(reply: FastifyReply, path: string): FastifyReply {
  return reply.redirect(`${basePath}${path}`, 303);
}

/** One token per request for every form on the page (sign-out included). */
const tokens = new WeakMap<FastifyRequest, string>();

export function csrfToken(reply: FastifyReply): string {
  let token = tokens.get(reply.request);
  if (token === undefined) {
    token = reply.generateCsrf();
    tokens.set(reply.request, token);
  }
  return token;
}
