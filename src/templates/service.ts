import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { newId } from '../platform/ids.js';
import { lockKey } from '../platform/locks.js';
import { nowIso } from '../platform/time.js';
import { validate } from '../platform/validation.js';
import { productForNewTemplate } from '../products/index.js';
import { queuePublished } from './events.js';
import { deleteContentFile } from './file-repository.js';
import { findScheduledOf, findValidityAsOf } from './lifecycle-repository.js';
import { localeOf } from './locales.js';
import { logReleasePublication } from './publication.js';
import {
  deleteVariant,
  findLatestPublished,
  findPublishedByIdAnyTenant,
  findTemplateByCode,
  findVersionOf,
  highestVersionNumber,
  insertTemplate,
  insertVersion,
  listTemplateSummaries,
  listVariantsOf,
  listVersionsOf,
  type TemplateSummaryRow,
  tagTaken,
  updateDraft,
  updateVersionIn,
  type VersionWithCode,
} from './repository.js';
import { hasVisibleText, sanitizeContent } from './sanitize.js';
import { NewTemplate, NewVariant, NewVersion, type TemplateView } from './schemas.js';
import type { TemplateRow, TemplateVersionRow, VersionStatus } from './table.js';

export { contentFileUrl, presentLocalized, presentVersion } from './present.js';
export type { TemplateSummaryRow, VersionWithCode };

export async function createTemplate(
  trx: Trx,
  tenantId: string,
  input: unknown,
): Promise<TemplateView> {
  const { code, name, description, product: productCode, locale } = validate(NewTemplate, input);
  const defaultLocale = locale === undefined ? 'en' : localeOf(locale, 'locale');
  if (await findTemplateByCode(trx, tenantId, code)) {
    throw new AppError('conflict', { message: `A template with code "${code}" already exists.` });
  }
  const product = await productForNewTemplate(trx, tenantId, productCode);
  const id = newId();
  await insertTemplate(trx, {
    tenant_id: tenantId,
    id,
    code,
    name,
    description: description ?? '',
    product_id: product.id,
    created_at: nowIso(),
    archived_at: null,
    default_locale: defaultLocale,
    validity_months: null,
    data_categories: null,
    representation: null,
  });
  return { id, code, name };
}

/**
 * The template's validity period (calendar months) in force at `at`, ISO 8601 UTC: the setting
 * made last at or before it; null when none was (consent did not lapse then).
 */
export function validityAsOf(
  db: Executor,
  tenantId: string,
  templateId: string,
  at: string,
): Promise<number | null> {
  return findValidityAsOf(db, tenantId, templateId, at);
}

export async function getTemplateByCode(
  db: Executor,
  tenantId: string,
  code: string,
): Promise<TemplateRow> {
  const template = await findTemplateByCode(db, tenantId, code);
  if (!template) throw new AppError('templateNotFound');
  return template;
}

/** Saves a draft version; its HTML is sanitized now, so what is stored is what is shown. */
export async function createDraftVersion(
  trx: Trx,
  template: TemplateRow,
  input: unknown,
): Promise<TemplateVersionRow> {
  const fields = validate(NewVersion, input);
  if (template.archived_at) {
    throw new AppError('conflict', { message: 'This template is archived: restore it first.' });
  }
  await assertTagFree(trx, template, fields.tag);
  const locale =
    fields.locale === undefined ? template.default_locale : localeOf(fields.locale, 'locale');
  const content = storedContent(fields.content_html);
  const now = nowIso();
  const id = newId();
  const row: TemplateVersionRow = {
    tenant_id: template.tenant_id,
    id,
    template_id: template.id,
    release_id: id,
    locale,
    status: 'draft',
    version: null,
    tag: fields.tag,
    content_html: content,
    content_sha256: sha256Hex(content),
    file_url: fields.file_url ?? null,
    content_file: null,
    allow_reconsent: fields.allow_reconsent === false ? 0 : 1,
    created_at: now,
    updated_at: now,
    published_at: null,
    published_by: null,
  };
  await insertVersion(trx, row);
  return row;
}

/**
 * The content as stored and hashed: LF line endings, sanitized, and with something left to read
 * (`400 1001` otherwise: customers must not decide on a blank text).
 */
function storedContent(html: string): string {
  const content = sanitizeContent(html);
  assertVisible(content);
  return content;
}

/** `400 1001` when a version's content has nothing a customer could read. */
export function assertVisible(content: string): void {
  if (!hasVisibleText(content)) {
    throw new AppError('invalidRequest', {
      message:
        'The content has no visible text once unsafe parts are removed (scripts, styles and ' +
        'forms are not kept; an image counts by its alt text).',
    });
  }
}

/**
 * Publishes a version: it takes the next number and becomes immutable. From the back-office only
 * an approved (`reviewed`) version is published; the command line publishes a draft it has just
 * made, outside review. It goes live at `effectiveAt` when that is later than now (scheduled: its
 * `published_at` is that moment, and the API does not show it before), at once otherwise. While
 * a release of the template is scheduled, no other is published (`409 1005`): numbers and go-live
 * times then stay in the same order. Its audit entry is written by `publishRelease` (publish.ts),
 * through which every way of publishing goes.
 */
