import type { FastifyInstance } from 'fastify';
import { configurationsWaitingFor, cookieChoiceRates } from '../../cookies/index.js';
import type { Db } from '../../platform/db.js';
import { dailyDecisionCounts, standingsOnVersions } from '../../records/index.js';
import {
  customersPerTemplate,
  listTemplates,
  scheduledReleases,
  versionsWaitingFor,
} from '../../templates/index.js';
import { cookieRatesSection } from '../cookies/dashboard.js';
import { productChoice } from '../products/choice.js';
import { productFilter } from '../products/views.js';
import { tenantOf } from '../web/context.js';
import { count, time } from '../web/format.js';
import { html, segment } from '../web/html.js';
import { basePath, csrfToken, sendPage } from '../web/layout.js';
import { type DayCounts, decisionsChart, lastDays } from './chart.js';
import { latestStanding } from './standing.js';
import { scheduledList, waitingForYou } from './waiting.js';

const days = 30;

/** Per template: the latest version, how many customers decided, and decisions per day. */
export async function dashboardRoutes(app: FastifyInstance, { db }: { db: Db }) {
  app.get('/dashboard', { config: { permission: 'member' } }, async (request, reply) => {
    const { tenantId, permissions, timeZone, name, userId } = tenantOf(request);
    const window = lastDays(days);
    // For a tenant with cookie systems: how their visitors chose, over the same days.
    const rates = permissions.has('cookies:view')
      ? await cookieChoiceRates(db, tenantId, `${window[0]}T00:00:00.000Z`)
      : [];
    const cookies = rates.length > 0 ? cookieRatesSection(rates, days) : '';
    const mayOnBanners = {
      edit: permissions.has('cookies:edit'),
      review: permissions.has('cookies:review'),
      approve: permissions.has('cookies:approve'),
    };
    const banners =
      mayOnBanners.edit || mayOnBanners.review || mayOnBanners.approve
        ? await configurationsWaitingFor(db, tenantId, { userId, may: mayOnBanners })
        : undefined;
    if (!permissions.has('templates:view')) {
      // The dashboard's figures are the templates': a role without them gets a welcome.
      return sendPage(reply, {
        title: 'Dashboard',
        section: 'dashboard',
        user: request.backofficeUser,
        csrfToken: csrfToken(reply),
        body: html`<h1>Welcome, ${name}</h1><p>The menu above holds what your roles let you open.</p>
${banners ? waitingForYou([], banners, timeZone) : ''}
${cookies}`,
      });
    }
    const may = {
      edit: permissions.has('versions:edit'),
      review: permissions.has('versions:review'),
      approve: permissions.has('versions:approve'),
    };
    const takesSteps = may.edit || may.review || may.approve;
    const { products, product } = await productChoice(db, tenantId, request.query);
    const [templates, counts, customers, waiting, scheduled] = await Promise.all([
      listTemplates(db, tenantId, product?.id),
      dailyDecisionCounts(db, tenantId, `${window[0]}T00:00:00.000Z`),
      customersPerTemplate(db, tenantId),
      takesSteps ? versionsWaitingFor(db, tenantId, { userId, may }) : undefined,
      scheduledReleases(db, tenantId),
    ]);
    const standings = await standingsOnVersions(
      db,
      tenantId,
      templates.flatMap((t) => (t.latest_version_id ? [t.latest_version_id] : [])),
    );
    const perTemplate = new Map<string, Map<string, DayCounts>>();
    for (const c of counts) {
      const byDay = perTemplate.get(c.template_id) ?? new Map<string, DayCounts>();
      const day = byDay.get(c.day) ?? { day: c.day, given: 0, reject: 0, withdraw: 0 };
      day[c.decision] += c.count;
      byDay.set(c.day, day);
      perTemplate.set(c.template_id, byDay);
    }
    const sections = templates.map((t, index) => {
      const byDay = perTemplate.get(t.id);
      const series = window.map(
        (day) => byDay?.get(day) ?? { day, given: 0, reject: 0, withdraw: 0 },
      );
      const total = series.reduce((n, d) => n + d.given + d.reject + d.withdraw, 0);
      return html`<article>
<header><h2><a href="${basePath}/templates/${segment(t.code)}">${t.name}</a> <small class="mono">${t.code}</small></h2>
<p>${t.latest_version === null ? 'No version published yet.' : html`Latest version ${t.latest_version} (tag <span class="mono">${t.latest_tag}</span>), published ${time(t.latest_published_at, timeZone)}.`}
${count(customers.get(t.id) ?? 0, 'customer has', 'customers have')} decided; ${count(total, 'decision', 'decisions')} in the last ${days} days.</p></header>
${decisionsChart(`chart-${index}`, `Decisions per day on ${t.code}, last ${days} days`, series)}
${
  t.latest_version_id && t.latest_version !== null && t.latest_tag !== null
    ? latestStanding(
        standings.get(t.latest_version_id) ?? { given: 0, reject: 0, withdraw: 0 },
        customers.get(t.id) ?? 0,
        { version: t.latest_version, tag: t.latest_tag },
      )
    : ''
}
</article>`;
    });
    return sendPage(reply, {
      title: 'Dashboard',
      section: 'dashboard',
      user: request.backofficeUser,
      csrfToken: csrfToken(reply),
      body: html`<hgroup><h1>Dashboard</h1><p>Decisions per day over the last ${days} days (UTC), per template.</p></hgroup>
${waiting || banners ? waitingForYou(waiting ?? [], banners ?? [], timeZone) : ''}
${scheduled.length > 0 ? scheduledList(scheduled, timeZone) : ''}
${cookies}
${productFilter(`${basePath}/dashboard`, products, product?.code ?? '')}
${templates.length === 0 ? html`<p>No template yet.${permissions.has('templates:create') ? html` <a href="${basePath}/templates/new">Create the first one</a>.` : ''}</p>` : sections}`,
    });
  });
}
