import { recordAudit } from '../audit-trail/index.js';
import type { Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { canonicalLocale } from '../templates/index.js';
import { getTenantById } from '../tenants/index.js';
import { deleteExpiredLinkUses, useLink } from './repository.js';
import { defaultLinkSeconds, type PreferenceLink, type PreferenceLinkRequest } from './schemas.js';
import { getPreferenceCentre, isAllowedUrl } from './settings.js';
import {
  type LinkRefusal,
  openLink,
  type PreferenceSecrets,
  type SessionClaims,
  sealLink,
} from './tokens.js';

/** The API key that asks for a link: its tenant, and the key itself (the customer's voucher). */
export interface LinkCaller {
  tenantId: string;
  apiKeyId: string;
}

/** The path of a tenant's page, under which its session cookie lives. */
export function pagePath(alias: string): string {
  return `/preferences/${encodeURIComponent(alias)}`;
}

/**
 * A link to the customer's own page, for the tenant's backend to send them to: `400 1001` for a
 * `return_url` off the tenant's allowed origins or a locale that is no language tag. Nothing is
 * stored: the link carries what it opens, sealed, and is remembered only once it is used.
 */
export async function mintPreferenceLink(
  db: Executor,
  secrets: PreferenceSecrets,
  publicBaseUrl: string,
  caller: LinkCaller,
  customerId: string,
  request: PreferenceLinkRequest,
  now = new Date(),
): Promise<PreferenceLink> {
  const tenant = await getTenantById(db, caller.tenantId);
  if (request.return_url !== undefined) {
    const settings = await getPreferenceCentre(db, caller.tenantId);
    if (!isAllowedUrl(settings, request.return_url)) {
      throw new AppError('invalidRequest', {
        details: [
          {
            field: 'body.return_url',
            issue: "must be on one of the origins allowed in the preference centre's settings",
          },
        ],
      });
    }
  }
  const locale = request.locale === undefined ? undefined : canonicalLocale(request.locale);
  if (request.locale !== undefined && locale === undefined) {
    throw new AppError('invalidRequest', {
      details: [
        { field: 'body.locale', issue: 'must be a BCP 47 language tag, such as th or en-GB' },
      ],
    });
  }
  // Whole seconds: the token's expiry is in seconds, and the answer says the same instant.
  const expiresAt = new Date(
    Math.floor(now.getTime() / 1000) * 1000 + (request.ttl_seconds ?? defaultLinkSeconds) * 1000,
  );
  const token = await sealLink(secrets, {
    tenantId: caller.tenantId,
    customerId,
    apiKeyId: caller.apiKeyId,
    ...(request.return_url === undefined ? {} : { returnUrl: request.return_url }),
    ...(locale === undefined ? {} : { locale }),
    linkId: newId(),
    expiresAt,
  });
  return {
    url: `${publicBaseUrl}${pagePath(tenant.alias)}/open?token=${token}`,
    expires_at: expiresAt.toISOString(),
  };
}

/** Where a link was opened from: kept in the audit entry of its use or its refusal. */
export interface Opener {
  ip: string;
  userAgent: string | null;
}

/**
 * Opens a link on the page of the tenant whose address it was opened at, once: the session it
 * starts, or why it was refused. Either is an audit entry of that tenant (the link's id as its
 * target when it could be read, never the customer's id).
 */
export async function openPreferenceLink(
  db: Executor,
  secrets: PreferenceSecrets,
  tenantId: string,
  token: string,
  opener: Opener,
  now = new Date(),
): Promise<{ ok: true; session: SessionClaims } | { ok: false; why: LinkRefusal }> {
  const opened = await openLink(secrets, token, now);
  let why: LinkRefusal | undefined = opened.ok ? undefined : opened.why;
  const claims = opened.claims;
  if (opened.ok && opened.claims.tenantId !== tenantId) why = 'other-tenant';
  if (why === undefined && claims) {
    const first = await useLink(db, {
      link_id: claims.linkId,
      tenant_id: tenantId,
      used_at: now.toISOString(),
      expires_at: claims.expiresAt.toISOString(),
    });
    if (!first) why = 'reused';
  }
  if (why !== undefined || !claims) {
    await recordAudit(db, {
      tenantId,
      actorKind: 'anonymous',
      actor: '',
      ...opener,
      action: 'preference_link.refused',
      target: claims?.linkId ?? null,
      details: { reason: why ?? 'invalid' },
    });
    return { ok: false, why: why ?? 'invalid' };
  }
  const { linkId, expiresAt: _, ...customer } = claims;
  const session: SessionClaims = { ...customer, sessionId: newId(), startedAt: now };
  await recordAudit(db, {
    tenantId,
    actorKind: 'customer',
    actor: session.sessionId,
    ...opener,
    action: 'preference_link.opened',
    target: linkId,
    details: null,
  });
  return { ok: true, session };
}

/**
 * Forgets the uses of links past their expiry: such a link is refused for its age, so its use
 * no longer needs remembering. Run with the service's other housekeeping.
 */
export function purgeExpiredLinkUses(db: Executor, now = new Date()): Promise<number> {
  return deleteExpiredLinkUses(db, now.toISOString());
}
