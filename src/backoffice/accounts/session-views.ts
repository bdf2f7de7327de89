import type { OpenSession } from '../../accounts/index.js';
import { time } from '../web/format.js';
import { csrfField } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';

const methods: Record<string, string> = {
  password: 'Password',
  passkey: 'Passkey',
  sso: 'Single sign-on',
};

const systems: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bAndroid\b/, 'Android'],
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

/** A browser as its user agent names it, short: what a person recognises in a list. */
export function deviceOf(userAgent: string | null): string {
  if (!userAgent) return 'Unknown device';
  const browser =
    /\b(Edg|OPR|Firefox|Chrome|Safari)\/[\d.]+/.exec(userAgent)?.[1]?.replace('Edg', 'Edge') ??
    'A browser';
  // The most telling first: a phone's agent names Linux too, an iPhone's Mac OS X.
  const system = systems.find(([pattern]) => pattern.test(userAgent))?.[1];
  return `${browser === 'OPR' ? 'Opera' : browser}${system ? ` on ${system}` : ''}`;
}

/** One table of sessions; `end` gives a session's "Sign out" form, when the viewer may end it. */
export function sessionTable(o: {
  sessions: readonly OpenSession[];
  zone: string;
  current?: string | undefined;
  end?: ((session: OpenSession) => Html) | undefined;
  caption: string;
}): Html {
  if (o.sessions.length === 0) return html`<p>No session is open.</p>`;
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="${o.caption}"><table>
<caption class="visually-hidden">${o.caption}</caption>
<thead><tr><th scope="col">Device</th><th scope="col">Address</th><th scope="col">Signed in with</th><th scope="col">Started</th><th scope="col">Last seen</th>${o.end ? html`<th scope="col"><span class="visually-hidden">Action</span></th>` : ''}</tr></thead>
<tbody>
${o.sessions.map(
  (s) => html`<tr>
<td>${deviceOf(s.userAgent)}${s.id === o.current ? html` <strong>(this browser)</strong>` : ''}<br><small class="wrap">${s.userAgent ?? ''}</small></td>
<td class="mono">${s.ip}</td>
<td>${s.method ? (methods[s.method] ?? s.method) : html`<span class="muted">—</span>`}</td>
<td>${time(s.startedAt, o.zone)}</td>
<td>${time(s.lastSeenAt, o.zone)}</td>
${o.end ? html`<td>${s.id === o.current ? '' : o.end(s)}</td>` : ''}
</tr>`,
)}
</tbody></table></div>`;
}

/** The signed-in person's own sessions, each other one with "Sign out". */
export function ownSessionsPage(o: {
  csrfToken: string;
  sessions: readonly OpenSession[];
  current: string;
  zone: string;
}): Html {
  return html`<h1>Sessions</h1>
<p>Where you are signed in now. Sign out of a browser you no longer use or do not know; this one signs out from the <em>Account</em> menu.</p>
${sessionTable({
  ...o,
  caption: 'Your open sessions, the most recently seen first',
  end: (s) => html`<form method="post" action="${basePath}/account/sessions/end">
${csrfField(o.csrfToken)}<input type="hidden" name="session" value="${s.id}">
<button type="submit" class="secondary">Sign out<span class="visually-hidden"> of ${deviceOf(s.userAgent)} at ${s.ip}</span></button>
</form>`,
})}`;
}
