import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { getTenantSettings } from '../tenants/index.js';
import { publishEffect } from './actions.js';
import { authorsOf, releaseEdits, textsAt } from './authorship.js';
import { listAuthorsOfUnpublished } from './edit-repository.js';
import { queueApproved } from './events.js';
import {
  fourEyesBar,
  fourEyesMessage,
  type GuardedStep,
  mayPassOrApprove,
  type ReviewHistory,
} from './four-eyes.js';
import { publishRelease } from './publish.js';
import { findLatestRelease, listVariantsOf, updateVersionIn } from './repository.js';
import {
  insertReviewStep,
  listReviewSteps,
  listReviewStepsOfUnpublished,
  listUnpublishedVersions,
  type UnpublishedVersionRow,
} from './review-repository.js';
import {
  assertVisible,
  getRelease,
  lockPublishes,
  notIn,
  type VersionWithCode,
} from './service.js';
import type {
  ReviewStep,
  TemplateRow,
  TemplateVersionRow,
  VersionEditRow,
  VersionReviewRow,
  VersionStatus,
} from './table.js';

/** Who takes a step: the audit log's actor, and the user, whom the four-eyes rule compares. */
export type Reviewer = Actor & { userId: string };

/** Comments are for people; a page of text is the most a step keeps. */
export const commentMaxLength = 2000;

interface Move {
  step: ReviewStep;
  from: VersionStatus;
  to: VersionStatus;
  /** Whether the step needs a comment (saying why a version goes back or is refused). */
  commentRequired: boolean;
  /** The step four eyes guards, if it is one (see `four-eyes.ts`). */
  guarded: GuardedStep | undefined;
  /** The audit log's action. */
  action: string;
}

const moves = {
  submitted: {
    step: 'submitted',
    from: 'draft',
    to: 'in_review',
    commentRequired: false,
    guarded: undefined,
    action: 'version.submitted',
  },
  sent_back: {
    step: 'sent_back',
    from: 'in_review',
    to: 'draft',
    commentRequired: true,
    guarded: undefined,
    action: 'version.sent_back',
  },
  passed: {
    step: 'passed',
    from: 'in_review',
    to: 'reviewed',
    commentRequired: false,
    guarded: 'passed',
    action: 'version.review_passed',
  },
  approved: {
    step: 'approved',
    from: 'reviewed',
    to: 'published',
    commentRequired: false,
    guarded: 'approved',
    action: 'version.approved',
  },
  rejected: {
    step: 'rejected',
    from: 'reviewed',
    to: 'rejected',
    commentRequired: true,
    guarded: undefined,
    action: 'version.rejected',
  },
} as const satisfies Record<Exclude<ReviewStep, 'schedule_cancelled'>, Move>;

/** A version's steps of review, oldest first: its timeline. */
export function reviewTimeline(
  db: Executor,
  version: TemplateVersionRow,
): Promise<VersionReviewRow[]> {
  return listReviewSteps(db, version.tenant_id, version.id);
}

/** A release's timeline and changes with the tenant's settings: what the four-eyes rule reads. */
export interface VersionHistory extends ReviewHistory {
  steps: VersionReviewRow[];
  /** Every change of its text, oldest first. */
  edits: VersionEditRow[];
}

export async function reviewHistory(
  db: Executor,
  version: TemplateVersionRow,
): Promise<VersionHistory> {
  const [steps, edits, settings] = await Promise.all([
    reviewTimeline(db, version),
    releaseEdits(db, version),
    getTenantSettings(db, version.tenant_id),
  ]);
  return {
    fourEyes: settings.fourEyes,
    distinctApprover: settings.distinctApprover,
    steps,
    edits,
    authors: authorsOf(edits),
  };
}

/** What changed in one locale since a reviewer's last review of the release. */
export interface ChangeSinceReview {
  locale: string;
  /** The text when they last reviewed it; undefined when the locale was not there then. */
  before: string | undefined;
  /** The text now; undefined when the locale was removed since. */
  after: string | undefined;
}

/**
 * The changes of a release since the user's last review of it (their last step sending it back
 * or passing it), locale by locale, or undefined when they never reviewed it or its changes were
 * not recorded then (a draft older than the record of changes).
 */
export function changesSinceReview(
  history: VersionHistory,
  variants: readonly TemplateVersionRow[],
  userId: string,
): { at: string; changes: ChangeSinceReview[] } | undefined {
  const last = history.steps.findLast(
    (s) => s.user_id === userId && (s.step === 'sent_back' || s.step === 'passed'),
  );
  if (!last || history.edits.length === 0) return undefined;
  const then = textsAt(history.edits, last.created_at);
  const now = new Map(variants.map((v) => [v.locale, v.content_html]));
  const locales = [...new Set([...now.keys(), ...then.keys()])];
  return {
    at: last.created_at,
    changes: locales.map((locale) => ({
      locale,
      before: then.get(locale),
      after: now.get(locale),
    })),
  };
}

