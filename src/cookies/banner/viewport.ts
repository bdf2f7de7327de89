/**
 * Keeps the banner on the screen: a phone lays a page wider than the screen (a 560 px video on a
 * 390 px phone) out on a layout viewport that wide and as much taller, and `position: fixed`
 * follows the layout viewport, so a bar would span 560 px and sit below the screen's bottom. The
 * visual viewport is what the screen shows; its offsets within the layout viewport go to the
 * host as custom properties that the styles place the dialog by (styles.ts).
 */
export function followVisualViewport(host: HTMLElement): void {
  const viewport = window.visualViewport;
  if (!viewport) return;
  // Browsers fire these once per frame at most, in their rendering steps: no throttle needed.
  const place = () => {
    const set = (name: string, px: number) => host.style.setProperty(name, `${Math.max(0, px)}px`);
    set('--cx-l', viewport.offsetLeft);
    set('--cx-t', viewport.offsetTop);
    set('--cx-r', window.innerWidth - viewport.offsetLeft - viewport.width);
    set('--cx-b', window.innerHeight - viewport.offsetTop - viewport.height);
    set('--cx-vw', viewport.width);
    set('--cx-vh', viewport.height);
  };
  place();
  viewport.addEventListener('resize', place);
  viewport.addEventListener('scroll', place);
}