export async function publishDraft(
  trx: Trx,
  draft: TemplateVersionRow,
  templateCode: string,
  publishedBy: string,
  from: 'draft' | 'reviewed' = 'draft',
  effectiveAt?: string,
): Promise<TemplateVersionRow> {
  if (draft.status !== from) throw notIn(draft, from);
  await lockPublishes(trx, draft.tenant_id, draft.template_id);
  // A draft saved before the rule below may be empty; it is not published either.
  const variants = await listVariantsOf(trx, draft.tenant_id, draft.id);
  for (const variant of variants) assertVisible(variant.content_html);
  const scheduled = await findScheduledOf(trx, draft.tenant_id, draft.template_id);
  if (scheduled) {
    throw new AppError('conflict', {
      message:
        `Version ${scheduled.version} (tag ${scheduled.tag}) is scheduled to go live at ` +
        `${scheduled.published_at}: cancel it, or wait until it is live, before publishing another.`,
    });
  }
  const version = (await highestVersionNumber(trx, draft.tenant_id, draft.template_id)) + 1;
  const now = nowIso();
  const publishedAt = effectiveAt !== undefined && effectiveAt > now ? effectiveAt : now;
  await updateVersionIn(trx, draft.tenant_id, draft.id, from, {
    status: 'published',
    version,
    published_at: publishedAt,
    published_by: publishedBy,
    updated_at: now,
  });
  const published = {
    ...draft,
    status: 'published' as const,
    version,
    published_at: publishedAt,
    published_by: publishedBy,
    updated_at: now,
  };
  await queuePublished(trx, published, templateCode, publishedAt > now);
  await logReleasePublication(trx, published, variants, now);
  return published;
}

/** How the status of a version reads in a sentence. */
export const statusWords: Record<VersionStatus, string> = {
  draft: 'a draft',
  in_review: 'waiting for review',
  reviewed: 'waiting for approval',
  rejected: 'rejected',
  published: 'published',
};

/** `409 1005`: the version is not where the act needs it to be. */
export function notIn(version: TemplateVersionRow, expected: VersionStatus): AppError {
  const message =
    version.status === 'published'
      ? 'This version is already published.'
      : `This version is ${statusWords[version.status]}, not ${statusWords[expected]}.`;
  return new AppError('conflict', { message });
}

/**
 * Publishes of one template take their numbers one at a time; edits of its drafts, steps of
 * review and taking it out of use wait for them too, so a version is never changed while it is
 * being published.
 */
export async function lockPublishes(trx: Trx, tenantId: string, templateId: string): Promise<void> {
  await lockKey(trx, `publish:${tenantId}:${templateId}`);
}

/** The latest published version of a template, if it has one. */
export function findLatestVersion(
  db: Executor,
  tenantId: string,
  templateCode: string,
): Promise<VersionWithCode | undefined> {
  return findLatestPublished(db, tenantId, templateCode);
}

/**
 * A published version of any tenant by id, with its template's name, for the public content
 * file (which carries no key); `404 1004` when there is none.
 */
export async function getPublishedContent(
  db: Executor,
  versionId: string,
): Promise<VersionWithCode & { template_name: string }> {
  const version = await findPublishedByIdAnyTenant(db, versionId.toLowerCase());
  if (!version) throw new AppError('versionNotFound');
  return version;
}

async function assertTagFree(trx: Trx, template: TemplateRow, tag: string): Promise<void> {
  if (await tagTaken(trx, template.tenant_id, template.id, tag)) {
    throw new AppError('conflict', { message: `Tag "${tag}" is already used in this template.` });
  }
}

/**
 * The tenant's templates, by code, each with its product, its latest published version and its
 * drafts; only those of one product when `productId` is given.
 */
export function listTemplates(
  db: Executor,
  tenantId: string,
  productId?: string,
): Promise<TemplateSummaryRow[]> {
  return listTemplateSummaries(db, tenantId, productId);
}

/** A template's versions: drafts first, then published ones from the highest number down. */
export function listVersions(db: Executor, template: TemplateRow): Promise<TemplateVersionRow[]> {
  return listVersionsOf(db, template.tenant_id, template.id);
}

/** A version of the template by id; `404 1004` when the template has no such version. */
export async function getVersion(
  db: Executor,
  template: TemplateRow,
  versionId: string,
): Promise<TemplateVersionRow> {
  const version = await findVersionOf(db, template.tenant_id, template.id, versionId.toLowerCase());
  if (!version) throw new AppError('versionNotFound');
  return version;
}

/**
 * A release of the template by its own id; `404 1004` for any other id, another locale's variant
 * included: review, scheduling and the release's own fields are the release's, not a variant's.
 */
export async function getRelease(
  db: Executor,
  template: TemplateRow,
  releaseId: string,
): Promise<TemplateVersionRow> {
  const version = await getVersion(db, template, releaseId);
  if (version.release_id !== version.id) throw new AppError('versionNotFound');
  return version;
}

/**
 * Replaces a draft's fields (the same rules as a new draft: valid fields, a tag free in the
 * template, sanitized content). A published version is immutable: `409 1005`.
 */
