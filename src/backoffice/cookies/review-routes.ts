import type { FastifyInstance } from 'fastify';
import type { Permission } from '../../accounts/index.js';
import {
  approveConfiguration,
  type CookieConfiguration,
  copyConfiguration,
  deleteConfiguration,
  type Editor,
  publishConfiguration,
  type ReviewMove,
  reviewConfiguration,
  unpublishConfiguration,
} from '../../cookies/index.js';
import type { Db, Trx } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { tenantOf } from '../web/context.js';
import { confirmed, parseForm } from '../web/forms.js';
import { redirectTo } from '../web/layout.js';
import { showConfigurationPage } from './configuration-page.js';
import { configurationPath } from './paths.js';
import { StepForm, stepFormOptions } from './schemas.js';
import { editorOf } from './section.js';

type Params = { id: string };

/** What a step's form does, given its comment and whether "publish now" was ticked. */
type Act = (
  trx: Trx,
  tenantId: string,
  id: string,
  by: Editor,
  form: { note: string | undefined; publish: boolean },
) => Promise<CookieConfiguration>;

const move =
  (step: ReviewMove): Act =>
  (trx, tenantId, id, by, { note }) =>
    reviewConfiguration(trx, tenantId, id, step, by, note);

/**
 * Each form of a configuration's page: its path, the permission it needs, what it does, and the
 * notice after it. The rules (the order of steps, four eyes, what can be published) are the
 * service's; a refusal shows the page again with the reason and the comment typed.
 */
const steps: ReadonlyArray<[string, Permission, Act, (c: CookieConfiguration) => string]> = [
  ['submit', 'cookies:edit', move('submit'), () => 'submitted'],
  ['pass', 'cookies:review', move('pass'), () => 'passed'],
  ['send-back', 'cookies:review', move('send_back'), () => 'sent_back'],
  [
    'approve',
    'cookies:approve',
    (trx, tenantId, id, by, { note, publish }) =>
      approveConfiguration(trx, tenantId, id, by, { ...(note ? { note } : {}), publish }),
    (c) => (c.published ? 'published' : 'approved'),
  ],
  ['reject', 'cookies:approve', move('reject'), () => 'rejected'],
  [
    'publish',
    'cookies:edit',
    (trx, tenantId, id, by) => publishConfiguration(trx, tenantId, id, by),
    () => 'published',
  ],
  [
    'unpublish',
    'cookies:edit',
    (trx, tenantId, id, by) => unpublishConfiguration(trx, tenantId, id, by),
    () => 'unpublished',
  ],
  [
    'copy',
    'cookies:create',
    (trx, tenantId, id, by) => copyConfiguration(trx, tenantId, id, by),
    () => 'copied',
  ],
];

/** Review, approval, publication, copying and deleting of configurations, one form each. */
export async function configurationStepRoutes(
  app: FastifyInstance,
  { db, publicBaseUrl }: { db: Db; publicBaseUrl: string },
) {
  for (const [path, permission, act, notice] of steps) {
    app.post<{ Params: Params }>(
      `/cookies/configurations/:id/${path}`,
      { config: { permission } },
      async (request, reply) => {
        const { tenantId } = tenantOf(request);
        const { id } = request.params;
        const form = parseForm(StepForm, request.body, stepFormOptions);
        const comment = form.input.comment ?? '';
        if (!form.ok) {
          const error = form.refusal.fields.comment ?? form.refusal.form.join(' ');
          return showConfigurationPage(db, request, reply, {
            id,
            publicBaseUrl,
            refusal: { comment, error: `The comment: ${error}`, status: 400 },
          });
        }
        let done: CookieConfiguration;
        try {
          done = await db.transaction().execute((trx) =>
            act(trx, tenantId, id, editorOf(request), {
              note: comment === '' ? undefined : comment,
              publish: form.input.publish_now === 'true',
            }),
          );
        } catch (error) {
          // A step the configuration is not at, or one four eyes bars: the page again, saying
          // why, with the comment kept. A configuration that is not there stays a 404.
          if (!(error instanceof AppError) || ![400, 403, 409].includes(error.status)) throw error;
          // A content the step refuses (an unfair A/B variant) says what, each in a sentence.
          const why = (error.details ?? []).map((d) => ` ${d.issue}.`).join('');
          return showConfigurationPage(db, request, reply, {
            id,
            publicBaseUrl,
            refusal: { comment, error: `${error.message}${why}`, status: error.status },
          });
        }
        return redirectTo(reply, `${configurationPath(done.id)}?notice=${notice(done)}`);
      },
    );
  }

  app.post<{ Params: Params }>(
    '/cookies/configurations/:id/delete',
    { config: { permission: 'cookies:delete' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const { id } = request.params;
      const refused = (error: string, status: number) =>
        showConfigurationPage(db, request, reply, {
          id,
          publicBaseUrl,
          refusal: { comment: '', error, status },
        });
      if (!confirmed(request.body)) return refused('Tick the box to confirm.', 400);
      try {
        await db
          .transaction()
          .execute((trx) => deleteConfiguration(trx, tenantId, id, editorOf(request)));
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 409) throw error;
        return refused(error.message, 409);
      }
      return redirectTo(reply, '/cookies?notice=deleted');
    },
  );
}
