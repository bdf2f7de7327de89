import { type Html, html } from '../web/html.js';

export interface DayCounts {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  given: number;
  reject: number;
  withdraw: number;
}

const width = 640;
const height = 220;
const margin = { top: 14, right: 30, bottom: 36, left: 52 };
const values = ['given', 'reject', 'withdraw'] as const;

/** The `days` UTC days ending today, oldest first. */
export function lastDays(days: number, now = new Date()): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) =>
    new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
}

/** A round number at or above `n`, so the axis reads 0, half and top. */
function niceMax(n: number): number {
  if (n <= 4) return 4;
  const magnitude = 10 ** Math.floor(Math.log10(n));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= n) return step * magnitude;
  return 10 * magnitude;
}

/**
 * Decisions per day as stacked bars, drawn on the server as SVG (no script): each bar has a
 * title with its numbers, the chart a text alternative, and the numbers are also in a table.
 */
export function decisionsChart(id: string, label: string, series: DayCounts[]): Html {
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const totals = series.map((d) => d.given + d.reject + d.withdraw);
  const sum = totals.reduce((a, b) => a + b, 0);
  const top = niceMax(Math.max(0, ...totals));
  const slot = plotWidth / Math.max(1, series.length);
  const barWidth = Math.max(2, slot * 0.7);
  const y = (n: number) => margin.top + plotHeight - (n / top) * plotHeight;
  const round = (n: number) => Math.round(n * 10) / 10;

  const bars = series.map((d, i) => {
    const x = round(margin.left + i * slot + (slot - barWidth) / 2);
    let base = 0;
    const rects = values.map((value) => {
      const n = d[value];
      if (n === 0) return html``;
      const rect = html`<rect class="bar-${value}" x="${x}" y="${round(y(base + n))}" width="${round(barWidth)}" height="${round(y(base) - y(base + n))}"></rect>`;
      base += n;
      return rect;
    });
    return html`<g><title>${d.day}: ${d.given} given, ${d.reject} reject, ${d.withdraw} withdraw</title>${rects}</g>`;
  });
  const ticks = [0, top / 2, top].map(
    (n) =>
      html`<line class="axis" x1="${margin.left}" x2="${width - margin.right}" y1="${round(y(n))}" y2="${round(y(n))}"></line><text x="${margin.left - 6}" y="${round(y(n)) + 7}" text-anchor="end">${n}</text>`,
  );
  const labels = series
    .map((d, i) => ({ d, i }))
    .filter(({ i }) => (series.length - 1 - i) % 7 === 0)
    .map(
      ({ d, i }) =>
        html`<text x="${round(margin.left + i * slot + slot / 2)}" y="${height - 10}" text-anchor="middle">${d.day.slice(5)}</text>`,
    );

  return html`<figure class="chart">
<svg viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-title ${id}-desc" xmlns="http://www.w3.org/2000/svg">
<title id="${id}-title">${label}</title>
<desc id="${id}-desc">${sum} decisions in the ${series.length} days from ${series[0]?.day ?? ''} to ${series.at(-1)?.day ?? ''}; the most in one day: ${Math.max(0, ...totals)}.</desc>
${ticks}
${bars}
${labels}
</svg>
<figcaption><ul class="legend">
${values.map((v) => html`<li><span class="swatch ${v}"></span>${v}</li>`)}
</ul></figcaption>
</figure>
<details>
<summary>Numbers per day</summary>
<div class="table-scroll"><table>
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
