/**
 * The record of processing (PDPA section 39; docs/pdpa.md): generated, as of a day, from what the
 * service keeps (each template live then, by its logged publication: its purpose, the data it
 * covers, the legal basis, its retention, the partners its release listed as recipients and
 * transfers abroad; the contact channels; the refusals of data-subject requests), completed by
 * what the tenant fills in (the controller, the DPO, the security measures). No HTTP here.
 */
import { type Actor, recordAudit } from '../audit-trail/index.js';
import { tenantChannels } from '../channels/index.js';
import { listPartners } from '../partners/index.js';
import { startOfDayIn } from '../platform/calendar.js';
import type { Db, Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { nowIso } from '../platform/time.js';
import { templatesLiveAt } from '../publications/index.js';
import { type Refusal, refusalsBy } from '../requests/index.js';
import { dataCategoriesOf, listTemplates } from '../templates/index.js';
import { getTenantSettings } from '../tenants/index.js';
import { findFields, saveFields } from './repository.js';

/** What the tenant fills in. */
export interface ControllerFields {
  controller_name: string;
  controller_address: string;
  controller_contact: string;
  dpo_name: string;
  dpo_contact: string;
  security_measures: string;
}

/** A recipient of a template's data: a partner its release listed. */
export interface Recipient {
  code: string;
  name: string;
  purpose: string;
  /** ISO 3166-1 alpha-2, or null when not given. */
  country: string | null;
  /** A country other than Thailand (sections 28 and 29). */
  abroad: boolean;
}

/** One purpose of processing: a template live on the day. */
export interface Activity {
  template_code: string;
  name: string;
  purpose: string;
  version: number;
  live_since: string;
  /** `consent` (section 19), or `explicit_consent` for sensitive data (section 26). */
  legal_basis: 'consent' | 'explicit_consent';
  data_categories: string[];
  /** The validity of a consent, in months; null: until it is withdrawn. */
  retention_months: number | null;
  recipients: Recipient[];
}

/** The record as of a day. */
export interface ProcessingRecord {
  tenant_alias: string;
  /** The day (in the tenant's time zone) the record is as of: its end counts. */
  as_of: string;
  time_zone: string;
  generated_at: string;
  fields: ControllerFields & { updated_at: string | null };
  activities: Activity[];
  channels: { code: string; name: string }[];
  refusals: Refusal[];
}

const empty: ControllerFields = {
  controller_name: '',
  controller_address: '',
  controller_contact: '',
  dpo_name: '',
  dpo_contact: '',
  security_measures: '',
};

/** The record as of the end of `day` (`YYYY-MM-DD`) in the tenant's time zone. */
export async function processingRecord(
  db: Executor,
  tenant: { id: string; alias: string },
  day: string,
): Promise<ProcessingRecord> {
  const { timeZone } = await getTenantSettings(db, tenant.id);
  const end = startOfDayIn(day, timeZone, 1);
  const at = new Date(Date.parse(end) - 1).toISOString();
  const live = await templatesLiveAt(db, tenant.id, at);
  const partners = new Map((await listPartners(db, tenant.id)).map((p) => [p.code, p]));
  const activities: Activity[] = [];
  for (const template of await listTemplates(db, tenant.id)) {
    const published = live.get(template.id);
    if (!published) continue;
    const categories = dataCategoriesOf(template);
    activities.push({
      template_code: template.code,
      name: template.name,
      purpose: template.description,
      version: published.version,
      live_since: published.effective,
      legal_basis: categories.length > 0 ? 'explicit_consent' : 'consent',
      data_categories: categories,
      retention_months: template.validity_months,
      recipients: published.partners.map((code) => {
        const partner = partners.get(code);
        const country = partner?.country ?? null;
        return {
          code,
          name: partner?.name ?? code,
          purpose: partner?.purpose ?? '',
          country,
          abroad: country !== null && country !== 'TH',
        };
      }),
    });
  }
  activities.sort((a, b) => (a.template_code < b.template_code ? -1 : 1));
  const stored = await findFields(db, tenant.id);
  return {
    tenant_alias: tenant.alias,
    as_of: day,
    time_zone: timeZone,
    generated_at: nowIso(),
    fields: stored
      ? {
          controller_name: stored.controller_name,
          controller_address: stored.controller_address,
          controller_contact: stored.controller_contact,
          dpo_name: stored.dpo_name,
          dpo_contact: stored.dpo_contact,
          security_measures: stored.security_measures,
          updated_at: stored.updated_at,
        }
      : { ...empty, updated_at: null },
    activities,
    channels: (await tenantChannels(db, tenant.id)).map((c) => ({ code: c.code, name: c.name })),
    refusals: await refusalsBy(db, tenant.id, at),
  };
}

const limits: Record<keyof ControllerFields, number> = {
  controller_name: 200,
  controller_address: 1000,
  controller_contact: 500,
  dpo_name: 200,
  dpo_contact: 500,
  security_measures: 8000,
};

/** Saves what the tenant fills in, audited (`processing_record.changed`, the fields changed). */
export async function saveControllerFields(
  db: Db,
  actor: Actor,
  tenantId: string,
  fields: ControllerFields,
): Promise<void> {
  const details = Object.entries(limits)
    .filter(([name, max]) => fields[name as keyof ControllerFields].length > max)
    .map(([name, max]) => ({ field: name, issue: `at most ${max} characters` }));
  if (details.length > 0) throw new AppError('invalidRequest', { details });
  await db.transaction().execute(async (trx) => {
    const before = await findFields(trx, tenantId);
    const changed = (Object.keys(limits) as (keyof ControllerFields)[]).filter(
      (name) => (before?.[name] ?? '') !== fields[name],
    );
    if (changed.length === 0) return;
    await saveFields(trx, { tenant_id: tenantId, ...fields, updated_at: nowIso() });
    await recordAudit(trx, {
      ...actor,
      tenantId,
      action: 'processing_record.changed',
      target: null,
      details: { fields: changed },
    });
  });
}

/** Records an export of the record: its form, language and day (`processing_record.exported`). */
export async function auditExport(
  db: Executor,
  actor: Actor,
  tenantId: string,
  exported: { format: 'csv' | 'print'; language: 'en' | 'th'; as_of: string },
): Promise<void> {
  await recordAudit(db, {
    ...actor,
    tenantId,
    action: 'processing_record.exported',
    target: null,
    details: exported,
  });
}
