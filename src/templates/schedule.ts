import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { findScheduledOf, listScheduledVersions } from './lifecycle-repository.js';
import { updateVersionIn } from './repository.js';
import { insertReviewStep } from './review-repository.js';
import { getRelease, lockPublishes } from './service.js';
import type { TemplateRow, TemplateVersionRow } from './table.js';

/**
 * Releases that go live later. An approved release with an effective time still to come is
 * published with that time as its `published_at`: numbered and immutable, but no finder of the
 * API sees it before then (repository.ts), and every instance's cache of `latest` turns over
 * within the contract's second. Until then an approver may cancel it.
 */

const instantWithZone =
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * An effective time as written (ISO 8601 with a time zone, such as `2026-12-01T09:00+07:00`),
 * in the form times are stored in; `400 1001` naming `field` when it is not one.
 */
export function effectiveInstant(text: string, field: string): string {
  const ms = instantWithZone.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms) || new Date(ms).getUTCFullYear() > 9999) {
    throw new AppError('invalidRequest', {
      details: [{ field, issue: 'must be an ISO 8601 date and time with a time zone' }],
    });
  }
  return new Date(ms).toISOString();
}

/** Whether a published version's effective time is still to come. */
export function isScheduled(version: Pick<TemplateVersionRow, 'status' | 'published_at'>): boolean {
  return (
    version.status === 'published' &&
    version.published_at !== null &&
    version.published_at > nowIso()
  );
}

/** The template's release scheduled to go live, if any. */
export function scheduledRelease(
  db: Executor,
  template: TemplateRow,
): Promise<TemplateVersionRow | undefined> {
  return findScheduledOf(db, template.tenant_id, template.id);
}

/** The tenant's scheduled releases, soonest first. */
export function scheduledReleases(db: Executor, tenantId: string) {
  return listScheduledVersions(db, tenantId);
}

/**
 * Cancels a scheduled release before it goes live: it is approved no longer, waits for approval
 * again (`reviewed`) and gives its number back. A step of its timeline and an audit entry record
 * who did. `409 1005` once it is live (or was never scheduled): what the API has shown stays.
 */
export async function cancelScheduledRelease(
  trx: Trx,
  by: Actor & { userId: string },
  template: TemplateRow,
  versionId: string,
): Promise<TemplateVersionRow> {
  await lockPublishes(trx, template.tenant_id, template.id);
  const version = await getRelease(trx, template, versionId);
  if (!isScheduled(version)) {
    throw new AppError('conflict', {
      message:
        version.status === 'published'
          ? 'This version is already live: a live version cannot be withdrawn.'
          : 'This version is not scheduled.',
    });
  }
  const now = nowIso();
  await updateVersionIn(trx, version.tenant_id, version.id, 'published', {
    status: 'reviewed',
    version: null,
    published_at: null,
    published_by: null,
    updated_at: now,
  });
  await insertReviewStep(trx, {
    tenant_id: version.tenant_id,
    id: newId(),
    version_id: version.id,
    step: 'schedule_cancelled',
    user_id: by.userId,
    actor: by.actor,
    actor_name: by.actorName ?? null,
    comment: '',
    created_at: now,
  });
  const { userId: _userId, ...actor } = by;
  await recordAudit(trx, {
    ...actor,
    action: 'version.schedule_cancelled',
    target: `${template.code} ${version.tag}`,
    details: {
      version_id: version.id,
      version: version.version,
      effective_at: version.published_at,
    },
  });
  return { ...version, status: 'reviewed', version: null, published_at: null, published_by: null };
}
