import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { dayIn } from '../../platform/calendar.js';
import type { Db } from '../../platform/db.js';
import { nowIso } from '../../platform/time.js';
import {
  auditExport,
  type ControllerFields,
  type ProcessingRecord,
  processingRecord,
  saveControllerFields,
} from '../../processing-record/index.js';
import { auditBy, tenantOf } from '../web/context.js';
import { type CsvColumn, sendCsv } from '../web/csv.js';
import { noRefusal, parseForm, queryOf, type Refusal, refusalOf } from '../web/forms.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { isCalendarDay } from '../web/time-zone.js';
import { FieldsForm, messages } from './schemas.js';
import { printableRecord, recordPage } from './views.js';

/** One row of the CSV: a section, then what it states. */
interface CsvRow {
  section: string;
  item: string;
  detail: string;
  legal_basis: string;
  data_categories: string;
  retention: string;
  recipients: string;
  transfers_abroad: string;
  date: string;
}

const columns: ReadonlyArray<CsvColumn<CsvRow>> = [
  ['section', (r) => r.section],
  ['item', (r) => r.item],
  ['detail', (r) => r.detail],
  ['legal_basis', (r) => r.legal_basis],
  ['data_categories', (r) => r.data_categories],
  ['retention_months', (r) => r.retention],
  ['recipients', (r) => r.recipients],
  ['transfers_abroad', (r) => r.transfers_abroad],
  ['date', (r) => r.date],
];

/** The record as rows: the tenant's fields, each purpose, each channel, each refusal. */
function* csvRows(r: ProcessingRecord): Generator<CsvRow> {
  const blank = {
    legal_basis: '',
    data_categories: '',
    retention: '',
    recipients: '',
    transfers_abroad: '',
    date: '',
  };
  const f = r.fields;
  for (const [item, detail] of [
    ['controller_name', f.controller_name],
    ['controller_address', f.controller_address],
    ['controller_contact', f.controller_contact],
    ['dpo_name', f.dpo_name],
    ['dpo_contact', f.dpo_contact],
    ['security_measures', f.security_measures],
  ] as const) {
    yield { ...blank, section: 'controller', item, detail };
  }
  for (const a of r.activities) {
    yield {
      section: 'purpose',
      item: a.template_code,
      detail: a.purpose ? `${a.name}: ${a.purpose}` : a.name,
      legal_basis: a.legal_basis,
      data_categories: a.data_categories.join('; '),
      retention: a.retention_months === null ? '' : String(a.retention_months),
      recipients: a.recipients
        .map((p) => (p.country ? `${p.name} (${p.country})` : p.name))
        .join('; '),
      transfers_abroad: a.recipients
        .filter((p) => p.abroad)
        .map((p) => `${p.name} (${p.country})`)
        .join('; '),
      date: a.live_since,
    };
  }
  for (const c of r.channels) yield { ...blank, section: 'channel', item: c.code, detail: c.name };
  for (const x of r.refusals) {
    yield {
      ...blank,
      section: 'refusal',
      item: `${x.kind} ${x.request_id}`,
      detail: `${x.ground}: ${x.reason}`,
      date: x.refused_at,
    };
  }
}

/**
 * The section 39 record (docs/pdpa.md): seen under `settings:view`, its tenant's fields changed
 * under `settings:edit`, exported as CSV or a printable document under `exports:export`, each
 * export audited with the day and language.
 */
export async function processingRecordRoutes(app: FastifyInstance, { db }: { db: Db }) {
  const page = sectionPage('processing-record', { saved: 'Saved.' });

  /** The day asked for (`?at=`), or today in the tenant's zone. */
  const dayOf = (request: FastifyRequest) => {
    const asked = queryOf(request.query, 'at');
    return isCalendarDay(asked) ? asked : dayIn(nowIso(), tenantOf(request).timeZone);
  };
  const langOf = (request: FastifyRequest) =>
    queryOf(request.query, 'lang') === 'th' ? 'th' : 'en';

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    refusal: Refusal = noRefusal,
    values?: ControllerFields,
  ) => {
    const user = tenantOf(request);
    const record = await processingRecord(
      db,
      { id: user.tenantId, alias: user.tenantAlias },
      dayOf(request),
    );
    if (values) record.fields = { ...record.fields, ...values };
    const body = recordPage({
      record,
      zone: user.timeZone,
      mayExport: user.permissions.has('exports:export'),
      mayEdit: user.permissions.has('settings:edit'),
      csrfToken: csrfToken(reply),
      errors: refusal.form,
      fieldErrors: refusal.fields,
    });
    return page(request, reply, 'Record of processing', body, refusal === noRefusal ? 200 : 400);
  };

  app.get('/processing-record', { config: { permission: 'settings:view' } }, (request, reply) =>
    show(request, reply),
  );

  app.post(
    '/processing-record',
    { config: { permission: 'settings:edit' } },
    async (request, reply) => {
      const user = tenantOf(request);
      const { input } = parseForm(FieldsForm, request.body, { messages });
      const values: ControllerFields = {
        controller_name: (input.controller_name ?? '').trim(),
        controller_address: (input.controller_address ?? '').trim(),
        controller_contact: (input.controller_contact ?? '').trim(),
        dpo_name: (input.dpo_name ?? '').trim(),
        dpo_contact: (input.dpo_contact ?? '').trim(),
        security_measures: (input.security_measures ?? '').trim(),
      };
      try {
        await saveControllerFields(db, auditBy(request), user.tenantId, values);
      } catch (error) {
        const refusal = refusalOf(error, messages);
        if (!refusal) throw error;
        return show(request, reply, refusal, values);
      }
      return redirectTo(reply, '/processing-record?notice=saved');
    },
  );

  /** The record of the day asked for, its export audited with its form and language. */
  const exported = async (request: FastifyRequest, format: 'csv' | 'print') => {
    const user = tenantOf(request);
    const day = dayOf(request);
    const language: 'en' | 'th' = format === 'csv' ? 'en' : langOf(request);
    const record = await processingRecord(db, { id: user.tenantId, alias: user.tenantAlias }, day);
    await auditExport(db, auditBy(request), user.tenantId, { format, language, as_of: day });
    return { record, day, language, zone: user.timeZone };
  };

  app.get(
    '/processing-record.csv',
    { config: { permission: 'exports:export' } },
    async (request, reply) => {
      const { record, day } = await exported(request, 'csv');
      async function* rows() {
        yield* csvRows(record);
      }
      return sendCsv(reply, `processing-record-${day}.csv`, columns, rows());
    },
  );

  app.get(
    '/processing-record/print',
    { config: { permission: 'exports:export' } },
    async (request, reply) => {
      const { record, language, zone } = await exported(request, 'print');
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(printableRecord(record, language, zone));
    },
  );
}
