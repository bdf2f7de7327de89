import { type Actor, recordAudit } from '../audit-trail/index.js';
import { forgetReleasePartners, partnersOfRelease, setReleasePartners } from '../partners/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { nowIso } from '../platform/time.js';
import { validate } from '../platform/validation.js';
import { findProduct, productForNewTemplate } from '../products/index.js';
import { type Author, recordEdit } from './authorship.js';
import { queueArchived } from './events.js';
import {
  anyVersionPublished,
  deleteTemplateRows,
  listLocalesOf,
  setTemplateArchivedAt,
  setTemplateValidity,
  updateTemplateDetails,
} from './lifecycle-repository.js';
import { localeOf } from './locales.js';
import { publishRelease } from './publish.js';
import { countCustomersOnVersion, countCustomersPerTemplate } from './reach-repository.js';
import type { VersionWithCode } from './repository.js';
import { TemplateDetails, type TemplateView } from './schemas.js';
import {
  createDraftVersion,
  createTemplate,
  findLatestVersion,
  getRelease,
  getTemplateByCode,
  listVariants,
  listVersions,
  lockPublishes,
  removeDraftVariant,
  saveDraftVariant,
  updateDraftVersion,
} from './service.js';
import type { TemplateRow, TemplateVersionRow } from './table.js';
import { validityMonthsOf } from './validity.js';

/** Creates a template (see `createTemplate`) and records who did. */
export async function createTemplateAs(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  input: unknown,
): Promise<TemplateView> {
  const created = await createTemplate(trx, tenantId, input);
  await recordAudit(trx, {
    ...actor,
    action: 'template.created',
    target: created.code,
    details: { name: created.name },
  });
  return created;
}

/**
 * Saves a new draft of the template (see `createDraftVersion`) and records who did. With `from`,
 * a published or rejected release of the template, the draft also starts with that release's
 * other locales' texts (its own locale's text is the one given): a new draft carries every locale
 * of the latest release, or of the release just rejected. Each locale it starts with is a change
 * of its timeline, by its creator.
 */
export async function createDraftAs(
  trx: Trx,
  by: Author,
  template: TemplateRow,
  input: unknown,
  from?: string,
): Promise<TemplateVersionRow> {
  const draft = await createDraftVersion(trx, template, input);
  const created = { releaseId: draft.id, tenantId: draft.tenant_id, kind: 'created' as const };
  await recordEdit(trx, by, { ...created, locale: draft.locale, before: undefined, after: draft });
  const carried: string[] = [];
  if (from !== undefined && from !== '') {
    const source = await getRelease(trx, template, from);
    if (source.status !== 'published' && source.status !== 'rejected') {
      throw new AppError('invalidRequest', {
        message: 'A new draft starts from a published or a rejected version only.',
      });
    }
    for (const variant of await listVariants(trx, source)) {
      if (variant.locale === draft.locale) continue;
      const { variant: saved } = await saveDraftVariant(trx, template, draft.id, {
        locale: variant.locale,
        content_html: variant.content_html,
        file_url: variant.file_url,
      });
      await recordEdit(trx, by, {
        ...created,
        locale: saved.locale,
        before: undefined,
        after: saved,
      });
      carried.push(saved.locale);
    }
    // The partners its text allows come with the text; the draft may change them.
    const partners = await partnersOfRelease(trx, template.tenant_id, source.id);
    if (partners.length > 0) {
      await setReleasePartners(
        trx,
        template.tenant_id,
        draft.id,
        partners.map((p) => p.code),
      );
    }
  }
  const { userId: _userId, ...actor } = by;
  await recordAudit(trx, {
    ...actor,
    action: 'version.draft_created',
    target: `${template.code} ${draft.tag}`,
    details: {
      version_id: draft.id,
      content_sha256: draft.content_sha256,
      ...(carried.length === 0 ? {} : { from_version_id: from, locales_carried: carried }),
    },
  });
  return draft;
}

/** Replaces a draft's fields (see `updateDraftVersion`) and records who did, and how its text changed. */
export async function updateDraftAs(
  trx: Trx,
  by: Author,
  template: TemplateRow,
  versionId: string,
  input: unknown,
): Promise<TemplateVersionRow> {
  await lockPublishes(trx, template.tenant_id, template.id);
  const before = await getRelease(trx, template, versionId);
  const draft = await updateDraftVersion(trx, template, versionId, input);
  if (before.content_sha256 !== draft.content_sha256) {
    await recordEdit(trx, by, {
      releaseId: draft.id,
      tenantId: draft.tenant_id,
      kind: 'edited',
      locale: draft.locale,
      before,
      after: draft,
    });
  }
  const { userId: _userId, ...actor } = by;
  await recordAudit(trx, {
    ...actor,
    action: 'version.draft_updated',
    target: `${template.code} ${draft.tag}`,
    details: { version_id: draft.id, content_sha256: draft.content_sha256 },
  });
  return draft;
}

