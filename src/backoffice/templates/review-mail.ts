import type { FastifyBaseLogger } from 'fastify';
import { activeUsersWith } from '../../accounts/index.js';
import type { Db } from '../../platform/db.js';
import type { ReviewStep, TemplateRow, TemplateVersionRow } from '../../templates/index.js';
import { mayPassOrApprove, reviewHistory, type VersionHistory } from '../../templates/index.js';
import { basePath } from '../web/layout.js';
import type { LinkMailer } from '../web/password-links.js';
import { reviewPath } from './review-views.js';

interface Recipient {
  id?: string;
  email: string;
  name: string;
}

const told: Record<ReviewStep, { subject: string; did: string; ask: string }> = {
  submitted: { subject: 'Review', did: 'submitted for review', ask: 'Review it here' },
  passed: { subject: 'Approval', did: 'passed the review of', ask: 'Approve or reject it here' },
  sent_back: { subject: 'Sent back', did: 'sent back to draft', ask: 'See what must change here' },
  rejected: { subject: 'Rejected', did: 'rejected', ask: 'See why here' },
  approved: { subject: 'Published', did: 'approved and published', ask: 'See it here' },
  schedule_cancelled: {
    subject: 'Go-live cancelled',
    did: 'cancelled the scheduled go-live of',
    ask: 'See it here',
  },
};

/**
 * Who hears of a step: those who may take the next one (reviewers of a submitted version,
 * approvers of a reviewed one, as four eyes lets them: never its authors nor its submitters),
 * and the submitter of one sent back,
 * rejected or published; never the person who took the step.
 */
async function recipientsOf(
  db: Db,
  template: TemplateRow,
  history: VersionHistory,
): Promise<Recipient[]> {
  const { steps } = history;
  const step = steps.at(-1);
  if (!step) return [];
  const submitted = steps.findLast((s) => s.step === 'submitted');
  let people: Recipient[];
  if (step.step === 'submitted' || step.step === 'passed') {
    const permission = step.step === 'submitted' ? 'versions:review' : 'versions:approve';
    people = (await activeUsersWith(db, template.tenant_id, permission)).filter((p) =>
      mayPassOrApprove(history, p.id, step.step === 'submitted' ? 'passed' : 'approved'),
    );
  } else {
    people = submitted
      ? [{ id: submitted.user_id, email: submitted.actor, name: submitted.actor_name ?? '' }]
      : [];
  }
  return people.filter((p) => p.id !== step.user_id);
}

/**
 * E-mails the people who can act on a version's new step, or who wait for its outcome, when a
 * mailer is configured. Runs after the step is stored and the page answered; a failed delivery
 * is logged and the step stands (the dashboard's "Waiting for you" lists it all the same).
 */
export async function tellOfStep(
  deps: { db: Db; mailer: LinkMailer | undefined; publicBaseUrl: string },
  template: TemplateRow,
  version: TemplateVersionRow,
  log: FastifyBaseLogger,
): Promise<void> {
  if (!deps.mailer) return;
  try {
    const history = await reviewHistory(deps.db, version);
    const step = history.steps.at(-1);
    if (!step) return;
    const words = told[step.step];
    const link = `${deps.publicBaseUrl}${basePath}${reviewPath(template.code, version.id)}`;
    const by = step.actor_name ? `${step.actor_name} (${step.actor})` : step.actor;
    const comment = step.comment ? `\nTheir comment:\n\n  ${step.comment}\n` : '';
    for (const person of await recipientsOf(deps.db, template, history)) {
      await deps.mailer.send({
        to: person.email,
        subject: `${words.subject}: ${template.name}, tag ${version.tag}`,
        text: `Hello ${person.name || person.email},\n\n${by} ${words.did} tag ${version.tag} of "${template.name}" (${template.code}).\n${comment}\n${words.ask}:\n\n${link}\n`,
      });
    }
  } catch (error) {
    log.warn({ err: error, version: version.id }, 'could not e-mail a review step');
  }
}
