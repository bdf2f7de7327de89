import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { listApiKeys } from '../../api-keys/index.js';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import {
  getPreferenceCentre,
  pagePath,
  savePreferenceCentre,
} from '../../preference-centre/index.js';
import { auditBy, tenantOf } from '../web/context.js';
import { type FieldErrors, noRefusal, parseForm, type Refusal } from '../web/forms.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import {
  PreferenceCentreForm,
  preferenceCentreFormOptions,
  preferenceCentreInput,
  sentValues,
  storedValues,
} from './schemas.js';
import { type PreferenceCentreValues, preferenceCentrePage } from './views.js';

const notices: Record<string, string> = { saved: 'Preference centre saved.' };

/** What each field is called when the service's issue needs a subject ("must be…"). */
const subjects: Record<string, string> = {
  display_name: 'The name',
  logo_url: 'The logo URL',
  accent_colour: 'The accent colour',
  header_colour: 'The header colour',
  allowed_origins: 'The allowed origins',
  email_key_id: 'The key of e-mail sign-in',
};

/** A service's issue as a sentence of its own. */
function sentence(subject: string, issue: string): string {
  const text = /^(must|is|are|has)\b/.test(issue)
    ? `${subject} ${issue}`
    : `${issue.charAt(0).toUpperCase()}${issue.slice(1)}`;
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/**
 * The service's refusal in the form's words: each issue next to its field (an origin's by its
 * rank among the lines), several on one field one after the other; undefined for what is no
 * refusal of the input.
 */
function settingsRefusal(error: unknown): Refusal | undefined {
  if (!(error instanceof AppError) || error.status !== 400) return undefined;
  const fields: FieldErrors = {};
  const form: string[] = [];
  for (const { field, issue } of error.details ?? []) {
    const [name = '', item] = field.split('.');
    const subject = subjects[name];
    if (subject === undefined) {
      form.push(`${field}: ${issue}`);
      continue;
    }
    const text = sentence(item === undefined ? subject : `Origin ${Number(item) + 1}`, issue);
    fields[name] = fields[name] ? `${fields[name]} ${text}` : text;
  }
  if (!error.details?.length) form.push(error.message);
  return { fields, form };
}

/**
 * The tenant's preference centre: the name, logo and colours its customers' page shows, and the
 * origins that page may return to and be framed by.
 */
export async function preferenceCentreRoutes(
  app: FastifyInstance,
  { db, publicBaseUrl, canMail }: { db: Db; publicBaseUrl: string; canMail: boolean },
) {
  const page = sectionPage('preference-centre', notices);

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    values: PreferenceCentreValues,
    refusal: Refusal = noRefusal,
    status = 200,
  ) => {
    const user = tenantOf(request);
    const keys = (await listApiKeys(db, user.tenantId)).filter((k) => k.revoked_at === null);
    const body = preferenceCentrePage({
      keys: keys.map((k) => ({ id: k.id, name: k.name })),
      canMail,
      csrfToken: csrfToken(reply),
      alias: user.tenantAlias,
      address: `${publicBaseUrl}${pagePath(user.tenantAlias)}`,
      values,
      refusal,
      mayEdit: user.permissions.has('settings:edit'),
    });
    return page(request, reply, 'Preference centre', body, status);
  };

  app.get(
    '/preference-centre',
    { config: { permission: 'settings:view' } },
    async (request, reply) =>
      show(request, reply, storedValues(await getPreferenceCentre(db, tenantOf(request).tenantId))),
  );

  app.post(
    '/preference-centre',
    { config: { permission: 'settings:edit' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const form = parseForm(PreferenceCentreForm, request.body, preferenceCentreFormOptions);
      const values = sentValues(form.input);
      if (!form.ok) return show(request, reply, values, form.refusal, 400);
      const input = preferenceCentreInput(form.values);
      try {
        await db
          .transaction()
          .execute((trx) => savePreferenceCentre(trx, auditBy(request), tenantId, input));
      } catch (error) {
        const refusal = settingsRefusal(error);
        if (!refusal) throw error;
        return show(request, reply, values, refusal, 400);
      }
      return redirectTo(reply, '/preference-centre?notice=saved');
    },
  );
}
