import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Permission } from '../../accounts/index.js';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import type { ReviewStep, TemplateRow, TemplateVersionRow } from '../../templates/index.js';
import {
  approveVersion,
  cancelScheduledRelease,
  changesSinceReview,
  compareWithLatest,
  contentDiff,
  fourEyesBar,
  fourEyesMessage,
  getRelease,
  getTemplateByCode,
  isScheduled,
  partnerChanges,
  publishEffect,
  type Reviewer,
  releasePartners,
  reviewHistory,
  scheduledRelease,
  takeReviewStep,
  type VersionHistory,
} from '../../templates/index.js';
import { auditBy, tenantOf } from '../web/context.js';
import { time } from '../web/format.js';
import { parseForm } from '../web/forms.js';
import type { Html } from '../web/html.js';
import { html, segment } from '../web/html.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import type { LinkMailer } from '../web/password-links.js';
import { instantOfLocalTime } from '../web/time-zone.js';
import { diffView } from './diff-view.js';
import { templateModel, versionModel } from './models.js';
import { tellOfStep } from './review-mail.js';
import { type ReviewPageModel, reviewPage, reviewPath } from './review-views.js';
import { ReviewStepForm, reviewStepFormOptions } from './schemas.js';

type Params = { code: string; id: string };
type Form = 'submit' | 'review' | 'approve';

const notices: Record<string, string> = {
  submitted: 'Submitted for review. The reviewers see it under "Waiting for you".',
  passed: 'Review passed: it now waits for an approver.',
  sent_back: 'Sent back to draft, with your comment.',
  rejected: 'Rejected, with your comment.',
  schedule_cancelled: 'Go-live cancelled: the version waits for approval again.',
};

/**
 * Review and approval of versions: the review page, and one form per step, each route needing
 * the step's permission. The rules (the order of steps, four eyes, comments) are the service's.
 */
