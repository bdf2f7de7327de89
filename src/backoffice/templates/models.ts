import type {
  TemplateRow,
  TemplateSummaryRow,
  TemplateVersionRow,
  VersionStatus,
} from '../../templates/index.js';
import {
  dataCategoriesOf,
  isScheduled,
  type RepresentationRule,
  representationOf,
} from '../../templates/index.js';

/** A line of the template list. */
export interface TemplateListItem {
  code: string;
  name: string;
  latestVersion: number | null;
  latestTag: string | null;
  latestPublishedAt: string | null;
  drafts: number;
  productCode: string | null;
  productName: string | null;
  archived: boolean;
  /** The sensitive data it covers (PDPA section 26); empty: none. */
  dataCategories: readonly string[];
}

/** What the pages show of a template. */
export interface TemplateModel {
  code: string;
  name: string;
  description: string;
  createdAt: string;
  archivedAt: string | null;
  /** BCP 47: what a request naming no locale, or one it lacks, gets. */
  defaultLocale: string;
  /** Calendar months a customer's consent stays valid; null: it never lapses. */
  validityMonths: number | null;
  /** The sensitive data it covers (PDPA section 26); empty: none. */
  dataCategories: readonly string[];
  /** Who may decide for whom (PDPA section 20); undefined: no rule. */
  representation: RepresentationRule | undefined;
}

/** What the pages show of a version. */
export interface VersionModel {
  id: string;
  status: VersionStatus;
  version: number | null;
  tag: string;
  contentHtml: string;
  contentSha256: string;
  fileUrl: string | null;
  allowReconsent: boolean;
  createdAt: string;
  /** When it was published, or last saved while a draft. */
  changedAt: string;
  /** When it went live, or goes live when `scheduled`. */
  publishedAt: string | null;
  publishedBy: string | null;
  /** Approved, with an effective time still to come: the API does not show it yet. */
  scheduled: boolean;
  /** The locale of its own text (BCP 47). */
  locale: string;
}

export function templateListItem(t: TemplateSummaryRow): TemplateListItem {
  return {
    code: t.code,
    name: t.name,
    latestVersion: t.latest_version,
    latestTag: t.latest_tag,
    latestPublishedAt: t.latest_published_at,
    drafts: t.draft_count,
    productCode: t.product_code,
    productName: t.product_name,
    archived: t.archived_at !== null,
    dataCategories: dataCategoriesOf(t),
  };
}

export function templateModel(t: TemplateRow): TemplateModel {
  return {
    code: t.code,
    name: t.name,
    description: t.description,
    createdAt: t.created_at,
    archivedAt: t.archived_at,
    defaultLocale: t.default_locale,
    validityMonths: t.validity_months,
    dataCategories: dataCategoriesOf(t),
    representation: representationOf(t),
  };
}

export function versionModel(v: TemplateVersionRow): VersionModel {
  return {
    id: v.id,
    status: v.status,
    version: v.version,
    tag: v.tag,
    contentHtml: v.content_html,
    contentSha256: v.content_sha256,
    fileUrl: v.file_url,
    allowReconsent: v.allow_reconsent === 1,
    createdAt: v.created_at,
    changedAt: v.published_at ?? v.updated_at,
    publishedAt: v.published_at,
    publishedBy: v.published_by,
    scheduled: isScheduled(v),
    locale: v.locale,
  };
}
