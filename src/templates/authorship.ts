import type { Actor } from '../audit-trail/index.js';
import type { Executor } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { insertEdit, listEdits } from './edit-repository.js';
import type { EditKind, TemplateVersionRow, VersionEditRow } from './table.js';

/**
 * Who writes a draft: the audit log's actor, and the user, whom four eyes compares. Every change
 * of a draft's text is kept (`version_edits`) with its SHA-256 before and after.
 */
export type Author = Actor & { userId: string };

/** Records one change of a draft release's text in one locale. */
export async function recordEdit(
  db: Executor,
  by: Author,
  change: {
    releaseId: string;
    kind: EditKind;
    before: Pick<TemplateVersionRow, 'content_sha256'> | undefined;
    after: Pick<TemplateVersionRow, 'locale' | 'content_sha256' | 'content_html'> | undefined;
    locale: string;
    tenantId: string;
  },
): Promise<void> {
  await insertEdit(db, {
    tenant_id: change.tenantId,
    id: newId(),
    release_id: change.releaseId,
    locale: change.locale,
    kind: change.kind,
    user_id: by.userId,
    actor: by.actor,
    actor_name: by.actorName ?? null,
    sha256_before: change.before?.content_sha256 ?? null,
    sha256_after: change.after?.content_sha256 ?? null,
    content_html: change.after?.content_html ?? null,
    created_at: nowIso(),
  });
}

/** A release's changes, oldest first. */
export function releaseEdits(
  db: Executor,
  release: Pick<TemplateVersionRow, 'tenant_id' | 'id'>,
): Promise<VersionEditRow[]> {
  return listEdits(db, release.tenant_id, release.id);
}

/** The users who wrote a release: anyone with a change of its text. */
export function authorsOf(edits: readonly Pick<VersionEditRow, 'user_id'>[]): string[] {
  return [...new Set(edits.map((e) => e.user_id))];
}

/**
 * Each locale's text as it stood at `at` (the latest change at or before it), from a release's
 * changes: what a reviewer saw then. A locale absent or removed then has none.
 */
export function textsAt(edits: readonly VersionEditRow[], at: string): Map<string, string> {
  const texts = new Map<string, string>();
  for (const edit of edits) {
    if (edit.created_at > at) break;
    if (edit.content_html === null) texts.delete(edit.locale);
    else texts.set(edit.locale, edit.content_html);
  }
  return texts;
}