function checkComment(comment: string, required: boolean): string {
  const text = comment.trim();
  const issue =
    required && text === ''
      ? 'is required: say what must change, or why'
      : text.length > commentMaxLength
        ? `must be at most ${commentMaxLength} characters`
        : undefined;
  if (issue) {
    throw new AppError('invalidRequest', { details: [{ field: 'comment', issue }] });
  }
  return text;
}

/**
 * Takes one step of review on a version of the template: checks the comment, that the version is
 * where the step starts (`409 1005` when someone moved it first: the step is read and written
 * under the template's publish lock), and the four-eyes rule (`403`); then records the step, its
 * audit entry, and the new status.
 */
async function takeStep(
  trx: Trx,
  by: Reviewer,
  move: Move,
  template: TemplateRow,
  versionId: string,
  comment: string,
  /** A check of the step's own, once the version's status and four eyes allow it. */
  check?: () => void,
): Promise<{ version: TemplateVersionRow; steps: VersionReviewRow[] }> {
  const text = checkComment(comment, move.commentRequired);
  await lockPublishes(trx, template.tenant_id, template.id);
  const version = await getRelease(trx, template, versionId);
  if (version.status !== move.from) throw notIn(version, move.from);
  // A draft saved before empty content was refused may be empty: nobody reviews a blank text.
  if (move.step === 'submitted') assertVisible(version.content_html);
  const steps = await listReviewSteps(trx, version.tenant_id, version.id);
  if (move.guarded) {
    const [settings, edits] = await Promise.all([
      getTenantSettings(trx, template.tenant_id),
      releaseEdits(trx, version),
    ]);
    const history = { ...settings, steps, authors: authorsOf(edits) };
    const bar = fourEyesBar(history, by.userId, move.guarded);
    if (bar) throw new AppError('forbidden', { message: fourEyesMessage(bar, move.guarded) });
  }
  check?.();
  const row: VersionReviewRow = {
    tenant_id: version.tenant_id,
    id: newId(),
    version_id: version.id,
    step: move.step,
    user_id: by.userId,
    actor: by.actor,
    actor_name: by.actorName ?? null,
    comment: text,
    created_at: nowIso(),
  };
  await insertReviewStep(trx, row);
  const { userId: _userId, ...actor } = by;
  await recordAudit(trx, {
    ...actor,
    action: move.action,
    target: `${template.code} ${version.tag}`,
    details: { version_id: version.id, ...(text === '' ? {} : { comment: text }) },
  });
  if (move.to !== 'published') {
    await updateVersionIn(trx, version.tenant_id, version.id, move.from, {
      status: move.to,
      updated_at: row.created_at,
    });
  }
  return { version: { ...version, status: move.to }, steps: [...steps, row] };
}

/**
 * Takes a step that moves a version between the statuses of review: `submitted` (a draft, with
 * an optional note for the reviewer), `sent_back` to draft (saying what must change), `passed`
 * on to approval (four eyes: not by its authors nor its submitters), `rejected` for good (saying why). Approval,
 * which also publishes, is `approveVersion`.
 */
export async function takeReviewStep(
  trx: Trx,
  by: Reviewer,
  step: Exclude<ReviewStep, 'approved' | 'schedule_cancelled'>,
  template: TemplateRow,
  versionId: string,
  comment: string,
): Promise<TemplateVersionRow> {
  return (await takeStep(trx, by, moves[step], template, versionId, comment)).version;
}

/**
 * Approves a reviewed version, which publishes it: it takes the next number and the API answers
 * it from `effectiveAt` (a stored-form instant), or at once when that is past, or absent and
 * `atOnce` confirms it (`400 1001` when neither is given: a blank time is no choice). Four
 * eyes: see `four-eyes.ts`. The audit log gets the approval and the publication, with the
 * number of customers it made pending (counted now: a scheduled release's page counts again until
 * it goes live).
 */
