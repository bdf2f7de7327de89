/**
 * The banner's dialog: its first layer (title, body, policy link, Accept all / Reject all /
 * Preferences) and its preferences panel (a switch per category, Save, Close), in an open shadow
 * root on a host appended to <body>. Tenant texts are never HTML: they go in as text only.
 */
import type { BannerTexts } from '../banner-config.js';
import { config, textsIn, wordsOf } from './config.js';
import { themedShadow } from './styles.js';
import { followVisualViewport } from './viewport.js';

export interface DialogContext {
  /** The language shown; the visitor may switch it (the choice records the one they read). */
  locale: string;
  /** The visitor sends Global Privacy Control: the first layer says what that changes. */
  gpc: boolean;
  /** The nonce of the banner's own script tag, for its <style> where there are no constructed stylesheets. */
  nonce: string;
  /** What the switches show when the panel opens: the current choice, or none yet. */
  current(): Record<string, boolean> | undefined;
  /** A button's `data-consentrix-action`, and Escape as `close`. */
  act(action: string): void;
}

/**
 * The categories Global Privacy Control starts off (main.ts): marketing and personalization,
 * and the tenant's own that map onto them.
 */
export function gpcOff(key: string): boolean {
  const category = config.categories.find((c) => c.key === key);
  return /^(marketing|personalization)$/.test(category?.maps_to ?? key);
}

let context: DialogContext;
let root: ShadowRoot | undefined;
let dialog: HTMLElement | undefined;
let panelShown = false;
/** Where the focus was when the dialog opened, to give it back when it closes. */
let before: Element | null = null;
/** The settings button (`layout.settings_button`), while it is shown. */
let settings: HTMLButtonElement | undefined;

interface DeclaredCookie {
  name: string;
  provider: string | null;
  retention: string | null;
  purpose: Record<string, string>;
}
/** The declaration's cookies by category, once fetched (`declaration_url`). */
let declared: Record<string, DeclaredCookie[]> | undefined;
let declarationAsked = false;

/**
 * Fetches the cookie declaration once, when the preferences first open (the banner script carries
 * none of it), and shows it in them when it comes. Without it, the panel lists no cookies.
 */
function loadDeclaration(): void {
  if (declarationAsked || !config.declaration_url) return;
  declarationAsked = true;
  fetch(config.declaration_url, { credentials: 'omit' })
    .then((response) => (response.ok ? response.json() : undefined))
    .then((body: { categories?: { key: string; cookies: DeclaredCookie[] }[] } | undefined) => {
      if (!Array.isArray(body?.categories)) return;
      declared = {};
      for (const c of body.categories) declared[c.key] = c.cookies;
      if (panelShown) redraw();
    })
    .catch(() => undefined);
}

/** A category's declared cookies, under a disclosure, in the dialog's language. */
function cookieList(key: string, t: BannerTexts): HTMLElement | undefined {
  const cookies = declared?.[key] ?? [];
  if (!t.declaration || cookies.length === 0) return undefined;
  const list = element('details');
  list.append(element('summary', {}, `${t.declaration} (${cookies.length})`));
  const items = element('ul');
  for (const cookie of cookies) {
    const item = element('li');
    item.append(element('code', {}, cookie.name));
    const about = [cookie.provider, cookie.retention].filter(Boolean).join(' · ');
    if (about) item.append(` ${about}`);
    const purpose = cookie.purpose[context.locale] ?? cookie.purpose[config.default_locale];
    if (purpose) item.append(element('br'), purpose);
    items.append(item);
  }
  list.append(items);
  return list;
}

export function setUpDialog(dialogContext: DialogContext): void {
  context = dialogContext;
}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const made = document.createElement(tag);
  for (const name in attributes) made.setAttribute(name, attributes[name] ?? '');
  if (text !== undefined) made.textContent = text;
  return made;
}

function button(action: string, text: string, look = ''): HTMLButtonElement {
  return element('button', { type: 'button', class: look, 'data-consentrix-action': action }, text);
}

function row(...children: Node[]): HTMLElement {
  const made = element('div', { class: 'row' });
  made.append(...children);
  return made;
}

