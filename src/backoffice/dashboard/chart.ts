import { type Html, html } from '../web/html.js';

export interface DayCounts {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  given: number;
  reject: number;
  withdraw: number;
}

/**
 * The plot's height in CSS pixels, as the stylesheet gives it (`.chart-plot`, `.chart-y`): the
 * plot is stretched to the width of the page but never in height, so its y coordinates are
 * pixels, and the axis labels beside it, drawn unscaled, line up with its grid lines.
 */
const plotHeight = 200;
const plotTop = 8;
/** Each day's slot in the plot's own units; the plot is stretched to the page's width. */
const slot = 10;
const barWidth = 7;
const values = ['given', 'reject', 'withdraw'] as const;

/** The `days` UTC days ending today, oldest first. */
export function lastDays(days: number, now = new Date()): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) =>
    new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
}

/**
 * The y-axis ticks for the largest count of a day: counts are whole numbers, so the step is 1, 2
 * or 5 × 10^n, the smallest that takes at most four steps to reach the count; the ticks run from
 * 0 to the first at or above it (at least 1).
 */
export function yTicks(max: number): number[] {
  const largest = Math.max(1, Math.ceil(max));
  let step = 1;
  for (let magnitude = 1; ; magnitude *= 10) {
    const found = [1, 2, 5].find((m) => Math.ceil(largest / (m * magnitude)) <= 4);
    if (found !== undefined) {
      step = found * magnitude;
      break;
    }
  }
  const steps = Math.ceil(largest / step);
  return Array.from({ length: steps + 1 }, (_, i) => i * step);
}

/**
 * Decisions per day as stacked bars, drawn on the server as SVG (no script): each bar has a
 * title with its numbers, the chart a text alternative, and the numbers are also in a table.
 * The bars stretch to the page's width; the axis labels are drawn apart from them, so they keep
 * the page's text size at any width.
 */
export function decisionsChart(id: string, label: string, series: DayCounts[]): Html {
  const width = Math.max(1, series.length) * slot;
  const totals = series.map((d) => d.given + d.reject + d.withdraw);
  const sum = totals.reduce((a, b) => a + b, 0);
  const ticks = yTicks(Math.max(0, ...totals));
  const top = ticks.at(-1) ?? 1;
  const inner = plotHeight - plotTop;
  const y = (n: number) => plotTop + inner - (n / top) * inner;
  const round = (n: number) => Math.round(n * 10) / 10;

  const bars = series.map((d, i) => {
    const x = i * slot + (slot - barWidth) / 2;
    let base = 0;
    const rects = values.map((value) => {
      const n = d[value];
      if (n === 0) return html``;
      const rect = html`<rect class="bar-${value}" x="${x}" y="${round(y(base + n))}" width="${barWidth}" height="${round(y(base) - y(base + n))}"></rect>`;
      base += n;
      return rect;
    });
    return html`<g><title>${d.day}: ${d.given} given, ${d.reject} reject, ${d.withdraw} withdraw</title>${rects}</g>`;
  });
  const gridLines = ticks.map(
    (n) =>
      html`<line class="axis" x1="0" x2="${width}" y1="${round(y(n))}" y2="${round(y(n))}"></line>`,
  );
  const yLabels = ticks.map(
    (n) =>
      html`<text x="100%" dx="-6" y="${round(y(n))}" dominant-baseline="middle" text-anchor="end">${n}</text>`,
  );
  const xLabels = series
    .map((d, i) => ({ d, i }))
    .filter(({ i }) => (series.length - 1 - i) % 7 === 0)
    .map(
      ({ d, i }) =>
        html`<text x="${round(((i + 0.5) / series.length) * 100)}%" y="1em" text-anchor="middle">${d.day.slice(5)}</text>`,
    );

  return html`<figure class="chart">
<div class="chart-area">
<svg class="chart-y" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg">
${yLabels}
</svg>
<svg class="chart-plot" viewBox="0 0 ${width} ${plotHeight}" preserveAspectRatio="none" role="img" aria-labelledby="${id}-title ${id}-desc" xmlns="http://www.w3.org/2000/svg">
<title id="${id}-title">${label}</title>
<desc id="${id}-desc">${sum} decisions in the ${series.length} days from ${series[0]?.day ?? ''} to ${series.at(-1)?.day ?? ''}; the most in one day: ${Math.max(0, ...totals)}.</desc>
${gridLines}
${bars}
</svg>
<svg class="chart-x" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg">
${xLabels}
</svg>
</div>
<figcaption><ul class="legend">
${values.map((v) => html`<li><span class="swatch ${v}"></span>${v}</li>`)}
</ul></figcaption>
</figure>
<details>
<summary>Numbers per day</summary>
<div class="table-scroll" tabindex="0" role="region" aria-label="${label}: the numbers"><table>
<thead><tr><th scope="col">Day (UTC)</th><th scope="col">Given</th><th scope="col">Reject</th><th scope="col">Withdraw</th></tr></thead>
<tbody>
${series
  .filter((d) => d.given + d.reject + d.withdraw > 0)
  .map(
    (d) =>
      html`<tr><td>${d.day}</td><td>${d.given}</td><td>${d.reject}</td><td>${d.withdraw}</td></tr>`,
  )}
</tbody></table></div>
</details>`;
}
