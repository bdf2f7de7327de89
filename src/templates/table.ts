import type { Selectable } from 'kysely';

export interface TemplatesTable {
  tenant_id: string;
  id: string;
  code: string;
  name: string;
  description: string;
  created_at: string;
}

export interface TemplateVersionsTable {
  tenant_id: string;
  id: string;
  template_id: string;
  status: 'draft' | 'published';
  /** 1, 2, 3, … in order of publication; null while a draft. */
  version: number | null;
  tag: string;
  /** Already sanitized. */
  content_html: string;
  /** Hex SHA-256 of `content_html`: the evidence of what a customer was shown. */
  content_sha256: string;
  /** The operator's own URL for the content, when given. */
  file_url: string | null;
  /** 0 or 1: an integer reads the same on every store. */
  allow_reconsent: number;
  created_at: string;
  updated_at: string;
  published_at: string | null;
  published_by: string | null;
}

export type TemplateRow = Selectable<TemplatesTable>;
export type TemplateVersionRow = Selectable<TemplateVersionsTable>;