function mount(): ShadowRoot {
  const host = element('div', { 'data-consentrix': '' });
  const shadow = themedShadow(host, context.nonce);
  shadow.addEventListener('click', (event) => {
    const target = event.target as Element;
    const locale = target
      .closest('[data-consentrix-locale]')
      ?.getAttribute('data-consentrix-locale');
    if (locale) {
      switchLocale(locale);
      return;
    }
    const action = target
      .closest('[data-consentrix-action]')
      ?.getAttribute('data-consentrix-action');
    if (action) context.act(action);
  });
  document.addEventListener('keydown', onKey);
  document.body.append(host);
  followVisualViewport(host);
  return shadow;
}

/**
 * A centred box covers the page and is modal; a bar or a box in a corner leaves the page usable
 * around it, and is not: a keyboard or screen-reader user can reach the page before choosing.
 */
function isModal(): boolean {
  const { kind, position } = config.layout;
  return kind === 'box' && position === 'center';
}

/** Escape leaves the panel; in a modal dialog, Tab and Shift+Tab go round its controls. */
function onKey(event: KeyboardEvent): void {
  if (!dialog || !root) return;
  if (event.key === 'Escape' && panelShown) {
    event.preventDefault();
    context.act('close');
    return;
  }
  if (event.key !== 'Tab' || !isModal()) return;
  const controls = Array.from(
    dialog.querySelectorAll<HTMLElement>('a[href],button,input:not([disabled])'),
  );
  const active = root.activeElement;
  const first = controls[0];
  const last = controls[controls.length - 1];
  const leaving = event.shiftKey
    ? !active || active === first || active === dialog
    : !active || active === last;
  if (leaving) {
    event.preventDefault();
    (event.shiftKey ? last : first)?.focus();
  }
}

function texts(): BannerTexts {
  return textsIn(context.locale);
}

/** A language's name in that language (`ไทย`, `English`), for a visitor who reads only it. */
function ownName(locale: string): string {
  try {
    const name = new Intl.DisplayNames([locale], { type: 'language' }).of(locale) ?? locale;
    return name.charAt(0).toLocaleUpperCase(locale) + name.slice(1);
  } catch {
    return locale;
  }
}

/**
 * With texts in more than one language, a button per language, named in that language, so a
 * visitor whose page or browser picked the wrong one can switch: the choice then records the
 * language they read it in.
 */
function languages(): Node[] {
  const locales = Object.keys(config.texts);
  if (locales.length < 2) return [];
  const row = element('div', { class: 'langs' });
  for (const locale of locales) {
    const pick = element(
      'button',
      {
        type: 'button',
        class: 'alt',
        lang: locale,
        'data-consentrix-locale': locale,
        'aria-pressed': String(locale === context.locale),
      },
      ownName(locale),
    );
    row.append(pick);
  }
  return [row];
}

function firstLayer(t: BannerTexts): Node[] {
  const nodes: Node[] = [...languages(), element('h2', { id: 'cx-title' }, t.title)];
  nodes.push(element('p', { id: 'cx-body' }, t.body));
  // The note says what GPC turns off: nothing, on a banner without those categories.
  if (context.gpc && config.categories.some((c) => gpcOff(c.key))) {
    nodes.push(element('p', {}, t.gpc_note));
  }
  // The service checks the URL; a link that is not http(s) is still never one here.
  if (/^https?:\/\//i.test(t.policy_url)) {
    nodes.push(
      element('a', { href: t.policy_url, target: '_blank', rel: 'noopener' }, t.policy_label),
    );
  }
  // A layout may show Reject all otherwise than Accept all: the review refuses it in an A/B
  // test (../variants.ts), where it would measure a dark pattern.
  const { reject_style: style, reject_layer: layer } = config.layout;
  nodes.push(
    row(
      button('accept-all', t.accept_all),
      ...(layer === 'preferences'
        ? []
        : [button('reject-all', t.reject_all, style === 'outlined' ? 'alt' : (style ?? ''))]),
      button('open', t.preferences, 'alt'),
    ),
  );
  return nodes;
}

function panel(t: BannerTexts): Node[] {
  const head = element('div', { class: 'head' });
  head.append(
    element('h2', { id: 'cx-title' }, t.preferences_title),
    button('close', t.close, 'alt'),
  );
  const nodes: Node[] = [...languages(), head];
  const current = context.current();
  for (const category of config.categories) {
    // Prefixed apart from the dialog's own ids: a tenant's key may be `title`.
    const id = `cx-c-${category.key}`;
    const words = wordsOf(category.key, context.locale);
    const item = element('div', { class: 'cat' });
    const toggle = element('input', {
      type: 'checkbox',
      role: 'switch',
      id,
      'aria-describedby': `${id}-about`,
    });
    toggle.checked = category.required || current?.[category.key] === true;
    toggle.disabled = category.required;
    item.append(
      element('label', { for: id }, words.name),
      toggle,
      element('p', { id: `${id}-about` }, words.description),
    );
    const list = cookieList(category.key, t);
    if (list) item.append(list);
    nodes.push(item);
  }
  nodes.push(row(button('save', t.save)));
  return nodes;
}