export async function updateDraftVersion(
  trx: Trx,
  template: TemplateRow,
  versionId: string,
  input: unknown,
): Promise<TemplateVersionRow> {
  const fields = validate(NewVersion, input);
  await lockPublishes(trx, template.tenant_id, template.id);
  const draft = await getRelease(trx, template, versionId);
  if (draft.status !== 'draft') {
    const message =
      draft.status === 'published'
        ? 'A published version cannot be changed.'
        : `Only a draft can be changed: this version is ${statusWords[draft.status]}.`;
    throw new AppError('conflict', { message });
  }
  if (fields.tag !== draft.tag) await assertTagFree(trx, template, fields.tag);
  const content = storedContent(fields.content_html);
  const release = {
    tag: fields.tag,
    allow_reconsent: fields.allow_reconsent === false ? 0 : 1,
    updated_at: nowIso(),
  };
  const own = { ...variantContent(content, fields.file_url ?? null, draft), ...release };
  await replaceUploadedIfLinked(trx, draft, own.file_url);
  // The tag and the re-consent rule are the release's: every locale's variant follows them.
  await updateVersionIn(trx, template.tenant_id, draft.id, 'draft', release);
  await updateDraft(trx, template.tenant_id, draft.id, own);
  return { ...draft, ...own };
}

/** A variant's own fields: its sanitized content and hash, its file URL or uploaded file. */
function variantContent(content: string, fileUrl: string | null, current?: TemplateVersionRow) {
  return {
    content_html: content,
    content_sha256: sha256Hex(content),
    file_url: fileUrl,
    // A URL given for the content file replaces an uploaded one.
    content_file: fileUrl === null ? (current?.content_file ?? null) : null,
  };
}

async function replaceUploadedIfLinked(
  trx: Trx,
  variant: TemplateVersionRow,
  fileUrl: string | null,
): Promise<void> {
  if (fileUrl !== null && variant.content_file !== null) {
    await deleteContentFile(trx, variant.tenant_id, variant.id);
  }
}

/** A draft release's variants, its own first. */
export function listVariants(
  db: Executor,
  release: Pick<TemplateVersionRow, 'tenant_id' | 'id'>,
): Promise<TemplateVersionRow[]> {
  return listVariantsOf(db, release.tenant_id, release.id);
}

/**
 * Saves one locale's content of a draft release: a new variant for a locale it lacks, or the
 * content of the one it has (its own locale's included). Sanitized and checked as a draft is.
 * When `adding` (the "Add a locale" form), a locale the release already has is refused (`400
 * 1001` naming `locale`): adding never overwrites a text. Answers the variant saved and the one
 * it replaced, if any.
 */
export async function saveDraftVariant(
  trx: Trx,
  template: TemplateRow,
  releaseId: string,
  input: unknown,
  options: { adding?: boolean } = {},
): Promise<{ variant: TemplateVersionRow; before: TemplateVersionRow | undefined }> {
  const fields = validate(NewVariant, input);
  const locale = localeOf(fields.locale, 'locale');
  await lockPublishes(trx, template.tenant_id, template.id);
  const release = await getRelease(trx, template, releaseId);
  if (release.status !== 'draft') {
    throw new AppError('conflict', {
      message: `Only a draft can be changed: this version is ${statusWords[release.status]}.`,
    });
  }
  const variants = await listVariantsOf(trx, template.tenant_id, release.id);
  const current = variants.find((v) => v.locale === locale);
  if (current && options.adding) {
    throw new AppError('invalidRequest', {
      message: `This draft already has a ${locale} text: change it in its own tab. Adding a locale never replaces a text.`,
    });
  }
  const content = storedContent(fields.content_html);
  const now = nowIso();
  const own = variantContent(content, fields.file_url ?? null, current);
  if (current) {
    await replaceUploadedIfLinked(trx, current, own.file_url);
    await updateDraft(trx, template.tenant_id, current.id, { ...own, updated_at: now });
    return { variant: { ...current, ...own, updated_at: now }, before: current };
  }
  const row: TemplateVersionRow = {
    ...release,
    ...own,
    id: newId(),
    locale,
    content_file: null,
    created_at: now,
    updated_at: now,
  };
  await insertVersion(trx, row);
  return { variant: row, before: undefined };
}

/** Drops a locale from a draft release (never the release's own row); the variant dropped, if any. */
export async function removeDraftVariant(
  trx: Trx,
  template: TemplateRow,
  releaseId: string,
  locale: string,
): Promise<TemplateVersionRow | undefined> {
  await lockPublishes(trx, template.tenant_id, template.id);
  const release = await getRelease(trx, template, releaseId);
  if (release.status !== 'draft') throw notIn(release, 'draft');
  const variant = (await listVariantsOf(trx, template.tenant_id, release.id)).find(
    (v) => v.locale === locale && v.id !== release.id,
  );
  if (!variant) return undefined;
  await deleteContentFile(trx, template.tenant_id, variant.id);
  await deleteVariant(trx, template.tenant_id, variant.id);
  return variant;
}