/** What publishing a draft of the template now would do. */
export interface PublishEffect {
  /** The version the API answers today, if any. */
  latest: VersionWithCode | undefined;
  /** The number the draft would take. */
  nextNumber: number;
  /** Customers who decided on `latest`: they become pending. */
  customersMadePending: number;
}

export async function publishEffect(db: Executor, template: TemplateRow): Promise<PublishEffect> {
  const latest = await findLatestVersion(db, template.tenant_id, template.code);
  const customersMadePending = latest
    ? await countCustomersDecidedOn(db, template.tenant_id, latest.id)
    : 0;
  return { latest, nextNumber: (latest?.version ?? 0) + 1, customersMadePending };
}

/** A template with its versions and how many customers decided on it. */
export async function templateOverview(
  db: Executor,
  tenantId: string,
  code: string,
): Promise<{ template: TemplateRow; versions: TemplateVersionRow[]; customers: number }> {
  const template = await getTemplateByCode(db, tenantId, code);
  const [versions, customers] = await Promise.all([
    listVersions(db, template),
    customersPerTemplate(db, tenantId),
  ]);
  return { template, versions, customers: customers.get(template.id) ?? 0 };
}

/**
 * Creates and publishes a version in one step, outside review and approval: the operator's tool
 * on the command line (contract section 9), with its other locales' variants; live at once, or
 * from `effectiveAt` when later. Recorded as such in the audit log, with the number of
 * customers it made pending, so that a reader of the log sees which versions no reviewer saw.
 */
export async function publishOutsideReview(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  templateCode: string,
  input: unknown,
  more: { effectiveAt?: string; variants?: unknown[]; partners?: readonly string[] } = {},
): Promise<VersionWithCode> {
  const template = await getTemplateByCode(trx, tenantId, templateCode);
  const { customersMadePending } = await publishEffect(trx, template);
  const draft = await createDraftVersion(trx, template, input);
  for (const variant of more.variants ?? []) {
    await saveDraftVariant(trx, template, draft.id, variant, { adding: true });
  }
  if (more.partners !== undefined) {
    await setReleasePartners(trx, tenantId, draft.id, more.partners);
  }
  return publishRelease(trx, template, draft, {
    by: { ...actor, tenantId },
    from: 'draft',
    effectiveAt: more.effectiveAt,
    customersMadePending,
    details: { review: 'bypassed' },
  });
}

/**
 * Takes a template out of use, and records who did. One never published (drafts only) is
 * deleted with its drafts: nothing can refer to it. One with a published version is archived,
 * decisions or not: `latest` and `pending` answer `404 1004` (within the catalog's second), and
 * its versions, decisions, receipts and log stay. A published version's id is public and cached
 * by every instance, so a decision may name it at any moment: deleting it could orphan one.
 */
export async function retireTemplate(
  trx: Trx,
  actor: Actor,
  template: TemplateRow,
): Promise<'deleted' | 'archived'> {
  // Under the publish lock: no version of it is published meanwhile.
  await lockPublishes(trx, template.tenant_id, template.id);
  if (!(await anyVersionPublished(trx, template.tenant_id, template.id))) {
    const drafts = await listVersions(trx, template);
    await forgetReleasePartners(
      trx,
      template.tenant_id,
      drafts.map((v) => v.release_id),
    );
    const versions = await deleteTemplateRows(trx, template.tenant_id, template.id);
    await recordAudit(trx, {
      ...actor,
      action: 'template.deleted',
      target: template.code,
      details: { name: template.name, drafts: versions },
    });
    return 'deleted';
  }
  if (!template.archived_at) {
    const archivedAt = nowIso();
    const latest = await findLatestVersion(trx, template.tenant_id, template.code);
    await setTemplateArchivedAt(trx, template.tenant_id, template.id, archivedAt);
    if (latest) await queueArchived(trx, latest, template.code, archivedAt);
    await recordAudit(trx, { ...actor, action: 'template.archived', target: template.code });
  }
  return 'archived';
}

/**
 * Changes a template's name, product, default locale and validity period, and records what
 * changed (from, to). The product must be an active one of the tenant; the default locale one
 * the template has a text in (any, while it has no version): a request naming no locale gets it;
 * the validity period as `validityMonthsOf` reads it (absent: unchanged). `400 1001` otherwise.
 * Its code never changes: client systems call the API by it.
 */
