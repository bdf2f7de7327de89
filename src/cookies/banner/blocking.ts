/**
 * Manual blocking: a site marks a tag `type="text/plain"` with `data-consentrix-category`, so the
 * browser never runs it; once its category is granted, a copy that the browser does run takes
 * its place. Tags added later (by the page or another script) are watched for, and so are held
 * embeds (embeds.ts).
 */
import { handleFrame, heldFrame } from './embeds.js';

const blocked = 'script[type="text/plain"][data-consentrix-category]';

let granted: (category: string) => boolean = () => false;

/**
 * A granted tag becomes a script the browser runs: the same attributes but its type (taken from
 * `data-consentrix-type` when there is one) and the blocked mark, the same nonce (the property:
 * Chromium hides the attribute's value once a CSP applies), the same inline text. An external one
 * is not `async`, so that the tags run in the order they are put back.
 */
function handle(tag: HTMLScriptElement): void {
  if (!granted(tag.getAttribute('data-consentrix-category') ?? '')) {
    tag.setAttribute('data-consentrix-blocked', 'true');
    return;
  }
  // While the parser is still adding them, an inline tag's text may not be all there yet: the
  // scan at DOMContentLoaded takes them, in document order.
  if (document.readyState === 'loading' || !tag.isConnected) return;
  const script = document.createElement('script');
  for (const { name, value } of Array.from(tag.attributes)) {
    if (name !== 'type' && name !== 'nonce' && name !== 'data-consentrix-blocked') {
      script.setAttribute(name, value);
    }
  }
  const type = tag.getAttribute('data-consentrix-type');
  if (type) script.type = type;
  script.nonce = tag.nonce ?? '';
  script.text = tag.text;
  if (tag.src) script.async = false;
  tag.replaceWith(script);
}

function handleFrameNow(frame: HTMLIFrameElement): void {
  handleFrame(frame, granted(frame.getAttribute('data-consentrix-category') ?? ''));
}

/** Handles every marked tag and held embed now in the document. */
export function scan(): void {
  document.querySelectorAll<HTMLScriptElement>(blocked).forEach(handle);
  document.querySelectorAll<HTMLIFrameElement>(heldFrame).forEach(handleFrameNow);
}

/** From now on, every marked tag is handled as it arrives, by `isGranted` at that moment. */
export function startBlocking(isGranted: (category: string) => boolean): void {
  granted = isGranted;
  new MutationObserver((records) => {
    for (const record of records) {
      record.addedNodes.forEach((node) => {
        if (!(node instanceof Element)) return;
        if (node.matches(blocked)) handle(node as HTMLScriptElement);
        node.querySelectorAll<HTMLScriptElement>(blocked).forEach(handle);
        if (node.matches(heldFrame)) handleFrameNow(node as HTMLIFrameElement);
        node.querySelectorAll<HTMLIFrameElement>(heldFrame).forEach(handleFrameNow);
      });
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', scan);
  scan();
}
