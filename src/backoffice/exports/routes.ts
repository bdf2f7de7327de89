import type { FastifyInstance } from 'fastify';
import type { Db } from '../../platform/db.js';
import { listProducts } from '../../products/index.js';
import { exportDecisionRecords } from '../../records/index.js';
import type { SubjectVault } from '../../subjects/index.js';
import { listTemplates } from '../../templates/index.js';
import { auditBy, tenantOf } from '../web/context.js';
import { sendCsv } from '../web/csv.js';
import { type FieldErrors, parseForm } from '../web/forms.js';
import { csrfToken, sendPage } from '../web/layout.js';
import { decisionColumns as columns } from './columns.js';
import { ExportFilterForm, exportFilterFormOptions } from './schemas.js';
import { exportForm } from './views.js';

/** `YYYY-MM-DD` that is a real day, as the ISO time its UTC day starts; undefined otherwise. */
function dayStart(value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const date = new Date(`${value}T00:00:00.000Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value
    ? undefined
    : date.toISOString();
}

export async function exportRoutes(
  app: FastifyInstance,
  { db, vault }: { db: Db; vault: SubjectVault },
) {
  app.get('/exports', { config: { permission: 'exports:export' } }, async (request, reply) => {
    const { tenantId } = tenantOf(request);
    return sendPage(reply, {
      title: 'Exports',
      section: 'exports',
      user: request.backofficeUser,
      csrfToken: csrfToken(reply),
      body: exportForm({
        templates: await listTemplates(db, tenantId),
        products: await listProducts(db, tenantId),
        values: { template: '', product: '', from: '', to: '' },
        errors: [],
        fieldErrors: {},
      }),
    });
  });

  app.get(
    '/exports/decisions.csv',
    { config: { permission: 'exports:export' } },
    async (request, reply) => {
      const user = tenantOf(request);
      const form = parseForm(ExportFilterForm, request.query, exportFilterFormOptions);
      const values = { template: '', product: '', from: '', to: '', ...form.input };
      const fieldErrors: FieldErrors = form.ok ? {} : { ...form.refusal.fields };
      // The pattern has the shape of a day; whether it is a real one is the calendar's to say.
      const from = values.from === '' ? undefined : dayStart(values.from);
      const toStart = values.to === '' ? undefined : dayStart(values.to);
      if (values.from !== '' && !from) fieldErrors.from = 'A date, or nothing.';
      if (values.to !== '' && !toStart) fieldErrors.to = 'A date, or nothing.';
      if (from && toStart && toStart < from) fieldErrors.to = 'The last day is before the first.';
      const [templates, products] = await Promise.all([
        listTemplates(db, user.tenantId),
        listProducts(db, user.tenantId),
      ]);
      const template = templates.find((t) => t.code === values.template);
      const product = products.find((p) => p.code === values.product);
      const errors = [
        ...(values.template !== '' && !template ? ['There is no such template.'] : []),
        ...(values.product !== '' && !product ? ['There is no such product.'] : []),
      ];
      if (errors.length > 0 || Object.keys(fieldErrors).length > 0) {
        return sendPage(reply, {
          status: 400,
          title: 'Exports',
          section: 'exports',
          user,
          csrfToken: csrfToken(reply),
          body: exportForm({ templates, products, values, errors, fieldErrors }),
        });
      }
      // The last day is included: up to the start of the day after it.
      const until = toStart ? new Date(Date.parse(toStart) + 86_400_000).toISOString() : undefined;
      const records = await exportDecisionRecords(
        db,
        vault,
        user.tenantId,
        { templateId: template?.id, productId: product?.id, from, until },
        values,
        auditBy(request),
      );
      const name = [
        'decisions',
        user.tenantAlias,
        values.product,
        values.template,
        values.from,
        values.to,
      ]
        .filter(Boolean)
        .join('-');
      return sendCsv(reply, `${name}.csv`, columns, records);
    },
  );
}
