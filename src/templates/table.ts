import type { Selectable } from 'kysely';

/**
 * Where a version is on its way: a `draft` is edited freely; submitted, it is `in_review`
 * (no longer editable); a reviewer passes it (`reviewed`) or sends it back to `draft`; an
 * approver publishes it (`published`, immutable, numbered) or rejects it (`rejected`, for good).
 */
export type VersionStatus = 'draft' | 'in_review' | 'reviewed' | 'rejected' | 'published';

/**
 * A step of review and approval, as the timeline shows it; `schedule_cancelled` takes an approved
 * release that had not gone live back to waiting for approval.
 */
export type ReviewStep =
  | 'submitted'
  | 'sent_back'
  | 'passed'
  | 'approved'
  | 'rejected'
  | 'schedule_cancelled';

export interface TemplatesTable {
  tenant_id: string;
  id: string;
  code: string;
  name: string;
  description: string;
  /** The product it belongs to; set for every template since migration 0011. */
  product_id: string | null;
  created_at: string;
  /** When it was archived: the API then answers 404 for it; its record stays. */
  archived_at: string | null;
  /** BCP 47, canonical (`th`, `en-GB`): answered when a request names no locale it has. */
  default_locale: string;
  /**
   * How many calendar months a customer's `given` stays valid (migration 0023); null: it never
   * lapses. Each setting is also kept in `template_validity_changes`.
   */
  validity_months: number | null;
  /**
   * JSON array of the sensitive data categories it covers (PDPA section 26; migration 0033):
   * a `given` on it then needs the explicit act's evidence. Null: it covers none.
   */
  data_categories: string | null;
  /**
   * JSON object of who may decide for whom (PDPA section 20; migration 0034), from a basis to
   * who must act (`representation.ts`). Null: no rule, whoever the client says acted.
   */
  representation: string | null;
}

/**
 * Every setting of a template's validity period from the moment it was made (migration 0023):
 * `as-of` answers under the one in force at the moment asked about.
 */
export interface TemplateValidityChangesTable {
  tenant_id: string;
  template_id: string;
  changed_at: string;
  /** Null: no limit from then on. */
  validity_months: number | null;
}

/**
 * One locale's variant of a release; a template with one locale has one row per release. The
 * release's own row (`id = release_id`) carries its status and review; every variant follows
 * its status, number, tag, re-consent rule and publication.
 */
export interface TemplateVersionsTable {
  tenant_id: string;
  /** The variant's `consent_version_id`: a decision names exactly the text it was shown. */
  id: string;
  template_id: string;
  /** The id of the release's own row (its own id, for that row). */
  release_id: string;
  /** BCP 47, canonical. */
  locale: string;
  status: VersionStatus;
  /** 1, 2, 3, … in order of publication; null while a draft. */
  version: number | null;
  tag: string;
  /** Already sanitized. */
  content_html: string;
  /** Hex SHA-256 of `content_html`: the evidence of what a customer was shown. */
  content_sha256: string;
  /** The operator's own URL for the content, when given. */
  file_url: string | null;
  /** The media type of its uploaded content file (`content_files`), when it has one. */
  content_file: ContentFileType | null;
  /** 0 or 1: an integer reads the same on every store. */
  allow_reconsent: number;
  created_at: string;
  updated_at: string;
  published_at: string | null;
  published_by: string | null;
}

/** What an uploaded content file may be: the types a customer's browser shows by itself. */
export type ContentFileType = 'application/pdf' | 'text/html';

/** A version's uploaded content file (migration 0014). */
export interface ContentFilesTable {
  tenant_id: string;
  version_id: string;
  media_type: ContentFileType;
  /** The name it was uploaded under, for the download's name. */
  file_name: string;
  size: number;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
  content_base64: string;
  created_at: string;
}

/** One step of a version's review, kept for good. */
export interface VersionReviewsTable {
  tenant_id: string;
  id: string;
  version_id: string;
  step: ReviewStep;
  /** The user who took it; ids are never reused, so it still names them once removed. */
  user_id: string;
  /** Their e-mail, as the audit log names them. */
  actor: string;
  actor_name: string | null;
  /** The note or comment; empty when none was asked for and none given. */
  comment: string;
  created_at: string;
}

/** What a change of a draft did: made it (per locale it starts with), saved a locale's text, added or removed a locale. */
export type EditKind = 'created' | 'edited' | 'locale_added' | 'locale_removed';

/**
 * One change of a draft release's text, kept for good (migration 0018): who made it, in which
 * locale, the text's SHA-256 before and after, and the text after it, so that a reviewer sees
 * what changed since their last review. Whoever has a row here wrote the release (four eyes).
 */
export interface VersionEditsTable {
  tenant_id: string;
  id: string;
  release_id: string;
  locale: string;
  kind: EditKind;
  /** The user who made it; ids are never reused. */
  user_id: string;
  actor: string;
  actor_name: string | null;
  /** Null when the locale had no text before (created, added). */
  sha256_before: string | null;
  /** Null when the locale's text was removed. */
  sha256_after: string | null;
  /** The locale's text after the change; null when removed. */
  content_html: string | null;
  created_at: string;
}

export type TemplateRow = Selectable<TemplatesTable>;
export type VersionEditRow = Selectable<VersionEditsTable>;
export type TemplateVersionRow = Selectable<TemplateVersionsTable>;
export type VersionReviewRow = Selectable<VersionReviewsTable>;
export type ContentFileRow = Selectable<ContentFilesTable>;

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    templates: TemplatesTable;
    template_validity_changes: TemplateValidityChangesTable;
    template_versions: TemplateVersionsTable;
    version_reviews: VersionReviewsTable;
    version_edits: VersionEditsTable;
    content_files: ContentFilesTable;
  }
}

/**
 * Other folders' tables this folder's queries read (joined where one statement answers better
 * than a call to their service); `npm run lint` checks that no query reaches another
 * (scripts/table-owners.mjs).
 */
export type Reads = 'customer_template_states' | 'customer_version_states' | 'products';
