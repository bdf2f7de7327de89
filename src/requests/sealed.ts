/**
 * What of a request is sealed under its customer's key, and how it is opened: the customer id
 * (with the address and user agent it came from), what they wrote, staff's notes.
 */
import type { Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import {
  findSubjectRow,
  type OpenSubject,
  openPersonal,
  openSubject,
  type SubjectVault,
} from '../subjects/index.js';
import type { SubjectRequestRow } from './table.js';

/** The request's customer id, opened from the request's own sealed fields. */
export function openCustomerId(subject: OpenSubject, request: SubjectRequestRow): string {
  return openPersonal(subject.key, request.id, request.personal).customer_id;
}

/** The request's customer's subject opened; undefined once they were erased. */
export async function requestSubject(
  db: Executor,
  vault: SubjectVault,
  request: SubjectRequestRow,
): Promise<OpenSubject | undefined> {
  const row = await findSubjectRow(db, request.tenant_id, request.subject_id);
  if (!row?.wrapped_key || !row.salt) return undefined;
  return openSubject(vault, request.tenant_id, row);
}

/** What a request's sealed details are bound to. */
export const detailsBinding = (requestId: string) => `request-details:${requestId}`;

/** What a note's sealed body is bound to. */
export const noteBinding = (noteId: string) => `request-note:${noteId}`;

export const requestNotFound = () => new AppError('notFound', { message: 'Request not found.' });
