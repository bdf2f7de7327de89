import type { AnalyticsTotal, ChoiceAnalytics } from '../../cookies/index.js';
import { formErrors, input } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';
import { rateCell } from './models.js';
import { analyticsPath, systemPath } from './paths.js';

export interface AnalyticsPageModel {
  period: { from: string; to: string; zone: string };
  system: { scope: string; name: string };
  /** Absent when the period asked for is none (`errors` says why). */
  analytics?: ChoiceAnalytics;
  errors: string[];
}

const names: Record<string, string> = {
  analytics: 'Analytics',
  marketing: 'Marketing',
  functional: 'Functional',
  personalization: 'Personalization',
};
const nameOf = (key: string) => names[key] ?? key;
/** One colour per category line, in the order of the categories; readable on white. */
const colours = ['#0b5cad', '#a3360f', '#2f7d32', '#6a3d9a', '#8a6d00', '#00707a'];

/**
 * A system's consent analytics: the period's form, a chart of the choices a day and each
 * category's opt-in rate, then the same by day, by region and by A/B variant as tables (what
 * the chart shows, for a screen reader too), and the CSV.
 */
export function analyticsPage(o: AnalyticsPageModel): Html {
  const { period, system, analytics } = o;
  const query = `?from=${encodeURIComponent(period.from)}&to=${encodeURIComponent(period.to)}`;
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/cookies">Cookies</a></li><li><a href="${basePath}${systemPath(system.scope)}">${system.name}</a></li><li>Analytics</li></ul></nav>
<h1>Consent analytics of ${system.name}</h1>
<p>From the choices stored, by day in your time zone (${period.zone}). An opt-in rate is the share of the choices offering a category that granted it, with its 95% confidence interval.</p>
${formErrors(o.errors)}
<form method="get" action="${basePath}${analyticsPath(system.scope)}" class="grid">
<div>${input({ name: 'from', label: 'First day', type: 'date', value: period.from, required: true })}</div>
<div>${input({ name: 'to', label: 'Last day', type: 'date', value: period.to, required: true, hint: 'At most 92 days.' })}</div>
<div><button type="submit">Show</button></div>
</form>
${
  analytics
    ? html`<p><a href="${basePath}${analyticsPath(system.scope)}.csv${query}" download>Download as CSV</a> (a row per day, region and variant)</p>
${chart(analytics)}
<h2>By day</h2>
${totals(analytics.byDay, analytics.categories, 'Day', (key) => key)}
<h2>By region</h2>
${totals(analytics.byRegion, analytics.categories, 'Region', (key) => key || 'Unknown')}
<h2>By A/B variant</h2>
${totals(analytics.byVariant, analytics.categories, 'Variant', (key) => key || 'No variants')}`
    : ''
}`;
}

function totals(
  rows: AnalyticsTotal[],
  categories: string[],
  heading: string,
  label: (key: string) => string,
): Html {
  if (rows.length === 0) return html`<p>No choice in this period.</p>`;
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="${heading}"><table>
<thead><tr><th scope="col">${heading}</th><th scope="col">Choices</th><th scope="col">Accept all</th><th scope="col">Reject all</th><th scope="col">Custom</th><th scope="col">GPC</th>${categories.map((key) => html`<th scope="col">${nameOf(key)}</th>`)}</tr></thead>
<tbody>
${rows.map(
  (row) =>
    html`<tr><td class="mono">${label(row.key)}</td><td>${row.choices}</td><td>${row.methods['accept-all']}</td><td>${row.methods['reject-all']}</td><td>${row.methods.custom}</td><td>${row.methods.gpc}</td>${categories.map(
      (key) => rateCell(row.rates[key]),
    )}</tr>`,
)}
</tbody></table></div>`;
}

/**
 * The days as an SVG drawn on the server (no script): a grey bar for the choices of each day,
 * against the left scale, and a line per category for its opt-in rate, against 0 to 100%.
 */
function chart(analytics: ChoiceAnalytics): Html {
  const days = analytics.byDay;
  const width = 720;
  const height = 220;
  const left = 40;
  const bottom = 24;
  const plot = { w: width - left - 10, h: height - bottom - 10 };
  const most = Math.max(1, ...days.map((d) => d.choices));
  const step = plot.w / Math.max(1, days.length);
  const x = (i: number) => left + step * i + step / 2;
  const y = (share: number) => 10 + plot.h * (1 - share);
  const bars = days.map((d, i) => {
    const h = (plot.h * d.choices) / most;
    return html`<rect x="${(left + step * i + step * 0.15).toFixed(1)}" y="${(10 + plot.h - h).toFixed(1)}" width="${(step * 0.7).toFixed(1)}" height="${h.toFixed(1)}" fill="#c8ccd2"><title>${d.key}: ${d.choices} choices</title></rect>`;
  });
  const lines = analytics.categories.map((key, c) => {
    const points = days
      .map((d, i) => {
        const rate = d.rates[key];
        return rate ? `${x(i).toFixed(1)},${y(rate.rate).toFixed(1)}` : '';
      })
      .filter((p) => p !== '')
      .join(' ');
    return html`<polyline points="${points}" fill="none" stroke="${colours[c % colours.length]}" stroke-width="2"><title>${nameOf(key)}: opt-in rate</title></polyline>`;
  });
  const legend = analytics.categories.map(
    (key, c) =>
      html`<li><svg aria-hidden="true" width="12" height="12"><rect width="12" height="12" fill="${colours[c % colours.length]}"/></svg> ${nameOf(key)}</li>`,
  );
  return html`<figure>
<svg role="img" aria-labelledby="analytics-chart-title" viewBox="0 0 ${width} ${height}" width="100%">
<title id="analytics-chart-title">Choices a day (bars, up to ${most}) and opt-in rate per category (lines, 0 to 100%), ${analytics.from} to ${analytics.to}</title>
<line x1="${left}" y1="${10 + plot.h}" x2="${width - 10}" y2="${10 + plot.h}" stroke="#6b7280"/>
<text x="4" y="16" font-size="11">100%</text><text x="4" y="${10 + plot.h}" font-size="11">0</text>
${bars}
${lines}
<text x="${left}" y="${height - 6}" font-size="11">${analytics.from}</text>
<text x="${width - 10}" y="${height - 6}" font-size="11" text-anchor="end">${analytics.to}</text>
</svg>
<figcaption><ul class="legend">${legend}</ul>Bars: choices a day, up to ${most}. Lines: the share of the day's choices that granted each category. The tables below give every figure.</figcaption>
</figure>`;
}
