import { type Html, html } from '../platform/html.js';
import { type PageFrame, page } from './views.js';
import { words } from './words.js';

/** A text field with its label, and its error tied to it when there is one. */
function field(o: {
  name: string;
  label: string;
  type: 'email' | 'text';
  value: string;
  error: string | undefined;
  extra: Html;
}): Html {
  return html`<label for="${o.name}">${o.label}</label>
${o.error ? html`<span class="field-error" id="${o.name}-error">${o.error}</span>` : ''}
<input type="${o.type}" id="${o.name}" name="${o.name}" value="${o.value}" required${o.error ? html` aria-invalid="true" aria-describedby="${o.name}-error" autofocus` : ''} ${o.extra}>`;
}

/** The first step of an e-mail sign-in: the address a code goes to. */
export function signInPage(view: {
  frame: PageFrame;
  base: string;
  formToken: string;
  address: string;
  error: boolean;
}): string {
  const w = words[view.frame.locale];
  const body = html`<h1>${w.signInTitle}</h1>
<p>${w.signInIntro}</p>
<form method="post" action="${view.base}/sign-in">
<input type="hidden" name="_csrf" value="${view.formToken}">
${field({
  name: 'email',
  label: w.emailLabel,
  type: 'email',
  value: view.address,
  error: view.error ? w.notAnAddress : undefined,
  extra: html`autocomplete="email" maxlength="254" spellcheck="false"`,
})}
<div class="actions"><button type="submit">${w.sendCode}</button></div>
</form>`;
  return page(view.frame, w.signInTitle, body);
}

/**
 * The second step: the same for any address (known or not), with the code's id and the address
 * carried by the form, and what went wrong with the last code given, if anything.
 */
export function codePage(view: {
  frame: PageFrame;
  base: string;
  formToken: string;
  codeId: string;
  address: string;
  error: 'notACode' | 'wrongCode' | undefined;
}): string {
  const w = words[view.frame.locale];
  const body = html`<h1>${w.codeTitle}</h1>
<p class="notice" role="status">${w.codeSent}</p>
<form method="post" action="${view.base}/code">
<input type="hidden" name="_csrf" value="${view.formToken}">
<input type="hidden" name="code_id" value="${view.codeId}">
<input type="hidden" name="email" value="${view.address}">
${field({
  name: 'code',
  label: w.codeLabel,
  type: 'text',
  value: '',
  error: view.error ? w[view.error] : undefined,
  extra: html`inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6"`,
})}
<div class="actions"><button type="submit">${w.signIn}</button>
<a class="button secondary" href="${view.base}/sign-in">${w.askNewCode}</a></div>
</form>`;
  return page(view.frame, w.codeTitle, body);
}

/** A refusal of the sign-in (a dead code, too many codes) and the way to start again. */
export function signInRefusalPage(frame: PageFrame, base: string, title: string, text: string) {
  const w = words[frame.locale];
  return page(
    frame,
    title,
    html`<h1>${title}</h1><p>${text}</p>
<p><a class="button" href="${base}/sign-in">${w.askNewCode}</a></p>`,
  );
}
