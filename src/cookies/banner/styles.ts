import { config } from './config.js';

/**
 * The banner's styles, inside its shadow root so that the page's styles and its own leave each
 * other alone. The tenant's colours arrive as custom properties on the host (`--cx-bg`,
 * `--cx-fg`, `--cx-accent`); buttons are the accent with the background's colour as text. The
 * dialog is placed on the visual viewport, the part of the page on the screen (`--cx-l`, `-t`,
 * `-r`, `-b`, `-vw`, `-vh`, set by `viewport.ts`): a phone widens the layout viewport, which
 * fixed positions follow, to the page's widest content, and a bar across it would be wider than
 * the screen and below its bottom.
 */
export const css = `:host{all:initial}
.cx{position:fixed;z-index:2147483647;box-sizing:border-box;max-height:100vh;overflow:auto;padding:16px 20px;background:var(--cx-bg);color:var(--cx-fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow-wrap:anywhere;box-shadow:0 2px 16px rgba(0,0,0,.35)}
.cx:focus{outline:none}
.held{box-sizing:border-box;height:100%;min-height:120px;display:flex;flex-direction:column;align-items:center;justify-content:center;gap:12px;padding:16px;background:var(--cx-bg);color:var(--cx-fg);border:1px solid rgba(128,128,128,.45);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;text-align:center;overflow:auto}
.held p{margin:0}
.veil{position:fixed;top:0;right:0;bottom:0;left:0;z-index:2147483646;background:rgba(0,0,0,.45)}
.cx{max-height:var(--cx-vh,100vh)}
.bar{left:var(--cx-l,0);right:var(--cx-r,0)}
.top{top:var(--cx-t,0)}
.bottom,.bottom-left,.bottom-right{bottom:var(--cx-b,0)}
.box{width:min(440px,calc(var(--cx-vw,100vw) - 16px));max-height:calc(var(--cx-vh,100vh) - 16px);margin:8px;border-radius:8px}
.bottom-left{left:var(--cx-l,0)}
.bottom-right{right:var(--cx-r,0)}
.center{top:calc(var(--cx-t,0px) + var(--cx-vh,100vh) / 2);left:calc(var(--cx-l,0px) + var(--cx-vw,100vw) / 2);margin:0;transform:translate(-50%,-50%)}
h2{margin:0 0 8px;font-size:1.2em;line-height:1.3}
p{margin:0 0 12px}
a{color:inherit}
.row{display:grid;grid-template-columns:repeat(auto-fit,minmax(120px,1fr));gap:8px;max-width:40em;margin-top:12px}
button{min-height:44px;padding:8px 14px;border:2px solid var(--cx-accent);border-radius:6px;background:var(--cx-accent);color:var(--cx-bg);font:inherit;font-weight:600;cursor:pointer}
.alt{background:transparent;color:var(--cx-fg)}
.link{align-self:center;justify-self:start;min-height:0;padding:0;border:0;background:none;color:var(--cx-fg);font-weight:400;text-decoration:underline}
:focus-visible{outline:3px solid var(--cx-accent);outline-offset:2px}
.langs{display:flex;flex-wrap:wrap;justify-content:flex-end;gap:6px;margin-bottom:4px}
.langs button{min-height:32px;padding:2px 10px;font-weight:400;font-size:.9em}
.langs [aria-pressed=true]{font-weight:700;text-decoration:underline}
.head{display:flex;align-items:center;justify-content:space-between;gap:8px;margin-bottom:8px}
.head h2{margin:0}
.head button{flex:none}
.cat{display:grid;grid-template-columns:1fr auto;gap:4px 12px;align-items:center;padding:10px 0;border-top:1px solid rgba(128,128,128,.45)}
.cat label{font-weight:600}
.cat p{grid-column:1/-1;margin:0;font-size:.92em}
input{width:22px;height:22px;margin:0;accent-color:var(--cx-accent)}
.cat details{grid-column:1/-1;font-size:.9em}
.cat ul{margin:4px 0 0;padding-left:18px}
.settings{position:fixed;z-index:2147483646;bottom:calc(var(--cx-b,0px) + 12px);min-height:40px;padding:6px 12px;font:600 14px/1.3 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;box-shadow:0 1px 8px rgba(0,0,0,.3)}
.settings.bottom-left{left:calc(var(--cx-l,0px) + 12px)}
.settings.bottom-right{right:calc(var(--cx-r,0px) + 12px)}`;

/**
 * A shadow root on `host` with the banner's styles and the tenant's colours (custom properties
 * set through the CSSOM, which a strict CSP allows, not a style attribute). The styles are a
 * constructed stylesheet, not a <style> element: CSP's `style-src` governs elements and
 * attributes, not the CSSOM, so a site with a strict CSP needs neither `'unsafe-inline'` nor a
 * nonce for the banner's looks. Where a browser has no constructed stylesheets (Safari before
 * 16.4), a <style> element with the tag's `nonce`.
 */
export function themedShadow(host: HTMLElement, nonce: string): ShadowRoot {
  const { background, text, accent } = config.layout.colors;
  host.style.setProperty('--cx-bg', background);
  host.style.setProperty('--cx-fg', text);
  host.style.setProperty('--cx-accent', accent);
  const shadow = host.attachShadow({ mode: 'open' });
  if ('adoptedStyleSheets' in shadow && typeof CSSStyleSheet.prototype.replaceSync === 'function') {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    shadow.adoptedStyleSheets = [sheet];
  } else {
    const style = document.createElement('style');
    style.textContent = css;
    style.nonce = nonce;
    shadow.append(style);
  }
  return shadow;
}
