import type { Executor } from '../platform/db.js';
import { findContentFiles } from './file-repository.js';
import { findVersionsWithCode, type VersionWithCode } from './repository.js';
import type { ContentFileRow } from './table.js';

/** A version's text as a customer was shown it: its HTML, and the file uploaded with it. */
export interface ShownText {
  version: VersionWithCode;
  file: ContentFileRow | undefined;
}

/**
 * The texts of these versions of the tenant, each once, in two statements however many (an
 * evidence pack's: the versions its customer's decisions were made on).
 */
export async function shownTexts(
  db: Executor,
  tenantId: string,
  versionIds: readonly string[],
): Promise<ShownText[]> {
  const ids = [...new Set(versionIds)];
  const [versions, files] = await Promise.all([
    findVersionsWithCode(db, tenantId, ids),
    findContentFiles(db, tenantId, ids),
  ]);
  const fileOf = new Map(files.map((file) => [file.version_id, file]));
  return versions.map((version) => ({
    version,
    file: version.content_file === null ? undefined : fileOf.get(version.id),
  }));
}
