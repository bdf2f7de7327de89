import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import {
  getPreferenceCentre,
  type PageLocale,
  type PreferenceCentreSettings,
} from '../preference-centre/index.js';
import { getTenantByAlias } from '../tenants/index.js';
import type { PageFrame } from './views.js';

/** The tenant whose page was asked for, as every response of its pages needs it. */
export interface TenantFrame {
  id: string;
  alias: string;
  settings: PreferenceCentreSettings;
  zone: string;
  /** The page's own security headers: the tenant's origins may frame it, its logo is shown. */
  headers: Record<string, string>;
}

/** The tenant of an alias, with its preference centre; `404 1004` for none, or a disabled one. */
export async function tenantFrame(db: Db, alias: string): Promise<TenantFrame> {
  let tenant: Awaited<ReturnType<typeof getTenantByAlias>>;
  try {
    tenant = await getTenantByAlias(db, alias);
  } catch (error) {
    if (error instanceof AppError && error.kind === 'notFound') throw new AppError('notFound');
    throw error;
  }
  if (tenant.disabled_at !== null) throw new AppError('notFound');
  const settings = await getPreferenceCentre(db, tenant.id);
  return {
    id: tenant.id,
    alias: tenant.alias,
    settings,
    zone: tenant.time_zone || 'UTC',
    headers: pageHeaders(settings),
  };
}

export function frameOf(tenant: TenantFrame, locale: PageLocale): PageFrame {
  return {
    locale,
    name: tenant.settings.displayName ?? tenant.alias,
    settings: tenant.settings,
    zone: tenant.zone,
  };
}

/**
 * No script at all (the page works without one), styles inline, images from here or the logo's
 * origin, forms only to this service; framed only by the service itself and the tenant's allowed
 * origins (`frame-ancestors`, which `X-Frame-Options` cannot express, so that one goes).
 */
export function pageHeaders(settings: PreferenceCentreSettings): Record<string, string> {
  const ancestors = ["'self'", ...settings.allowedOrigins].join(' ');
  const logo = settings.logoUrl ? ` ${new URL(settings.logoUrl).origin}` : '';
  return {
    'content-security-policy':
      `default-src 'none';base-uri 'none';form-action 'self';frame-ancestors ${ancestors};` +
      `img-src 'self' data:${logo};style-src 'unsafe-inline';script-src 'none'`,
    'cache-control': 'no-store',
  };
}