/**
 * Shows the first layer, or the preferences panel, moving the focus into the dialog: always when
 * the visitor asked for it (`asked`) or it is modal; when it shows by itself, only if nothing on
 * the page has the focus yet, so a banner that arrives late takes no field from under a visitor's
 * typing. A preview takes it only when asked.
 */
export function openDialog(showPanel: boolean, asked = true): void {
  root ??= mount();
  settings?.remove();
  settings = undefined;
  if (!dialog) {
    before = document.activeElement;
    const { kind, position } = config.layout;
    if (isModal()) root.append(element('div', { class: 'veil' }));
    dialog = element('div', {
      role: 'dialog',
      ...(isModal() ? { 'aria-modal': 'true' } : {}),
      'aria-labelledby': 'cx-title',
      tabindex: '-1',
      lang: context.locale,
      class: `cx ${kind} ${position}`,
    });
    root.append(dialog);
  }
  const t = texts();
  dialog.textContent = '';
  dialog.append(...(showPanel ? panel(t) : firstLayer(t)));
  if (showPanel) loadDeclaration();
  if (showPanel) dialog.removeAttribute('aria-describedby');
  else dialog.setAttribute('aria-describedby', 'cx-body');
  panelShown = showPanel;
  const idle = !document.activeElement || document.activeElement === document.body;
  // A preview sits in a frame of a back-office page, whose reader keeps their place on it.
  const mayTake = !config.preview && (isModal() || idle);
  if (asked || mayTake || root.activeElement) dialog.focus();
}

/** Shows the dialog again in `locale`, the switches as the visitor left them, the focus kept. */
function switchLocale(locale: string): void {
  if (!dialog || !root || locale === context.locale) return;
  context.locale = locale;
  dialog.lang = locale;
  redraw();
  (root.querySelector(`[data-consentrix-locale="${locale}"]`) as HTMLElement | null)?.focus();
}

/** Draws the dialog again (a language picked, the declaration come), the switches kept. */
function redraw(): void {
  if (!dialog || !root) return;
  const on = switches();
  const focusedId = root.activeElement?.id;
  const t = texts();
  dialog.textContent = '';
  dialog.append(...(panelShown ? panel(t) : firstLayer(t)));
  if (panelShown) {
    for (const [key, value] of Object.entries(on)) {
      const toggle = root.getElementById(`cx-c-${key}`) as HTMLInputElement | null;
      if (toggle && !toggle.disabled) toggle.checked = value;
    }
  }
  if (focusedId) root.getElementById(focusedId)?.focus();
}

/**
 * Removes the dialog (and a modal one's veil) and gives the focus back to where it was, when
 * the focus was in the dialog: a visitor who went on into the page keeps their place.
 */
export function closeDialog(): void {
  if (!dialog || !root) return;
  const hadFocus = root.activeElement !== null;
  dialog.remove();
  root.querySelector('.veil')?.remove();
  dialog = undefined;
  panelShown = false;
  if (hadFocus && before instanceof HTMLElement && before.isConnected) before.focus();
  before = null;
  showSettings();
}

/**
 * Shows the settings button, when the configuration has one and the visitor has chosen: a small
 * button in its corner, in the visitor's language, that opens the preferences again.
 */
export function showSettings(): void {
  const corner = config.layout.settings_button;
  if (!corner || dialog || settings || !context.current()) return;
  root ??= mount();
  const t = texts();
  settings = button('open', t.settings ?? t.preferences, `settings ${corner}`);
  settings.lang = context.locale;
  root.append(settings);
}

/** The panel's switches, by category key. */
export function switches(): Record<string, boolean> {
  const on: Record<string, boolean> = {};
  for (const { key } of config.categories) {
    const toggle = root?.getElementById(`cx-c-${key}`) as HTMLInputElement | null | undefined;
    on[key] = toggle?.checked === true;
  }
  return on;
}
