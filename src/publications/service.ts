import { writeJournal } from '../journal/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import {
  type PublicationLeafFields,
  type PublishedOn,
  type PublishedText,
  publicationLeafText,
} from '../proof/index.js';
import {
  findPublicationIdsOf,
  findTemplatePublicationsBy,
  insertPublication,
} from './repository.js';
import type { PublicationRow } from './table.js';

/** What was made live, as its publication's leaf states it. */
export interface Publication {
  what: PublicationLeafFields['what'];
  /** The template's id, or the configuration's. */
  of: string;
  version: number;
  /** When it was published (the leaf's `time`); now when absent. */
  publishedAt?: string;
  /** When it goes live: later than `publishedAt` for a scheduled version. */
  effectiveAt: string;
  texts: readonly PublishedText[];
  partners: readonly string[];
}

/**
 * Records a publication in the caller's transaction (the one that makes the text live): its row,
 * and its leaf in the tenant's log, which the integrator appends after the decisions already
 * queued, so that every decision made on the text comes after it in the log.
 */
export async function logPublication(
  trx: Trx,
  tenantId: string,
  publication: Publication,
): Promise<string> {
  const row: PublicationRow = {
    tenant_id: tenantId,
    id: newId(),
    what: publication.what,
    of_id: publication.of,
    version: publication.version,
    published_at: publication.publishedAt ?? nowIso(),
    effective_at: publication.effectiveAt,
    texts: JSON.stringify([...publication.texts].sort((a, b) => (a.locale < b.locale ? -1 : 1))),
    partners: JSON.stringify([...publication.partners].sort()),
  };
  await insertPublication(trx, row);
  await writeJournal(trx, {
    leaves: [
      {
        log_id: tenantId,
        record_id: row.id,
        leaf: publicationLeafText(fieldsOf(row)),
        queued_at: row.published_at,
      },
    ],
  });
  return row.id;
}

/** A stored publication as its leaf states it. */
export function fieldsOf(row: PublicationRow): PublicationLeafFields {
  return {
    recordId: row.id,
    time: row.published_at,
    effective: row.effective_at,
    what: row.what,
    of: row.of_id,
    version: Number(row.version),
    texts: JSON.parse(row.texts) as PublishedText[],
    partners: JSON.parse(row.partners) as string[],
  };
}

/** The publications of the text a record was made on, oldest first (ids of their leaves). */
export function publicationsOf(
  db: Executor,
  tenantId: string,
  on: Pick<PublishedOn, 'of' | 'version'>,
): Promise<string[]> {
  return findPublicationIdsOf(db, tenantId, on.of, on.version);
}

/**
 * What each of the tenant's templates had live at `at`, by its logged publications: the latest
 * version that went live by then, with the partners its release listed.
 */
export async function templatesLiveAt(
  db: Executor,
  tenantId: string,
  at: string,
): Promise<Map<string, PublicationLeafFields>> {
  const live = new Map<string, PublicationLeafFields>();
  for (const row of await findTemplatePublicationsBy(db, tenantId, at)) {
    if (!live.has(row.of_id)) live.set(row.of_id, fieldsOf(row));
  }
  return live;
}
