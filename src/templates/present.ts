import type { VersionWithCode } from './repository.js';
import type { PublishedVersion } from './schemas.js';
import type { ContentFileType } from './table.js';

/** V of contract section 4. */
export function presentVersion(row: VersionWithCode, publicBaseUrl: string): PublishedVersion {
  if (row.version === null || row.published_at === null) {
    throw new Error(`Version ${row.id} is not published`);
  }
  return {
    consent_version_id: row.id,
    template_code: row.template_code,
    version: row.version,
    tag: row.tag,
    content_html: row.content_html,
    file_url:
      row.file_url ??
      (row.content_file
        ? uploadedFileUrl(publicBaseUrl, row.id, row.content_file)
        : contentFileUrl(publicBaseUrl, row.id)),
    allow_reconsent: row.allow_reconsent === 1,
    published_at: row.published_at,
  };
}

export function contentFileUrl(publicBaseUrl: string, versionId: string): string {
  return `${publicBaseUrl}/api/content/${versionId}.html`;
}

/** Where a version's uploaded content file is served (`content-routes.ts`). */
function uploadedFileUrl(publicBaseUrl: string, versionId: string, type: ContentFileType): string {
  return `${publicBaseUrl}/api/content/${versionId}/file.${type === 'application/pdf' ? 'pdf' : 'html'}`;
}

/** V with the locale of its variant: the answer to a request that named a locale. */
export function presentLocalized(row: VersionWithCode, publicBaseUrl: string): PublishedVersion {
  return { ...presentVersion(row, publicBaseUrl), locale: row.locale };
}