export async function reviewRoutes(
  app: FastifyInstance,
  deps: { db: Db; mailer: LinkMailer | undefined; publicBaseUrl: string },
) {
  const { db } = deps;
  const page = sectionPage('templates', notices);

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    template: TemplateRow,
    version: TemplateVersionRow,
    refusal?: ReviewPageModel['refusal'],
  ) => {
    const user = tenantOf(request);
    const [history, effect, scheduled, comparison] = await Promise.all([
      reviewHistory(db, version),
      publishEffect(db, template),
      scheduledRelease(db, template),
      compareWithLatest(db, template, version.id),
    ]);
    const { latest } = effect;
    const { steps } = history;
    const [listed, before] = await Promise.all([
      releasePartners(db, template, version.id),
      latest ? releasePartners(db, template, latest.release_id) : [],
    ]);
    const model: ReviewPageModel = {
      template: templateModel(template),
      version: versionModel(version),
      steps,
      edits: history.edits,
      zone: user.timeZone,
      latest: latest?.version ? { version: latest.version, tag: latest.tag } : undefined,
      nextNumber: effect.nextNumber,
      customersToPend: effect.customersMadePending,
      scheduled:
        scheduled?.version && scheduled.published_at && scheduled.id !== version.id
          ? { version: scheduled.version, tag: scheduled.tag, at: scheduled.published_at }
          : undefined,
      locales: comparison.variants.map((variant) => {
        const before = comparison.latest.get(variant.locale);
        return {
          locale: variant.locale,
          contentHtml: variant.content_html,
          changes:
            latest?.version === undefined || latest.version === null
              ? undefined
              : before
                ? diffView(contentDiff(before.content_html, variant.content_html, variant.locale), {
                    version: latest.version,
                    tag: latest.tag,
                  })
                : html`<p>A new locale: version ${latest.version} has no ${variant.locale} text.</p>`,
        };
      }),
      dropped: comparison.dropped,
      partners: { listed, ...partnerChanges(before, listed) },
      sinceReview: sinceReview(history, comparison.variants, user.userId, user.timeZone),
      actions: {
        submit: user.permissions.has('versions:edit'),
        review: user.permissions.has('versions:review'),
        approve: user.permissions.has('versions:approve'),
        fourEyes: fourEyesNote(history, user.userId, version),
      },
      csrfToken: csrfToken(reply),
      ...(refusal ? { refusal } : {}),
    };
    return page(
      request,
      reply,
      `Review ${template.code} ${version.tag}`,
      reviewPage(model),
      refusal ? 400 : 200,
    );
  };

  app.get<{ Params: Params }>(
    '/templates/:code/versions/:id/review',
    { config: { permission: 'templates:view' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      const version = await getRelease(db, template, request.params.id);
      return show(request, reply, template, version);
    },
  );

  /** Each step's form: its path, the permission it needs, the form of the page it is on. */
  const steps: Array<[string, Permission, Form, Exclude<ReviewStep, 'schedule_cancelled'>]> = [
    ['submit', 'versions:edit', 'submit', 'submitted'],
    ['send-back', 'versions:review', 'review', 'sent_back'],
    ['pass', 'versions:review', 'review', 'passed'],
    ['reject', 'versions:approve', 'approve', 'rejected'],
    ['approve', 'versions:approve', 'approve', 'approved'],
  ];

  for (const [path, permission, form, step] of steps) {
    app.post<{ Params: Params }>(
      `/templates/:code/versions/:id/${path}`,
      { config: { permission } },
      async (request, reply) => {
        const user = tenantOf(request);
        const template = await getTemplateByCode(db, user.tenantId, request.params.code);
        const { input } = parseForm(ReviewStepForm, request.body, reviewStepFormOptions);
        const comment = input.comment ?? '';
        const effectiveAt = input.effective_at ?? '';
        const by: Reviewer = { ...auditBy(request), userId: user.userId };
        let version: TemplateVersionRow;
        try {
          version = await db.transaction().execute(async (trx) =>
            step === 'approved'
              ? (
                  await approveVersion(trx, by, template, request.params.id, {
                    comment,
                    effectiveAt: goLive(effectiveAt, user.timeZone),
                    atOnce: input.publish_now === 'true',
                    dropLocales: input.drop_locales === 'true',
                  })
                ).version
              : takeReviewStep(trx, by, step, template, request.params.id, comment),
          );
        } catch (error) {
          // A comment, a time or a version the step refuses (400): the page again, with the
          // reason.
          if (!(error instanceof AppError) || error.status !== 400) throw error;
          const detail = error.details?.find((d) => d.field === 'comment');
          const current = await getRelease(db, template, request.params.id);
          return show(request, reply, template, current, {
            step: form,
            comment,
            effectiveAt,
            ...(detail
              ? { commentError: `The comment ${detail.issue}.` }
              : { formError: error.message }),
          });
        }
        void tellOfStep(deps, template, version, request.log);
        return step === 'approved'
          ? redirectTo(
              reply,
              `/templates/${segment(template.code)}?notice=${isScheduled(version) ? 'scheduled' : 'published'}`,
            )
          : redirectTo(reply, `${reviewPath(template.code, version.id)}?notice=${step}`);
      },
    );
  }

  app.post<{ Params: Params }>(
    '/templates/:code/versions/:id/cancel-schedule',
    { config: { permission: 'versions:approve' } },
    async (request, reply) => {
      const user = tenantOf(request);
      const template = await getTemplateByCode(db, user.tenantId, request.params.code);
      const by = { ...auditBy(request), userId: user.userId };
      const version = await db
        .transaction()
        .execute((trx) => cancelScheduledRelease(trx, by, template, request.params.id));
      void tellOfStep(deps, template, version, request.log);
      return redirectTo(
        reply,
        `${reviewPath(template.code, version.id)}?notice=schedule_cancelled`,
      );
    },
  );
}

/**
 * The go-live time typed in the approval form, a wall-clock time in the user's zone, as a stored
 * instant; undefined when left empty (the service then wants "Publish at once" ticked). `400
 * 1001` when it names no time.
 */
function goLive(local: string, zone: string): string | undefined {
  if (local === '') return undefined;
  const instant = instantOfLocalTime(local, zone);
  if (instant === undefined) {
    throw new AppError('invalidRequest', {
      message: 'The go-live time must be a date and a time, such as 2026-12-01 09:00.',
    });
  }
  return instant;
}

/** Why four eyes keeps the user from the step the version waits for, if it does. */
function fourEyesNote(
  history: VersionHistory,
  userId: string,
  version: TemplateVersionRow,
): string | undefined {
  const step = version.status === 'in_review' ? 'passed' : 'approved';
  const bar = fourEyesBar(history, userId, step);
  return bar ? fourEyesMessage(bar, step) : undefined;
}

/**
 * "Changes since your last review": for a reviewer who sent the version back (or passed it) and
 * sees it again, how each locale's words changed since, from the recorded changes.
 */
function sinceReview(
  history: VersionHistory,
  variants: TemplateVersionRow[],
  userId: string,
  zone: string,
): ReviewPageModel['sinceReview'] {
  const since = changesSinceReview(history, variants, userId);
  if (!since) return undefined;
  const label = html`the text you reviewed ${time(since.at, zone)}`;
  return {
    at: since.at,
    locales: since.changes.map((c): { locale: string; changes: Html } => ({
      locale: c.locale,
      changes:
        c.before === undefined
          ? html`<p>A locale added since your review.</p>`
          : c.after === undefined
            ? html`<p>This locale was removed since your review.</p>`
            : diffView(contentDiff(c.before, c.after, c.locale), { label }),
    })),
  };
}