export async function approveVersion(
  trx: Trx,
  by: Reviewer,
  template: TemplateRow,
  versionId: string,
  approval: {
    comment: string;
    effectiveAt?: string | undefined;
    /** Publishing at once is a choice of its own: no go-live time alone publishes nothing. */
    atOnce?: boolean;
    dropLocales?: boolean;
  },
): Promise<{ version: VersionWithCode; customersMadePending: number }> {
  const { comment, effectiveAt } = approval;
  const { customersMadePending } = await publishEffect(trx, template);
  const { dropped } = await compareWithLatest(trx, template, versionId);
  if (dropped.length > 0 && !approval.dropLocales) {
    throw new AppError('invalidRequest', {
      message:
        `The latest version is also in ${dropped.join(', ')}, which this one lacks: confirm ` +
        'dropping it, or add it first. Customers asking for it would get the default locale.',
      details: [{ field: 'drop_locales', issue: `must be confirmed: ${dropped.join(', ')}` }],
    });
  }
  const { version: reviewed } = await takeStep(
    trx,
    by,
    moves.approved,
    template,
    versionId,
    comment,
    () => {
      if (effectiveAt === undefined && approval.atOnce !== true) {
        throw new AppError('invalidRequest', {
          message:
            'Give a go-live time, or tick "Publish at once" to publish now: an empty time alone publishes nothing.',
          details: [
            { field: 'publish_now', issue: 'must be confirmed when no go-live time is given' },
          ],
        });
      }
    },
  );
  await queueApproved(trx, reviewed, template.code);
  const { userId: _userId, ...actor } = by;
  const version = await publishRelease(
    trx,
    template,
    { ...reviewed, status: 'reviewed' },
    {
      by: actor,
      from: 'reviewed',
      effectiveAt,
      customersMadePending,
      ...(dropped.length === 0 ? {} : { details: { dropped_locales: dropped } }),
    },
  );
  return { version, customersMadePending };
}

/** A release beside the template's latest live one, locale by locale. */
export interface ReleaseComparison {
  /** The release's variants, its own first. */
  variants: TemplateVersionRow[];
  /** The latest live release's variants, by locale (none before the first). */
  latest: Map<string, TemplateVersionRow>;
  /** The latest release's locales this one lacks. */
  dropped: string[];
}

export async function compareWithLatest(
  db: Executor,
  template: TemplateRow,
  releaseId: string,
): Promise<ReleaseComparison> {
  const [latest, variants] = await Promise.all([
    findLatestRelease(db, template.tenant_id, template.code),
    listVariantsOf(db, template.tenant_id, releaseId),
  ]);
  const has = new Set(variants.map((v) => v.locale));
  return {
    variants,
    latest: new Map(latest.map((v) => [v.locale, v])),
    dropped: latest.map((v) => v.locale).filter((locale) => !has.has(locale)),
  };
}

/** A version waiting at a step somebody can take. */
export interface WaitingVersion extends UnpublishedVersionRow {
  /** The step it waits for: a review, an approval, or changes after it was sent back. */
  waitsFor: 'review' | 'approval' | 'changes';
  /** The last step taken on it. */
  last: VersionReviewRow;
  /** Its steps, oldest first, and who wrote it: what four eyes reads. */
  steps: VersionReviewRow[];
  authors: string[];
}

/**
 * The tenant's versions waiting for a step, each with what it waits for. Drafts wait for changes
 * only once sent back; a draft never submitted is its writer's own business.
 */
export async function versionsWaiting(db: Executor, tenantId: string): Promise<WaitingVersion[]> {
  const [versions, steps, authors] = await Promise.all([
    listUnpublishedVersions(db, tenantId),
    listReviewStepsOfUnpublished(db, tenantId),
    listAuthorsOfUnpublished(db, tenantId),
  ]);
  const stepsOf = new Map<string, VersionReviewRow[]>();
  for (const step of steps)
    stepsOf.set(step.version_id, [...(stepsOf.get(step.version_id) ?? []), step]);
  const authorsOfRelease = new Map<string, string[]>();
  for (const a of authors)
    authorsOfRelease.set(a.release_id, [...(authorsOfRelease.get(a.release_id) ?? []), a.user_id]);
  const waiting: WaitingVersion[] = [];
  for (const version of versions) {
    const own = stepsOf.get(version.id) ?? [];
    const last = own.at(-1);
    if (!last) continue;
    const waitsFor =
      version.status === 'in_review'
        ? 'review'
        : version.status === 'reviewed'
          ? 'approval'
          : last.step === 'sent_back'
            ? 'changes'
            : undefined;
    if (waitsFor) {
      waiting.push({
        ...version,
        waitsFor,
        last,
        steps: own,
        authors: authorsOfRelease.get(version.id) ?? [],
      });
    }
  }
  return waiting;
}

/**
 * The versions waiting for a step this user may take: changes to those sent back (`edit`), a
 * review (`review`), an approval (`approve`). A version four eyes keeps from the user (they wrote
 * or submitted it, or passed its review) does not wait for their review or approval.
 */
export async function versionsWaitingFor(
  db: Executor,
  tenantId: string,
  user: { userId: string; may: { edit: boolean; review: boolean; approve: boolean } },
): Promise<WaitingVersion[]> {
  const [waiting, settings] = await Promise.all([
    versionsWaiting(db, tenantId),
    getTenantSettings(db, tenantId),
  ]);
  return waiting.filter((v) =>
    v.waitsFor === 'changes'
      ? user.may.edit
      : (v.waitsFor === 'review' ? user.may.review : user.may.approve) &&
        mayPassOrApprove(
          { ...settings, steps: v.steps, authors: v.authors },
          user.userId,
          v.waitsFor === 'review' ? 'passed' : 'approved',
        ),
  );
}
