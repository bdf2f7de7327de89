import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { nowIso } from '../platform/time.js';
import { deleteContentFile, findContentFile, replaceContentFile } from './file-repository.js';
import { findPublishedByIdAnyTenant, updateDraft } from './repository.js';
import { getVersion, lockPublishes } from './service.js';
import type { ContentFileRow, ContentFileType, TemplateRow, TemplateVersionRow } from './table.js';

/**
 * A version's content file, uploaded instead of linked: a PDF or an HTML document, kept in the
 * store and served at the version's `file_url` once it is live. Its type is read from its bytes,
 * never from its name or the browser's word.
 */

/** The most an uploaded content file may hold: a long policy as a PDF fits well within it. */
export const maxContentFileBytes = 5 * 1024 * 1024;

/** An upload as the form sends it. */
export interface Upload {
  fileName: string;
  bytes: Buffer;
  /** Whether it was cut at the size limit. */
  truncated: boolean;
}

const pdfMagic = Buffer.from('%PDF-', 'latin1');

/**
 * The HTML signatures of the WHATWG MIME Sniffing standard (section 7.1, "identifying a
 * resource with an unknown MIME type"): after white space, one of these, case-insensitive, then a
 * space or `>` (a comment's `<!--` needs neither).
 */
const htmlSignatures = [
  '<!DOCTYPE HTML',
  '<HTML',
  '<HEAD',
  '<SCRIPT',
  '<IFRAME',
  '<H1',
  '<DIV',
  '<FONT',
  '<TABLE',
  '<A',
  '<STYLE',
  '<TITLE',
  '<B',
  '<BODY',
  '<BR',
  '<P',
  '<!--',
];

/** The type of a file by its content: a PDF, an HTML document in UTF-8, or neither. */
export function sniffContentFile(bytes: Buffer): ContentFileType | undefined {
  if (bytes.subarray(0, pdfMagic.length).equals(pdfMagic)) return 'application/pdf';
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  const start = text
    .replace(/^\uFEFF?[\t\n\f\r ]*/, '')
    .slice(0, 16)
    .toUpperCase();
  const html = htmlSignatures.some((signature) => {
    const after = start.charAt(signature.length);
    return start.startsWith(signature) && (signature === '<!--' || after === ' ' || after === '>');
  });
  return html ? 'text/html' : undefined;
}

function refuse(issue: string): AppError {
  return new AppError('invalidRequest', {
    message: `The content file ${issue}.`,
    details: [{ field: 'file', issue }],
  });
}

/** The draft a file is attached to or removed from; `409 1005` for any other version. */
async function draftOf(trx: Trx, template: TemplateRow, versionId: string) {
  await lockPublishes(trx, template.tenant_id, template.id);
  const version = await getVersion(trx, template, versionId);
  if (version.status !== 'draft') {
    throw new AppError('conflict', {
      message:
        'Only a draft can change its content file: a version under review or published keeps it.',
    });
  }
  return version;
}

/**
 * Attaches an uploaded content file to a draft, in place of its file URL or earlier file, and
 * records who did. `400 1001` when it is empty, too large, or neither a PDF nor HTML.
 */
export async function attachContentFile(
  trx: Trx,
  actor: Actor,
  template: TemplateRow,
  versionId: string,
  upload: Upload,
): Promise<ContentFileRow> {
  if (upload.truncated || upload.bytes.length > maxContentFileBytes) {
    throw refuse(`is larger than ${maxContentFileBytes / 1024 / 1024} MiB`);
  }
  if (upload.bytes.length === 0) throw refuse('is empty: choose a file');
  const type = sniffContentFile(upload.bytes);
  if (!type) throw refuse('must be a PDF or an HTML document in UTF-8');
  const draft = await draftOf(trx, template, versionId);
  const row: ContentFileRow = {
    tenant_id: template.tenant_id,
    version_id: draft.id,
    media_type: type,
    file_name: cleanName(upload.fileName, type),
    size: upload.bytes.length,
    sha256: sha256Hex(upload.bytes),
    content_base64: upload.bytes.toString('base64'),
    created_at: nowIso(),
  };
  await replaceContentFile(trx, row);
  await updateDraft(trx, template.tenant_id, draft.id, {
    content_file: type,
    file_url: null,
    updated_at: row.created_at,
  });
  await recordAudit(trx, {
    ...actor,
    action: 'version.file_uploaded',
    target: `${template.code} ${draft.tag}`,
    details: {
      version_id: draft.id,
      file_name: row.file_name,
      media_type: type,
      size: row.size,
      sha256: row.sha256,
    },
  });
  return row;
}

/** Removes a draft's uploaded content file, and records who did. */
export async function removeContentFile(
  trx: Trx,
  actor: Actor,
  template: TemplateRow,
  versionId: string,
): Promise<void> {
  const draft = await draftOf(trx, template, versionId);
  if (draft.content_file === null) return;
  await deleteContentFile(trx, template.tenant_id, draft.id);
  await updateDraft(trx, template.tenant_id, draft.id, {
    content_file: null,
    updated_at: nowIso(),
  });
  await recordAudit(trx, {
    ...actor,
    action: 'version.file_removed',
    target: `${template.code} ${draft.tag}`,
    details: { version_id: draft.id },
  });
}

/** A version's uploaded content file, if it has one. */
export async function contentFileOf(
  db: Executor,
  version: TemplateVersionRow,
): Promise<ContentFileRow | undefined> {
  if (version.content_file === null) return undefined;
  return findContentFile(db, version.tenant_id, version.id);
}

/**
 * The uploaded content file of a live version of any tenant (the public file carries no key);
 * `404 1004` when the version is not live or has no file of that type.
 */
export async function publishedContentFile(
  db: Executor,
  versionId: string,
  type: ContentFileType,
): Promise<ContentFileRow> {
  const version = await findPublishedByIdAnyTenant(db, versionId.toLowerCase());
  const file =
    version && version.content_file === type
      ? await findContentFile(db, version.tenant_id, version.id)
      : undefined;
  if (!file) throw new AppError('versionNotFound');
  return file;
}

/** A name safe to give back in a download: its last path part, printable, with its extension. */
function cleanName(name: string, type: ContentFileType): string {
  const base = (name.split(/[/\\]/).pop() ?? '').replace(/[^\p{L}\p{N} ._()-]/gu, '').trim();
  const extension = type === 'application/pdf' ? '.pdf' : '.html';
  const stem = base.replace(/\.[^.]*$/, '').slice(0, 100) || 'content';
  return `${stem}${extension}`;
}