export async function changeTemplateAs(
  trx: Trx,
  actor: Actor,
  template: TemplateRow,
  input: unknown,
): Promise<TemplateRow> {
  const fields = validate(TemplateDetails, input);
  const locale = localeOf(fields.default_locale, 'default_locale');
  const validity =
    fields.validity_months === undefined
      ? template.validity_months
      : validityMonthsOf(fields.validity_months);
  await lockPublishes(trx, template.tenant_id, template.id);
  const has = await listLocalesOf(trx, template.tenant_id, template.id);
  if (has.length > 0 && !has.includes(locale)) {
    throw new AppError('invalidRequest', {
      message: `The default locale must be one the template has a text in: ${has.join(', ')}.`,
      details: [{ field: 'default_locale', issue: `must be one of ${has.join(', ')}` }],
    });
  }
  const before = template.product_id
    ? await findProduct(trx, template.tenant_id, template.product_id)
    : undefined;
  // Its own product stays allowed, archived or not; another must be active.
  const product =
    before?.code === fields.product
      ? before
      : await productForNewTemplate(trx, template.tenant_id, fields.product);
  const next = { name: fields.name, product_id: product.id, default_locale: locale };
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  if (template.name !== next.name) changes.name = { from: template.name, to: next.name };
  if (template.product_id !== next.product_id) {
    changes.product = { from: before?.code ?? null, to: product.code };
  }
  if (template.default_locale !== locale) {
    changes.default_locale = { from: template.default_locale, to: locale };
  }
  if (template.validity_months !== validity) {
    changes.validity_months = { from: template.validity_months, to: validity };
  }
  if (Object.keys(changes).length === 0) return template;
  await updateTemplateDetails(trx, template.tenant_id, template.id, next);
  if (changes.validity_months) {
    await setTemplateValidity(trx, template.tenant_id, template.id, validity, nowIso());
  }
  await recordAudit(trx, {
    ...actor,
    action: 'template.changed',
    target: template.code,
    details: changes,
  });
  return { ...template, ...next, validity_months: validity };
}

/**
 * Sets how many calendar months a customer's `given` on the template stays valid (`null`: it
 * never lapses), as `validityMonthsOf` reads `input`, and records the change as
 * `template.changed` (from, to). Seen by `pending` within the second a publish takes; `as-of`
 * applies it from now on, never to moments before.
 */
export async function changeValidityAs(
  trx: Trx,
  actor: Actor,
  template: TemplateRow,
  input: unknown,
): Promise<TemplateRow> {
  const validity = validityMonthsOf(input);
  await lockPublishes(trx, template.tenant_id, template.id);
  if (template.validity_months === validity) return template;
  await setTemplateValidity(trx, template.tenant_id, template.id, validity, nowIso());
  await recordAudit(trx, {
    ...actor,
    action: 'template.changed',
    target: template.code,
    details: { validity_months: { from: template.validity_months, to: validity } },
  });
  return { ...template, validity_months: validity };
}

/** Puts an archived template back in use: the API answers its latest version again. */
export async function restoreTemplate(
  trx: Trx,
  actor: Actor,
  template: TemplateRow,
): Promise<void> {
  if (!template.archived_at) return;
  await setTemplateArchivedAt(trx, template.tenant_id, template.id, null);
  await recordAudit(trx, { ...actor, action: 'template.restored', target: template.code });
}

/**
 * Saves another locale's text of a draft release (see `saveDraftVariant`; `adding` refuses a
 * locale it has), and records who did and how its text changed.
 */
export async function saveDraftVariantAs(
  trx: Trx,
  by: Author,
  template: TemplateRow,
  releaseId: string,
  input: unknown,
  options: { adding?: boolean } = {},
): Promise<TemplateVersionRow> {
  const { variant, before } = await saveDraftVariant(trx, template, releaseId, input, options);
  if (before?.content_sha256 !== variant.content_sha256) {
    await recordEdit(trx, by, {
      releaseId,
      tenantId: variant.tenant_id,
      kind: before ? 'edited' : 'locale_added',
      locale: variant.locale,
      before,
      after: variant,
    });
  }
  const { userId: _userId, ...actor } = by;
  await recordAudit(trx, {
    ...actor,
    action: 'version.locale_saved',
    target: `${template.code} ${variant.tag}`,
    details: {
      version_id: releaseId,
      locale: variant.locale,
      consent_version_id: variant.id,
      content_sha256: variant.content_sha256,
    },
  });
  return variant;
}

/** Drops a locale from a draft release (see `removeDraftVariant`), and records who did. */
export async function removeDraftVariantAs(
  trx: Trx,
  by: Author,
  template: TemplateRow,
  releaseId: string,
  locale: string,
): Promise<void> {
  const removed = await removeDraftVariant(trx, template, releaseId, locale);
  if (removed) {
    await recordEdit(trx, by, {
      releaseId,
      tenantId: removed.tenant_id,
      kind: 'locale_removed',
      locale,
      before: removed,
      after: undefined,
    });
    const { userId: _userId, ...actor } = by;
    await recordAudit(trx, {
      ...actor,
      action: 'version.locale_removed',
      target: template.code,
      details: { version_id: releaseId, locale },
    });
  }
}

/** Customers with at least one decision on the version: those a newer version makes pending. */
export async function countCustomersDecidedOn(
  db: Executor,
  tenantId: string,
  versionId: string,
): Promise<number> {
  return countCustomersOnVersion(db, tenantId, versionId);
}

/** Customers with at least one decision, per template id. */
export async function customersPerTemplate(
  db: Executor,
  tenantId: string,
): Promise<Map<string, number>> {
  const rows = await countCustomersPerTemplate(db, tenantId);
  return new Map(rows.map((row) => [row.template_id, Number(row.count)]));
}
