/**
 * Held embeds: an `<iframe data-consentrix-category="marketing" data-src="…">` has no `src`, so
 * the browser loads nothing; while its category is not granted a placeholder of the same size
 * stands in its place, in the visitor's language, with a button that allows that category. Once
 * granted, the frame gets its `src` and shows. Frames added later are watched for (blocking.ts).
 */
import { config, textsIn, wordsOf } from './config.js';
import { themedShadow } from './styles.js';

export const heldFrame = 'iframe[data-consentrix-category][data-src]';

export interface EmbedContext {
  locale: string;
  /** The nonce of the banner's tag, for styles where there are no constructed stylesheets. */
  nonce: string;
  /** The visitor allows `category` from a placeholder. */
  allow(category: string): void;
  /** A placeholder without its own words offers the preferences panel instead. */
  openPreferences(): void;
}

let context: EmbedContext | undefined;
const placeholders = new WeakMap<HTMLIFrameElement, HTMLElement>();

export function setUpEmbeds(embedContext: EmbedContext): void {
  context = embedContext;
}

function placeholderFor(frame: HTMLIFrameElement, key: string): HTMLElement {
  const locale = context?.locale ?? config.default_locale;
  const t = textsIn(locale);
  const words = wordsOf(key, locale);
  const fill = (text: string) => text.split('{category}').join(words.name);
  const host = document.createElement('div');
  host.setAttribute('data-consentrix-placeholder', key);
  // CSSOM, which a strict CSP allows: the frame's size, never wider than its container.
  const width = frame.getAttribute('width');
  const height = frame.getAttribute('height');
  host.style.setProperty('display', 'block');
  host.style.setProperty('max-width', '100%');
  if (width) host.style.setProperty('width', /^\d+$/.test(width) ? `${width}px` : width);
  if (height) host.style.setProperty('height', /^\d+$/.test(height) ? `${height}px` : height);
  const shadow = themedShadow(host, context?.nonce ?? '');
  const box = document.createElement('div');
  box.className = 'held';
  box.lang = locale;
  const about = document.createElement('p');
  about.textContent = t.held_content ? fill(t.held_content) : `${words.name}: ${words.description}`;
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = t.allow_category ? fill(t.allow_category) : t.preferences;
  button.addEventListener('click', () =>
    t.allow_category ? context?.allow(key) : context?.openPreferences(),
  );
  box.append(about, button);
  shadow.append(box);
  return host;
}

/** Loads a `granted` frame; puts a placeholder before one that is not (once). */
export function handleFrame(frame: HTMLIFrameElement, granted: boolean): void {
  const key = frame.getAttribute('data-consentrix-category') ?? '';
  if (!context) return;
  const shown = placeholders.get(frame);
  if (granted) {
    shown?.remove();
    placeholders.delete(frame);
    frame.hidden = false;
    const src = frame.getAttribute('data-src') ?? '';
    if (frame.getAttribute('src') !== src) frame.setAttribute('src', src);
    return;
  }
  if (shown?.isConnected || !frame.isConnected) return;
  const placeholder = placeholderFor(frame, key);
  placeholders.set(frame, placeholder);
  frame.hidden = true;
  frame.before(placeholder);
}
