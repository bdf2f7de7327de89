import type { FastifyReply, FastifyRequest } from 'fastify';
import { keepFlash, takeFlash } from '../../accounts/index.js';
import { listPartners } from '../../partners/index.js';
import type { Db } from '../../platform/db.js';
import type { TemplateRow, TemplateVersionRow } from '../../templates/index.js';
import { sanitizeContent } from '../../templates/index.js';
import { sessionTokenOf } from '../web/context.js';
import { type FormInput, noRefusal, parseForm, type Refusal } from '../web/forms.js';
import { html, segment } from '../web/html.js';
import { basePath, csrfToken, redirectTo } from '../web/layout.js';
import { templateModel, versionModel } from './models.js';
import { VersionForm, versionFormOptions } from './schemas.js';
import { type PartnerChoice, versionForm } from './views.js';

/** A version's fields as its form shows them. */
export interface DraftValues {
  tag: string;
  content_html: string;
  file_url: string;
  allow_reconsent: boolean;
  /** The release a new draft starts from (its other locales are carried over); empty: none. */
  from_release: string;
}

export const newVersionPath = (code: string) => `/templates/${segment(code)}/versions/new`;

/** Content may be up to 1,000,000 characters; percent-encoded by the form, it grows. */
export const versionBodyLimit = 8 * 1024 * 1024;

export const keptNotice = html`<p class="notice" role="status">Your session had ended before this was saved. Your text is back: it is not saved yet.</p>`;

/** "Draft saved." waits this long for the page the save redirects to. */
const savedNoticeMs = 60_000;

/** A version form's fields as sent (the tag and address trimmed), to show it again. */
export function draftValues(input: FormInput<typeof VersionForm>): DraftValues {
  return {
    tag: input.tag ?? '',
    content_html: input.content_html ?? '',
    file_url: input.file_url ?? '',
    allow_reconsent: input.allow_reconsent === 'true',
    from_release: input.from_release ?? '',
  };
}

/** The version form's fields in a body, read through its schema. */
export function readDraft(body: unknown): DraftValues {
  return draftValues(parseForm(VersionForm, body, versionFormOptions).input);
}

/** The fields as the templates service takes them: an empty address is none. */
export function draftInput(values: DraftValues) {
  return {
    tag: values.tag,
    content_html: values.content_html,
    file_url: values.file_url === '' ? null : values.file_url,
    allow_reconsent: values.allow_reconsent,
  };
}

/** A saved version's fields, as its form shows them. */
export function savedValues(version: TemplateVersionRow): DraftValues {
  return {
    tag: version.tag,
    content_html: version.content_html,
    file_url: version.file_url ?? '',
    allow_reconsent: version.allow_reconsent === 1,
    from_release: '',
  };
}

/** The form of a new version (`version` undefined) or of a draft, with its preview. */
export function draftForm(
  reply: FastifyReply,
  template: TemplateRow,
  version: TemplateVersionRow | undefined,
  values: DraftValues,
  refusal: Refusal = noRefusal,
  partners?: PartnerChoice,
) {
  return versionForm({
    partners,
    template: templateModel(template),
    version: version && versionModel(version),
    csrfToken: csrfToken(reply),
    values,
    preview: sanitizeContent(values.content_html),
    errors: refusal.form,
    fieldErrors: refusal.fields,
  });
}

/** A draft's fields carried through signing in again (see `signInKeeping`), taken once. */
export async function keptDraft(
  db: Db,
  request: FastifyRequest,
  path: string,
): Promise<DraftValues | undefined> {
  const kept = await takeFlash(db, request.backofficeSessionToken, `form:${basePath}${path}`);
  return kept === undefined ? undefined : readDraft(JSON.parse(kept));
}

/** After a save: the draft's page, which says "Draft saved." once. */
export async function savedTo(db: Db, request: FastifyRequest, reply: FastifyReply, path: string) {
  await keepFlash(db, sessionTokenOf(request), `notice:${basePath}${path}`, 'saved', savedNoticeMs);
  return redirectTo(reply, path);
}

/**
 * The partner codes a draft's form sent: undefined when the form had no list of partners (the
 * draft's list stays as it is), else the boxes ticked (none: an empty list).
 */
export function postedPartners(body: unknown): string[] | undefined {
  const fields = (body ?? {}) as Record<string, unknown>;
  if (fields.partners_shown !== 'true') return undefined;
  const sent = fields.partners;
  const list = Array.isArray(sent) ? sent : sent === undefined ? [] : [sent];
  return list.filter((code): code is string => typeof code === 'string' && code !== '');
}

/** The tenant's partners as a draft's form offers them, with these codes ticked. */
export async function partnerChoice(
  db: Db,
  tenantId: string,
  chosen: readonly string[],
): Promise<PartnerChoice> {
  const options = (await listPartners(db, tenantId)).map(({ code, name }) => ({ code, name }));
  return { options, chosen };
}
