import type { Selectable } from 'kysely';
import type { ChoiceMethod } from './banner-config.js';

/** A tenant's website or web app (migration 0019). */
export interface CookieSystemsTable {
  tenant_id: string;
  id: string;
  /** The public id in the banner tag's `data-scope` and URL; unique across tenants. */
  scope: string;
  /** Unique within the tenant. */
  name: string;
  /** JSON array of the exact origins (`https://www.bank.example`) allowed to use the scope. */
  origins: string;
  /** The one configuration live on the site, if any. */
  published_configuration_id: string | null;
  /** Configurations made for the system so far: the next one's `version`. */
  configurations_made: number;
  created_at: string;
  updated_at: string;
}

/** Where a configuration stands in its review, apart from whether it is published. */
export type ConfigurationStatus =
  | 'draft'
  | 'pending_review'
  | 'pending_approval'
  | 'approved'
  | 'rejected';

export interface CookieConfigurationsTable {
  tenant_id: string;
  id: string;
  system_id: string;
  /** 1, 2, 3, … within the system. */
  version: number;
  name: string;
  /** `YYYY-MM-DD`: the day it takes effect, for the record (publishing makes it live). */
  effective_date: string;
  status: ConfigurationStatus;
  /** JSON of `ConfigurationContent` (content.ts). */
  content: string;
  /** Hex SHA-256 of the canonical JSON of `content`: what a choice's leaf commits to. */
  content_sha256: string;
  /** What a stored choice must match not to be asked again (content.ts). */
  fingerprint: string;
  created_at: string;
  updated_at: string;
  /** When it was last published; null if never. */
  published_at: string | null;
}

/** A step in a configuration's life: its timeline, and who four eyes bars. */
export type ConfigurationStep =
  | 'created'
  | 'changed'
  | 'submitted'
  | 'passed'
  | 'approved'
  | 'sent_back'
  | 'rejected'
  | 'published'
  | 'unpublished';

export interface CookieConfigurationStepsTable {
  tenant_id: string;
  id: string;
  configuration_id: string;
  step: ConfigurationStep;
  /** The back-office user; null for the command line. */
  user_id: string | null;
  /** How the audit trail names who took it (`user:…`, `cli`). */
  actor: string;
  note: string | null;
  created_at: string;
}

/**
 * Append-only: a visitor's choice on a published configuration. Its column `content_sha256`,
 * nullable since migration 0060, is left out: nothing writes or reads it (the configuration's
 * hash is read from the configuration, `CookieDecisionRecordRow`), and a later release drops it.
 */
export interface CookieDecisionsTable {
  tenant_id: string;
  id: string;
  system_id: string;
  configuration_id: string;
  configuration_version: number;
  /** The visitor's subject (src/subjects): their id, address and user agent are in `personal`. */
  subject_id: string;
  /** The banner's id of the choice: a retry carries the same and is recorded once. */
  event_id: string;
  method: ChoiceMethod;
  /** JSON object of every category of the configuration, granted (true) or denied. */
  categories: string;
  locale: string;
  /** The page's origin, one of the system's. */
  origin: string;
  /** Where the visitor was (`TH`, `US-CA`; migration 0041), null when the service did not know. */
  region: string | null;
  /** The A/B variant the visitor saw (migration 0042), null for a configuration without variants. */
  variant: string | null;
  /**
   * The customer the visitor was signed in as (migration 0044): their subject, null for a visitor
   * no one signed in (docs/cookies.md, "Signed-in visitors").
   */
  customer_subject_id: string | null;
  /** That customer's subject commitment, which the choice's evidence commits to; null likewise. */
  customer: string | null;
  /** Visitor id, address (as the tenant keeps it) and user agent, sealed under the subject's key. */
  personal: string;
  /** base64 random bytes behind the evidence commitment of the choice's log leaf. */
  evidence_salt: string;
  decided_at: string;
}

/**
 * Choices refused because their page's origin is not one of the system's (migration 0027):
 * counted per origin, so that the owner sees a site they forgot to list (refused-origins.ts).
 */
export interface CookieRefusedOriginsTable {
  tenant_id: string;
  system_id: string;
  /** The `Origin` as sent; `''` counts every other: past the cap, or no http(s) origin. */
  origin: string;
  refusals: number;
  first_seen_at: string;
  last_seen_at: string;
}

export type CookieSystemRow = Selectable<CookieSystemsTable>;
export type CookieConfigurationRow = Selectable<CookieConfigurationsTable>;
export type CookieDecisionRow = Selectable<CookieDecisionsTable>;

/**
 * A choice as its record reads it: with the SHA-256 of its configuration's content, the
 * configuration's (since migration 0060 the row keeps no copy).
 */
export type CookieDecisionRecordRow = CookieDecisionRow & { content_sha256: string };

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    cookie_systems: CookieSystemsTable;
    cookie_configurations: CookieConfigurationsTable;
    cookie_configuration_steps: CookieConfigurationStepsTable;
    cookie_decisions: CookieDecisionsTable;
    cookie_refused_origins: CookieRefusedOriginsTable;
  }
}

/**
 * Other folders' tables this folder's queries read (joined where one statement answers better
 * than a call to their service); `npm run lint` checks that no query reaches another
 * (scripts/table-owners.mjs).
 */
export type Reads = 'subjects' | 'tenants';
