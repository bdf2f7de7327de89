import type { FastifyInstance } from 'fastify';
import type { Db } from '../../platform/db.js';
import type { ReadOn } from '../../platform/replicas.js';
import { listProducts } from '../../products/index.js';
import type { Registry } from '../../record-kinds/index.js';
import { exportControlRecords, exportDecisionRecords } from '../../records/index.js';
import type { SubjectVault } from '../../subjects/index.js';
import { listTemplates } from '../../templates/index.js';
import { auditBy, tenantOf } from '../web/context.js';
import { sendCsv } from '../web/csv.js';
import { dayRange } from '../web/filters.js';
import { type FieldErrors, parseForm } from '../web/forms.js';
import { csrfToken, sendPage } from '../web/layout.js';
import { decisionColumns as columns, controlColumns } from './columns.js';
import {
  ControlExportForm,
  controlExportFormOptions,
  ExportFilterForm,
  exportFilterFormOptions,
} from './schemas.js';
import { exportForm } from './views.js';

export async function exportRoutes(
  app: FastifyInstance,
  {
    db,
    readOn,
    vault,
    registry,
  }: { db: Db; readOn: ReadOn; vault: SubjectVault; registry: Registry },
) {
  app.get('/exports', { config: { permission: 'exports:export' } }, async (request, reply) => {
    const { tenantId, timeZone } = tenantOf(request);
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
        zone: timeZone,
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
      // The days are the tenant's, read as every filter of the back-office reads them.
      const days = dayRange(values, user.timeZone);
      const fieldErrors: FieldErrors = {
        ...('errors' in days ? days.errors : {}),
        ...(form.ok ? {} : form.refusal.fields),
      };
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
          body: exportForm({
            templates,
            products,
            values,
            errors,
            fieldErrors,
            zone: user.timeZone,
          }),
        });
      }
      const range = 'errors' in days ? {} : days;
      const records = await exportDecisionRecords(
        db,
        readOn,
        vault,
        user.tenantId,
        { templateId: template?.id, productId: product?.id, ...range },
        { ...values, timeZone: user.timeZone },
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
      return sendCsv(reply, `${name}.csv`, columns(user.timeZone), records);
    },
  );

  // Channel changes and partner blocks of a range of days; days that are not days are refused
  // on the Exports page, as the decisions' are.
  app.get(
    '/exports/controls.csv',
    { config: { permission: 'exports:export' } },
    async (request, reply) => {
      const user = tenantOf(request);
      const form = parseForm(ControlExportForm, request.query, controlExportFormOptions);
      const values = { from: '', to: '', ...form.input };
      const days = dayRange(values, user.timeZone);
      if (!form.ok || 'errors' in days) {
        return reply.code(400).type('text/plain; charset=utf-8').send('The days are not days.');
      }
      const records = await exportControlRecords(
        db,
        readOn,
        vault,
        registry,
        user.tenantId,
        { from: days.from, to: days.until },
        { ...values, timeZone: user.timeZone },
        auditBy(request),
      );
      const name = ['controls', user.tenantAlias, values.from, values.to].filter(Boolean).join('-');
      return sendCsv(reply, `${name}.csv`, controlColumns(user.timeZone), records);
    },
  );
}
