import { getApiKey } from '../api-keys/index.js';
import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError, type ErrorDetail } from '../platform/errors.js';
import { nowIso } from '../platform/time.js';
import { validate } from '../platform/validation.js';
import { findPreferenceCentreRow, savePreferenceCentreRow } from './repository.js';
import { PreferenceCentreInput } from './schemas.js';

/** A tenant's preference centre as the page and the back-office use it. */
export interface PreferenceCentreSettings {
  displayName: string | null;
  logoUrl: string | null;
  accentColour: string | null;
  headerColour: string | null;
  /** Origins (`https://shop.example`) a link may return to and that may frame the page. */
  allowedOrigins: string[];
  /**
   * The tenant's API key ("system") that customers signed in by e-mail act under: the records
   * they make carry it, as the tenant vouches through it that an address is its customer's id.
   * Null: e-mail sign-in is off.
   */
  emailKeyId: string | null;
}

/** A tenant's preference centre before it sets anything: the service's own look, no origin. */
export const defaultSettings: Readonly<PreferenceCentreSettings> = Object.freeze({
  displayName: null,
  logoUrl: null,
  accentColour: null,
  headerColour: null,
  allowedOrigins: [],
  emailKeyId: null,
});

export async function getPreferenceCentre(
  db: Executor,
  tenantId: string,
): Promise<PreferenceCentreSettings> {
  const row = await findPreferenceCentreRow(db, tenantId);
  if (!row) return { ...defaultSettings, allowedOrigins: [] };
  return {
    displayName: row.display_name,
    logoUrl: row.logo_url,
    accentColour: row.accent_colour,
    headerColour: row.header_colour,
    allowedOrigins: JSON.parse(row.allowed_origins) as string[],
    emailKeyId: row.email_key_id,
  };
}

/**
 * Sets the tenant's preference centre, and records who did and what changed; `400 1001` with
 * each field's issue on bad input.
 */
export async function savePreferenceCentre(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  input: unknown,
): Promise<PreferenceCentreSettings> {
  const fields = validate(PreferenceCentreInput, input);
  const issues: ErrorDetail[] = [];
  const origins: string[] = [];
  for (const text of fields.allowed_origins) {
    const origin = originOf(text.trim());
    if (origin === undefined) {
      issues.push({
        field: 'allowed_origins',
        issue: `"${text}" is not an origin: https://host[:port], or http:// on this machine`,
      });
    } else if (!origins.includes(origin)) origins.push(origin);
  }
  if (fields.logo_url !== null && !webUrl(fields.logo_url)) {
    issues.push({ field: 'logo_url', issue: 'must be an https URL (http only on this machine)' });
  }
  for (const name of ['accent_colour', 'header_colour'] as const) {
    const value = fields[name];
    if (value !== null && contrastWithWhite(value) < minimumContrast) {
      issues.push({
        field: name,
        issue: `white text on ${value} is not readable enough (WCAG AA asks for 4.5:1): choose a darker colour`,
      });
    }
  }
  const emailKeyId = fields.email_key_id ?? null;
  if (emailKeyId !== null && !(await isLiveKey(trx, tenantId, emailKeyId))) {
    issues.push({
      field: 'email_key_id',
      issue: 'must be one of your API keys that is not revoked',
    });
  }
  if (issues.length > 0) throw new AppError('invalidRequest', { details: issues });
  const next: PreferenceCentreSettings = {
    displayName: fields.display_name?.trim() || null,
    logoUrl: fields.logo_url,
    accentColour: fields.accent_colour?.toLowerCase() ?? null,
    headerColour: fields.header_colour?.toLowerCase() ?? null,
    allowedOrigins: origins,
    emailKeyId,
  };
  const before = await getPreferenceCentre(trx, tenantId);
  await savePreferenceCentreRow(trx, {
    tenant_id: tenantId,
    display_name: next.displayName,
    logo_url: next.logoUrl,
    accent_colour: next.accentColour,
    header_colour: next.headerColour,
    allowed_origins: JSON.stringify(next.allowedOrigins),
    email_key_id: next.emailKeyId,
    updated_at: nowIso(),
  });
  const changed = (Object.keys(next) as (keyof PreferenceCentreSettings)[]).filter(
    (key) => JSON.stringify(before[key]) !== JSON.stringify(next[key]),
  );
  if (changed.length > 0) {
    await recordAudit(trx, {
      ...actor,
      action: 'preference_centre.changed',
      target: null,
      details: Object.fromEntries(changed.map((k) => [k, { from: before[k], to: next[k] }])),
    });
  }
  return next;
}

/**
 * Sets only the origins a link may return to (and that may frame the page), keeping the rest of
 * the settings: what the command line changes. Checked and audited as `savePreferenceCentre`.
 */
export async function setAllowedOrigins(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  origins: readonly string[],
): Promise<PreferenceCentreSettings> {
  const current = await getPreferenceCentre(trx, tenantId);
  return savePreferenceCentre(trx, actor, tenantId, {
    display_name: current.displayName,
    logo_url: current.logoUrl,
    accent_colour: current.accentColour,
    header_colour: current.headerColour,
    allowed_origins: [...origins],
    email_key_id: current.emailKeyId,
  });
}

/** Whether the tenant has this API key and it is not revoked. */
export async function isLiveKey(db: Executor, tenantId: string, keyId: string): Promise<boolean> {
  try {
    return (await getApiKey(db, tenantId, keyId)).revoked_at === null;
  } catch (error) {
    if (error instanceof AppError && error.kind === 'notFound') return false;
    throw error;
  }
}

/** Whether a URL (a link's `return_url`) is on one of the allowed origins. */
export function isAllowedUrl(settings: PreferenceCentreSettings, url: string): boolean {
  const parsed = webUrl(url);
  return parsed !== undefined && settings.allowedOrigins.includes(parsed.origin);
}

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An https URL, or an http one on this machine (a tenant trying the page out). */
function webUrl(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.username !== '' || url.password !== '') return undefined;
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && loopbackHosts.has(url.hostname)) return url;
  return undefined;
}

/** The origin a text names, when it names only an origin (no path, query or fragment). */
function originOf(text: string): string | undefined {
  const url = webUrl(text);
  if (!url || url.origin === 'null') return undefined;
  if (text.replace(/\/$/, '').toLowerCase() !== url.origin.toLowerCase()) return undefined;
  return url.origin;
}

/** WCAG 2.2's minimum contrast for normal text (1.4.3, level AA). */
const minimumContrast = 4.5;

/** The contrast ratio of white on a `#rrggbb` colour (WCAG 2.2, relative luminance). */
function contrastWithWhite(hex: string): number {
  const channel = (offset: number) => {
    const value = Number.parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return 1.05 / (luminance + 0.05);
}
